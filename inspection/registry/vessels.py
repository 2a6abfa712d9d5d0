"""Registry operations: create and update owners and vessels, and the pure rules that bind particulars."""
import re

from sqlalchemy import or_

from inspection.core.exceptions import Conflict, Invalid
from inspection.core.extensions import db
from inspection.core.models import Owner, Vessel
from inspection.i18n.messages import Msg
from inspection.law.tonnage import registered_tonnage
from inspection.registry.needs import decided_needs, needs_of, stored_needs

SELF_PROPELLED = ("steam", "motor")


def registration_key(registration: str) -> str:
    """The comparison key of a registration: case and spaces do not make a new vessel."""
    return re.sub(r"\s+", "", registration).upper()


def clean_registration(registration: str) -> str:
    """The registration as shown: trimmed, inner runs of spaces made one, uppercase."""
    return re.sub(r"\s+", " ", registration).strip().upper()


def particular_errors(p: dict) -> dict[str, list[Msg]]:
    """Impossible combinations of particulars, as field -> messages (empty when coherent)."""
    errors: dict[str, list[Msg]] = {}

    def add(field, message):
        errors.setdefault(field, []).append(message)

    propulsion, service = p.get("propulsion"), p.get("service")
    if propulsion == "rowing" and p.get("boilers", 0) > 0:
        add("boilers", Msg("Una embarcación a remo no puede tener calderas."))
    if propulsion == "steam" and p.get("boilers", 0) < 1:
        add("boilers", Msg("Un buque a vapor debe tener al menos una caldera."))
    if p.get("steam_launch") and propulsion != "steam":
        add("steam_launch", Msg("Solo un buque a vapor puede ser lancha a vapor."))
    if p.get("steam_launch") and p.get("boilers", 0) < 1:
        add("boilers", Msg("Una lancha a vapor debe tener al menos una caldera."))
    if service in ("passenger", "mixed") and p.get("max_passengers", 0) < 1:
        add("max_passengers", Msg("Un buque de pasajeros o mixto debe admitir al menos un pasajero."))
    if p.get("max_passengers", 0) == 0 and p.get("cabins", 0) > 0 and service in ("passenger", "mixed"):
        add("cabins", Msg("Hay camarotes de pasajeros pero el máximo de pasajeros es 0."))
    if propulsion in SELF_PROPELLED and p.get("crew", 0) < 1:
        add("crew", Msg("Un buque con máquina propia necesita al menos un tripulante."))
    if p.get("flag") == "foreign" and not (p.get("cabotage_permit") or "").strip():
        add("cabotage_permit", Msg("Un buque extranjero necesita su permiso de cabotaje."))
    if p.get("flag") == "national" and (p.get("cabotage_permit") or "").strip():
        add("cabotage_permit", Msg("El permiso de cabotaje es solo para buques extranjeros."))
    if p.get("flag") == "foreign" and p.get("practicaje") == "fixed_itinerary":  # Decreto 6383 art. 1 b
        add("practicaje", Msg("El itinerario fijo con Capitán Práctico es solo para buques de pabellón nacional."))
    length, beam = p.get("length_m"), p.get("beam_m")
    if length is not None and beam is not None and beam > length:
        add("beam_m", Msg("La manga no puede ser mayor que la eslora."))
    if p.get("fire_hydrants", 0) > 0 and propulsion == "rowing":
        add("fire_hydrants", Msg("Una embarcación a remo no tiene grifos de incendio."))
    return errors


VESSEL_FIELDS = (
    "registration", "name", "owner_id", "flag", "cabotage_permit", "home_port", "propulsion",
    "service", "hull_material", "length_m", "beam_m", "girth_m", "crew", "max_passengers",
    "cabins", "fire_hydrants", "holds", "boilers", "steam_launch", "boats", "cooking", "hot_climate",
    "flammable_cargo_kg", "itinerary_category", "practicaje",
)


def vessel_values(vessel: Vessel) -> dict:
    """A vessel's stored particulars as a plain dict."""
    return {field: getattr(vessel, field) for field in VESSEL_FIELDS}


def particulars_of(vessel: Vessel) -> dict:
    """The particulars the law's rules read, with tonnage as a plain number."""
    values = vessel_values(vessel)
    for field in ("length_m", "beam_m", "girth_m"):
        values[field] = float(values[field])
    values["gross_tonnage"] = float(vessel.gross_tonnage)
    values.pop("owner_id"), values.pop("cabotage_permit"), values.pop("name")
    return values


def _check(values: dict) -> None:
    errors = particular_errors(values)
    if errors:
        raise Invalid(errors=errors)
    if db.session.get(Owner, values["owner_id"]) is None:
        raise Invalid(errors={"owner_id": [Msg("No existe un armador con ese número.")]})


