"""Spanish labels for the registry's and the inspections' coded values and fields, translated like any other string.

One table for the pages and the printed documents (certificate, report, fee statement); no Flask, so pure modules may use it too.
"""
from inspection.i18n.messages import N_, Msg, translate

LABELS = {
    "flag": {"national": N_("Nacional"), "foreign": N_("Extranjera")},
    "propulsion": {"steam": N_("Vapor"), "motor": N_("Motor"), "sail": N_("Vela"), "rowing": N_("Remo"), "towed": N_("Sin propulsión (remolcada)")},
    "service": {"passenger": N_("Pasajeros"), "cargo": N_("Carga"), "mixed": N_("Mixto (pasajeros y carga)"),
                "tug": N_("Remolcador"), "livestock": N_("Transporte de ganado"), "tanker": N_("Buque tanque"),
                "raft": N_("Balsa"), "work": N_("Trabajo")},
    "hull_material": {"iron": N_("Hierro"), "steel": N_("Acero"), "wood": N_("Madera"), "mixed": N_("Mixto")},
    "cooking": {"galley": N_("Cocina"), "brazier": N_("Brasero"), "none": N_("Ninguna")},
    "practicaje": {"unset": N_("Sin registrar"), "none": N_("No navega la Sección Sur con práctico"),
                   "to_angostura": N_("Un práctico (hasta Angostura, o práctico de puerto)"),
                   "beyond_angostura": N_("Dos prácticos (más allá de Angostura)"),
                   "fixed_itinerary": N_("Itinerario fijo (Capitán Práctico y prácticos por mes)")},
    "itinerary_category": {"A": N_("A"), "B": N_("B"), "C": N_("C"), "D": N_("D")},
    "role": {"admin": N_("Administración"), "inspector": N_("Inspector"), "owner": N_("Armador"), "police": N_("Policía")},
}

FIELD_LABELS = {
    "registration": N_("Matrícula"), "name": N_("Nombre"), "owner_id": N_("Armador"), "flag": N_("Bandera"),
    "cabotage_permit": N_("Permiso de cabotaje"), "home_port": N_("Puerto de matrícula"),
    "propulsion": N_("Propulsión"), "service": N_("Servicio"), "hull_material": N_("Casco"),
    "length_m": N_("Eslora (m)"), "beam_m": N_("Manga (m)"), "girth_m": N_("Contorno (m)"),
    "gross_tonnage": N_("Arqueo (t)"), "crew": N_("Tripulantes"), "max_passengers": N_("Máximo de pasajeros"),
    "cabins": N_("Camarotes"), "fire_hydrants": N_("Grifos de incendio"), "holds": N_("Bodegas"),
    "boilers": N_("Calderas"), "steam_launch": N_("Lancha a vapor"), "boats": N_("Embarcaciones menores"),
    "cooking": N_("Cocina a bordo"), "hot_climate": N_("Clima cálido (más de 20 °C)"),
    "flammable_cargo_kg": N_("Carga inflamable o explosiva habitual (kg)"),
    "itinerary_category": N_("Categoría de documentos (Código, art. 23)"),
    "practicaje": N_("Practicaje en la Sección Sur del Río Paraguay (Decreto 6383, art. 1)"),
    "reason": N_("Motivo"), "language": N_("Idioma"), "tax_id": N_("RUC o CI"), "email": N_("Correo electrónico"), "phone": N_("Teléfono"), "address": N_("Dirección"),
}


def label(kind: str, value, lang: str) -> str:
    """The label of a coded value in `lang` (the value itself when it has none)."""
    return translate(LABELS.get(kind, {}).get(value, str(value)), lang)


def field_label(field: str, lang: str) -> str:
    """The label of a field name in `lang`."""
    return translate(FIELD_LABELS.get(field, field), lang)


