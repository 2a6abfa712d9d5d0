"""Owners, vessels and the law's checklists on the wire, with the exact tonnage as text."""
from decimal import Decimal
from functools import lru_cache

from marshmallow import ValidationError, fields, post_dump, validate, validates_schema

from checklists import CONSEQUENCES, STANDINGS
from inspection.core.models import COOKING, FLAGS, HULLS, ITINERARY_CATEGORIES, PRACTICAJE, PROPULSIONS, SERVICES
from inspection.law.tonnage import gross_tonnage, shown_tonnage
from inspection.registry.vessels import particular_errors
from inspection.web.schemas import (
    BaseSchema,
    Integer,
    PageArgs,
    Text,
    choice_field,
    count_field,
    id_field,
    metres_field,
)
from inspection.web.forms import sort_field


class OwnerSchema(BaseSchema):
    """An owner (armador)."""

    id = Integer(dump_only=True)
    name = Text(required=True, validate=validate.Length(min=2, max=200))
    tax_id = Text(required=True, validate=validate.Length(min=3, max=40),
                           metadata={"description": "RUC o CI"})
    email = fields.Email(allow_none=True, validate=validate.Length(max=200))
    phone = Text(allow_none=True, validate=validate.Length(max=60))
    address = Text(allow_none=True, validate=validate.Length(max=300))
    created_at = fields.AwareDateTime(dump_only=True)
    updated_at = fields.AwareDateTime(dump_only=True)


class VesselSchema(BaseSchema):
    """A vessel and its particulars (field names fixed by api.md)."""

    id = Integer(dump_only=True)
    registration = Text(required=True, validate=validate.Length(min=2, max=40),
                                 metadata={"description": "Matrícula (art. 66)"})
    name = Text(required=True, validate=validate.Length(min=1, max=120))
    owner_id = id_field(required=True)
    flag = choice_field(FLAGS, "Bandera", required=True)
    cabotage_permit = Text(allow_none=True, load_default=None, validate=validate.Length(max=60),
                                    metadata={"description": "Permiso de cabotaje de un buque extranjero"})
    home_port = Text(required=True, validate=validate.Length(min=2, max=120))
    propulsion = choice_field(PROPULSIONS, "Propulsión", required=True)
    service = choice_field(SERVICES, "Servicio", required=True)
    hull_material = choice_field(HULLS, "Material del casco (art. 195)", required=True)
    length_m = metres_field("Eslora en metros")
    beam_m = metres_field("Manga en metros")
    girth_m = metres_field("Contorno exterior bajo la quilla, en metros (art. 195)")
    gross_tonnage = fields.Method("dump_tonnage", dump_only=True,
                                  metadata={"description": "Arqueo (art. 195) como se muestra: 2 decimales, o los "
                                                           "que lo distinguen de una tonelada entera (4.998, no 5.00)"})
    gross_tonnage_exact = fields.Method("dump_tonnage_exact", dump_only=True,
                                        metadata={"description": "Arqueo exacto (art. 195), como texto decimal"})
    crew = count_field("Tripulantes")
    max_passengers = count_field("Máximo de pasajeros")
    cabins = count_field("Camarotes")
    fire_hydrants = count_field("Grifos de incendio")
    holds = count_field("Bodegas")
    boilers = count_field("Calderas")
    steam_launch = fields.Boolean(load_default=False)
    boats = count_field("Embarcaciones menores")
    cooking = choice_field(COOKING, "Cocina a bordo", load_default="none")
    hot_climate = fields.Boolean(load_default=False, metadata={"description": "Opera con más de 20 °C"})
    flammable_cargo_kg = Integer(
        load_default=0, validate=validate.Range(min=0, max=100_000_000),
        metadata={"description": "Carga inflamable o explosiva habitual en kg, sin el combustible propio (arts. 133-140)"})
    itinerary_category = choice_field(ITINERARY_CATEGORIES, "Categoría de documentación a bordo (Código, art. 23)",
                                 load_default="B")
    practicaje = choice_field(PRACTICAJE, "Practicaje en la Sección Sur del Río Paraguay (Decreto 6383/1951 art. 1): unset, "
                         "none, to_angostura (un práctico), beyond_angostura (dos), fixed_itinerary",
                         load_default="unset")
    created_at = fields.AwareDateTime(dump_only=True)
    updated_at = fields.AwareDateTime(dump_only=True)

    def dump_tonnage(self, vessel) -> float:
        return float(shown_tonnage(vessel.gross_tonnage))

    def dump_tonnage_exact(self, vessel) -> str:
        return exact_tonnage(vessel)

    @post_dump
    def _floats(self, data, **kwargs):
        for field in ("length_m", "beam_m", "girth_m"):
            if isinstance(data.get(field), Decimal):
                data[field] = float(data[field])
        return data

    @validates_schema
    def _coherent(self, data, partial=None, **kwargs):
        """Whole records are checked here; a PATCH is checked merged with the stored vessel."""
        if partial:
            return
        errors = particular_errors(data)
        if errors:
            raise ValidationError(errors)