def _ensure_unique_registration(key: str, vessel_id: int | None) -> None:
    clash = db.session.scalar(db.select(Vessel.id).where(Vessel.registration_key == key))
    if clash is not None and clash != vessel_id:
        raise Conflict(
            Msg("Ya existe un buque con esa matrícula."),
            errors={"registration": [Msg("Ya existe un buque con esa matrícula.")]},
        )


def _apply(vessel: Vessel, values: dict) -> Vessel:
    values = dict(values)
    values["registration"] = clean_registration(values["registration"])
    _check(values)
    key = registration_key(values["registration"])
    _ensure_unique_registration(key, vessel.id)
    for field, value in values.items():
        setattr(vessel, field, value)
    vessel.registration_key = key
    vessel.gross_tonnage = registered_tonnage(vessel.length_m, vessel.beam_m, vessel.girth_m, vessel.hull_material)
    for column, value in decided_needs(particulars_of(vessel)).items():  # stored with the particulars, in step
        setattr(vessel, column, value)
    return vessel


def create_vessel(values: dict) -> Vessel:
    """Register a new vessel after checking its particulars hang together (flushes, never commits)."""
    vessel = _apply(Vessel(), values)
    db.session.add(vessel)
    db.session.flush()
    return vessel


def update_vessel(vessel: Vessel, changes: dict) -> Vessel:
    """Change some particulars; the merged whole is re-checked before anything is written."""
    merged = {**vessel_values(vessel), **changes}
    with db.session.no_autoflush:
        _apply(vessel, merged)
    db.session.flush()
    return vessel


def _ensure_unique_tax_id(tax_id: str, owner_id: int | None) -> None:
    clash = db.session.scalar(db.select(Owner.id).where(Owner.tax_id == tax_id))
    if clash is not None and clash != owner_id:
        raise Conflict(
            Msg("Ya existe un armador con ese RUC o CI."),
            errors={"tax_id": [Msg("Ya existe un armador con ese RUC o CI.")]},
        )


def create_owner(values: dict) -> Owner:
    """Register an owner (armador); the RUC or CI is unique."""
    _ensure_unique_tax_id(values["tax_id"], None)
    owner = Owner(**values)
    db.session.add(owner)
    db.session.flush()
    return owner


def update_owner(owner: Owner, changes: dict) -> Owner:
    """Change an owner's details."""
    if "tax_id" in changes:
        _ensure_unique_tax_id(changes["tax_id"], owner.id)
    for field, value in changes.items():
        setattr(owner, field, value)
    db.session.flush()
    return owner


LABEL_SEPARATOR = " · "  # "PY-1234 · Don Pedro": how a form shows a vessel, and what it may send back


def vessel_label(vessel: Vessel) -> str:
    """The registration and name, as forms show a vessel and accept it back."""
    return f"{vessel.registration}{LABEL_SEPARATOR}{vessel.name}"


def match_vessels(query, text: str, limit: int = 2) -> list[Vessel]:
    """The vessels of `query` that typed text names: its exact registration (or a form's label) first, else
    those whose registration or name contains it, at most `limit` (two tell "one" from "several")."""
    registration = registration_key(text.split(LABEL_SEPARATOR)[0])
    exact = db.session.scalars(query.where(Vessel.registration_key == registration).limit(1)).all()
    if exact or not text.strip():
        return exact
    return db.session.scalars(filter_vessels(query, {"q": text}).order_by(Vessel.registration_key).limit(limit)).all()


def filter_vessels(query, args: dict):
    """Apply the list filters shared by the API and the pages."""
    if args.get("owner_id"):
        query = query.where(Vessel.owner_id == args["owner_id"])
    if args.get("propulsion"):
        query = query.where(Vessel.propulsion == args["propulsion"])
    if args.get("service"):
        query = query.where(Vessel.service == args["service"])
    if args.get("q") and args["q"].strip():
        query = query.where(vessel_matches(args["q"].strip()))
    return query


def vessel_matches(text: str, *more):
    """SQL: the vessel's registration (as its key: spaces and case aside) or name (ignoring case) contains
    `text`, or any of the `more` columns does (the registry search, shared by the lists that name a vessel)."""
    like = f"%{text}%"
    return or_(Vessel.registration_key.contains(registration_key(text)), Vessel.name.ilike(like),
               *(column.ilike(like) for column in more))


def needs_cached(vessel: Vessel, cache: dict) -> tuple[str, ...]:
    """The vessel's stored needs (needs.py); when stale, needs_of, computed once per set of particulars."""
    stored = stored_needs(vessel)
    if stored is not None:
        return stored
    particulars = particulars_of(vessel)
    key = tuple(sorted((name, str(value)) for name, value in particulars.items()
                       if name not in ("registration", "name", "owner_id", "home_port")))
    if key not in cache:
        cache[key] = needs_of(particulars)
    return cache[key]