# Coded inspection values shown to people; Msg so the catalog test sees them and they follow the language.
TERMS = {
    "kind": {"navegabilidad": Msg("Navegabilidad"), "seguridad": Msg("Seguridad"),
             "documentacion": Msg("Documentación"), "menores": Msg("Embarcaciones menores (art. 210)"),
             "conducta": Msg("Conducta en navegación")},
    "patrol_outcome": {"sin_novedad": Msg("Sin novedad"), "observaciones": Msg("Observaciones"),
                       "infraccion": Msg("Infracción"), "retencion": Msg("Retención")},
    "status": {"scheduled": Msg("Programada"), "in_progress": Msg("En curso"), "submitted": Msg("Cerrada"),
               "interrupted": Msg("Interrumpida"), "cancelled": Msg("Cancelada")},
    "outcome": {"passed": Msg("Aprobada"), "passed_with_observations": Msg("Aprobada con observaciones"),
                "failed": Msg("No aprobada")},
    "coverage": {"covered": Msg("Cubierto"), "excluded": Msg("Excluido"), "pending": Msg("Pendiente"),
                 "uncovered": Msg("Sin cubrir")},
    "result": {"pass": Msg("Cumple"), "fail": Msg("No cumple"), "not_applicable": Msg("No corresponde")},
    "action": {"rectified": Msg("Subsanada a bordo"), "before_departure": Msg("Antes de zarpar"),
               "within_14_days": Msg("Dentro de 14 días"), "next_port": Msg("En el próximo puerto"),
               "detained": Msg("Buque detenido")},
    # The fleet's states (cycle.py); the page shows a sign and the word beside the colour.
    "state": {"ok": Msg("Al día"), "due_soon": Msg("Por vencer"), "overdue": Msg("Vencido"),
              "suspended": Msg("Suspendido"), "missing": Msg("Sin certificado")},
    "application": {"pending": Msg("Pendiente"), "scheduled": Msg("Programada"), "done": Msg("Atendida"),
                    "cancelled": Msg("Cancelada")},
    "certificate": {"valid": Msg("Válido"), "expired": Msg("Vencido"), "suspended": Msg("Suspendido"),
                    "revoked": Msg("Revocado"), "superseded": Msg("Reemplazado")},
    "deficiency": {"open": Msg("Abierta"), "reported_fixed": Msg("Informada subsanada"), "closed": Msg("Cerrada")},
    # An item's standing (checklists' builder): the practice it rests on, not declared binding or declared so.
    "standing": {
        "foreign": Msg("Práctica adoptada (instrumento extranjero): su incumplimiento es una observación, "
                       "no causa detención"),
        "foreign_binding": Msg("Instrumento extranjero declarado vinculante por la autoridad"),
        "extension": Msg("Práctica de la autoridad (deber de los vapores extendido a los buques a motor): su "
                         "incumplimiento es una observación, no causa detención"),
        "extension_binding": Msg("Deber de los vapores extendido a los buques a motor, declarado vinculante por la "
                                 "autoridad"),
    },
    "audit": {"inspection.scheduled": Msg("Inspección programada"), "inspection.started": Msg("Inspección comenzada"),
              "answer.recorded": Msg("Respuesta registrada"), "photo.added": Msg("Foto recibida"),
              "inspection.submitted": Msg("Inspección cerrada"),
              "inspection.countersigned": Msg("Inspección refrendada (art. 221)"),
              "inspection.returned": Msg("Inspección devuelta al inspector para corregir"),
              "inspection.interrupted": Msg("Inspección interrumpida"),
              "inspection.cancelled": Msg("Inspección cancelada"),
              "inspection.reinspection_scheduled": Msg("Reinspección programada (art. 206)"),
              "deficiency.reported_fixed": Msg("Deficiencia informada subsanada"),
              "deficiency.closed": Msg("Deficiencia cerrada"), "vessel.detained": Msg("Buque detenido (art. 208)"),
              "vessel.detention_lifted": Msg("Detención levantada"),
              "certificate.issued": Msg("Certificado emitido"),
              "application.assigned": Msg("Solicitud asignada"), "fine.waived": Msg("Multa condonada")},
}


def standing_of(entry) -> str:
    """The standing of a built or pinned item, or a deficiency (a mapping or a row): "law", "foreign" or "extension"
    (checklists' builder). One pinned before standings were recorded could rest only on a foreign instrument."""
    get = entry.get if isinstance(entry, dict) else lambda name: getattr(entry, name, None)
    return get("standing") or ("foreign" if get("practice") or get("foreign") else "law")


def standing_key(entry) -> str | None:
    """The "standing" term of an item or deficiency, or None for the law's own: the practice's ground while not
    declared binding ("extension"), "extension_binding" once declared so."""
    ground = standing_of(entry)
    if ground == "law":
        return None
    practice = entry.get("practice") if isinstance(entry, dict) else getattr(entry, "practice", False)
    return ground if practice else f"{ground}_binding"


def term_label(group: str, value, lang: str) -> str:
    """The label of a coded inspection value in `lang` (the code itself when unknown)."""
    found = TERMS.get(group, {}).get(value)
    return found.in_language(lang) if found is not None else ("" if value is None else str(value))