def exact_tonnage(vessel) -> str:
    """The art. 195 quotient to 40 significant digits, recomputed from the measured dimensions."""
    return _exact_tonnage_text(str(vessel.length_m), str(vessel.beam_m), str(vessel.girth_m), vessel.hull_material)


@lru_cache(maxsize=8192)
def _exact_tonnage_text(length: str, beam: str, girth: str, hull_material: str) -> str:
    """gross_tonnage() as text, remembered: it is pure, and a list of 50 vessels spent a tenth of its time here.

    Keyed by the dimensions' text, not their Decimal value, so 10 and 10.00 (equal, same hash) keep
    their own exact digits.
    """
    return str(gross_tonnage(length, beam, girth, hull_material))  # it reads numbers via their text anyway


# Every column the vessel dump reads, in the schema's order: the vessel list selects only these, as rows.
VESSEL_COLUMNS = ("id", "registration", "name", "owner_id", "flag", "cabotage_permit", "home_port", "propulsion",
                  "service", "hull_material", "length_m", "beam_m", "girth_m", "gross_tonnage", "crew",
                  "max_passengers", "cabins", "fire_hydrants", "holds", "boilers", "steam_launch", "boats", "cooking",
                  "hot_climate", "flammable_cargo_kg", "itinerary_category", "practicaje", "created_at", "updated_at")


def vessel_json(vessel) -> dict:
    """VesselSchema().dump(vessel), written out: lists of 50 vessels spent most of their time in marshmallow.

    tests/test_schemas.py keeps the two identical, so the schema stays the one definition.
    """
    return _vessel_values_json({name: getattr(vessel, name) for name in VESSEL_COLUMNS})


def vessel_row_json(row) -> dict:
    """vessel_json() of a row selecting VESSEL_COLUMNS in order (no Vessel object built, no attribute lookups)."""
    return _vessel_values_json(dict(zip(VESSEL_COLUMNS, row)))


def _vessel_values_json(out: dict) -> dict:
    """The stored values of VESSEL_COLUMNS made JSON-ready in place: floats, the rounded and exact tonnage, ISO times."""
    length, beam, girth = out["length_m"], out["beam_m"], out["girth_m"]
    out.update(length_m=float(length), beam_m=float(beam), girth_m=float(girth),
               gross_tonnage=float(shown_tonnage(out["gross_tonnage"])),
               gross_tonnage_exact=_exact_tonnage_text(str(length), str(beam), str(girth), out["hull_material"]),
               created_at=out["created_at"].isoformat(), updated_at=out["updated_at"].isoformat())
    return out


class VesselQuery(PageArgs):
    """Filters for the vessel list."""

    owner_id = id_field()
    q = fields.String(validate=validate.Length(max=100), metadata={"description": "Busca en matrícula y nombre"})
    propulsion = choice_field(PROPULSIONS, "Propulsión")
    service = choice_field(SERVICES, "Servicio")


