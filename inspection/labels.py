"""Spanish labels for the registry's coded values (translated like any other string)."""
from .i18n import gettext

LABELS = {
    "flag": {"national": "Nacional", "foreign": "Extranjera"},
    "propulsion": {"steam": "Vapor", "motor": "Motor", "sail": "Vela", "rowing": "Remo", "towed": "Remolcada"},
    "service": {"passenger": "Pasajeros", "cargo": "Carga", "mixed": "Mixto", "tug": "Remolcador",
                "livestock": "Ganado", "tanker": "Tanque", "raft": "Jangada", "work": "Trabajo"},
    "hull_material": {"iron": "Hierro", "wood": "Madera", "mixed": "Mixto"},
    "cooking": {"galley": "Cocina", "brazier": "Brasero", "none": "Ninguna"},
    "itinerary_category": {"A": "A", "B": "B", "C": "C", "D": "D"},
    "role": {"admin": "Administración", "inspector": "Inspector", "owner": "Armador", "police": "Policía"},
}

FIELD_LABELS = {
    "registration": "Matrícula", "name": "Nombre", "owner_id": "Armador", "flag": "Bandera",
    "cabotage_permit": "Permiso de cabotaje", "home_port": "Puerto de matrícula",
    "propulsion": "Propulsión", "service": "Servicio", "hull_material": "Casco",
    "length_m": "Eslora (m)", "beam_m": "Manga (m)", "girth_m": "Contorno (m)",
    "gross_tonnage": "Arqueo (t)", "crew": "Tripulantes", "max_passengers": "Máximo de pasajeros",
    "cabins": "Camarotes", "fire_hydrants": "Grifos de incendio", "holds": "Bodegas",
    "boilers": "Calderas", "steam_launch": "Lancha a vapor", "boats": "Embarcaciones menores",
    "cooking": "Cocina a bordo", "hot_climate": "Clima cálido (más de 20 °C)",
    "itinerary_category": "Categoría de documentos (Código, art. 23)",
    "tax_id": "RUC o CI", "email": "Correo electrónico", "phone": "Teléfono", "address": "Dirección",
}


def label(kind: str, value) -> str:
    """The translated label of a coded value."""
    return gettext(LABELS.get(kind, {}).get(value, str(value)))


def field_label(field: str) -> str:
    """The translated label of a field name."""
    return gettext(FIELD_LABELS.get(field, field))