class VesselListQuery(VesselQuery):
    """The vessel page's search, filters and order (by registration by default)."""

    sort = sort_field(("registration", "name", "propulsion", "service", "gross_tonnage"), "registration")


class OwnerQuery(PageArgs):
    """Filters for the owner list."""

    q = fields.String(validate=validate.Length(max=100))


class ChecklistItemSchema(BaseSchema):
    """One requirement of the law, computed for a vessel (field names fixed by api.md)."""

    id = fields.String()
    title = fields.String()
    topic = fields.String()
    topic_title = fields.String()
    source = fields.String(metadata={"description": "Instrumento, p. ej. «Ley 928/1927»"})
    article = fields.String(metadata={"description": "Número de artículo, p. ej. «143»"})
    clauses = fields.List(fields.String(), metadata={
        "description": "Incisos del artículo que el ítem verifica (p. ej. [«b»] del Código art. 41); vacío si el "
                       "artículo no se divide en incisos"})
    text = fields.String(metadata={"description": "Cita textual del artículo"})
    required = Integer(allow_none=True, metadata={
        "description": "Cantidad mínima: se aprueba si lo observado es mayor o igual; null si no fija mínimo"})
    maximum = Integer(allow_none=True, metadata={
        "description": "Cantidad máxima (p. ej. pasajeros, Ley 928 art. 184): se aprueba si lo observado es menor o "
                       "igual; null si no fija máximo. Un ítem fija a lo sumo uno de los dos"})
    unit = fields.String(allow_none=True)
    whole = fields.Boolean(allow_none=True, metadata={
        "description": "true: la cantidad se cuenta en unidades enteras (2,5 salvavidas se rechaza); false: es una "
                       "medida (kg); null: el ítem no fija cantidad"})
    evidence_required = fields.Boolean()
    detainable = fields.Boolean(metadata={"description": "Su incumplimiento causa detención (nunca en una práctica)"})
    certificate = fields.String()
    foreign = fields.Boolean(metadata={"description": "Cita un instrumento extranjero (p. ej. el decreto colombiano)"})
    practice = fields.Boolean(metadata={"description": "Práctica de la autoridad no declarada vinculante: su "
                                                      "incumplimiento es una observación"})
    standing = fields.String(validate=validate.OneOf(STANDINGS), metadata={"description": (
        "En qué se funda para este buque: law (la ley), o la práctica de la autoridad: foreign (instrumento "
        "extranjero), extension (deber de los vapores extendido a un buque a motor)")})
    consequence = fields.String(validate=validate.OneOf(CONSEQUENCES), metadata={"description": (
        "Qué produce su incumplimiento: detention (detención), restriction (la restricción que ordena su artículo, "
        "que el certificado lleva) u observation (observación con plazo)")})
    restriction = fields.String(allow_none=True, metadata={"description": (
        "La restricción, p. ej. daylight_only (Ley 928 art. 73: solo navegación diurna); null si no restringe")})
    restriction_label = fields.String(allow_none=True, metadata={"description": "La restricción en palabras"})
    fine = fields.Nested("LawFineSchema", allow_none=True, metadata={
        "description": "La multa que la ley fija por su incumplimiento; null si la ley no fija ninguna"})


class LawFineSchema(BaseSchema):
    """A fine the law itself sets: the article, its words, and the amounts it prints (`max` null: one amount)."""

    source = fields.String()
    article = fields.String()
    text = fields.String(metadata={"description": "Cita textual del artículo que fija la multa"})
    min = Integer(metadata={"description": "El menor importe impreso (pesos de curso legal)"})
    max = Integer(allow_none=True, metadata={"description": "El mayor, si el artículo imprime dos; null si uno"})


class ChecklistSchema(BaseSchema):
    """A vessel's checklist of one kind; an exempt one says why (e.g. art. 210)."""

    kind = fields.String()
    version = fields.String()
    title_es = fields.String()
    title_en = fields.String()
    exempt = fields.Boolean()
    exemption = fields.Dict(allow_none=True)
    items = fields.List(fields.Nested(ChecklistItemSchema))
