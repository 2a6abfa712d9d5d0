"""Demo data for a fresh install: a few owners, a varied fleet and one user per role."""
from decimal import Decimal

from flask import current_app
from flask_migrate import upgrade

from inspection.accounts.users import create_user
from inspection.certificates.keys import create_first_signing_key
from inspection.core.clock import office_date, office_now
from inspection.core.extensions import db
from inspection.core.models import Owner, User
from inspection.registry.vessels import create_owner, create_vessel

# The demo's published password (README.md): only `python app.py` seeds users with it, into an empty database.
DEMO_PASSWORD = "baliza-demo"  # nosec B105

OWNERS = [
    {"name": "Naviera del Paraguay S.A.", "tax_id": "80012345-6", "email": "flota@navierapy.example",
     "phone": "+595 21 490 000", "address": "Av. Costanera 1200, Asunción"},
    {"name": "Transportes Fluviales Concepción S.R.L.", "tax_id": "80098765-1",
     "email": "operaciones@tfc.example", "phone": "+595 331 242 100", "address": "Puerto de Concepción"},
    {"name": "María Benítez", "tax_id": "3456789", "email": "mbenitez@example.com",
     "phone": "+595 981 555 123", "address": "Pilar, Ñeembucú"},
]

# (owner index, particulars): steam, motor, sail, rowing and towed; passenger, cargo, tug and more.
# The barge carries kerosene (steel towline, art. 140) and the tanker fuel oil (arts. 133-137).
# Pilots (Decreto 6383 art. 1): the passenger steamer goes beyond Angostura (two), the mixed vessel keeps a
# fixed itinerary, the Argentine cargo vessel takes one; the sailing vessel's route is not yet recorded.
VESSELS = [
    (0, dict(registration="PY-1001", name="Presidente Ayala", propulsion="steam", service="passenger",
             hull_material="iron", length_m="45", beam_m="8", girth_m="14", crew=40, max_passengers=200,
             cabins=60, fire_hydrants=7, holds=2, boilers=2, boats=4, cooking="galley", hot_climate=True,
             practicaje="beyond_angostura")),
    (0, dict(registration="PY-1002", name="Ciudad de Pilar", propulsion="motor", service="mixed",
             hull_material="iron", length_m="38", beam_m="7.5", girth_m="12", crew=14, max_passengers=80,
             cabins=20, fire_hydrants=4, holds=1, boats=2, cooking="galley", hot_climate=True,
             practicaje="fixed_itinerary")),
    (0, dict(registration="PY-1003", name="Guaraní", propulsion="motor", service="tug",
             hull_material="iron", length_m="22", beam_m="6", girth_m="9", crew=6, fire_hydrants=2,
             boats=1, cooking="galley")),
    (0, dict(registration="PY-1004", name="Itá Pirú", propulsion="steam", service="cargo",
             hull_material="iron", length_m="18", beam_m="4", girth_m="7", crew=4, fire_hydrants=1,
             holds=1, boilers=1, steam_launch=True, boats=1, cooking="galley", hot_climate=True)),
    (1, dict(registration="PY-2001", name="Concepción", propulsion="motor", service="cargo",
             hull_material="iron", length_m="30", beam_m="7", girth_m="11", crew=8, fire_hydrants=3,
             holds=2, boats=1, cooking="galley")),
    (1, dict(registration="PY-2002", name="Estrella del Norte", propulsion="sail", service="cargo",
             hull_material="wood", length_m="25", beam_m="6", girth_m="11", crew=5, holds=1, boats=1,
             cooking="brazier", practicaje="unset")),
    (1, dict(registration="PY-2003", name="Chata San Roque", propulsion="towed", service="cargo",
             hull_material="iron", length_m="40", beam_m="10", girth_m="14", crew=0, holds=3,
             flammable_cargo_kg=60_000)),
    (1, dict(registration="PY-2004", name="Petrolera Yvytu", propulsion="motor", service="tanker",
             hull_material="iron", length_m="42", beam_m="9", girth_m="13", crew=10, fire_hydrants=6,
             holds=4, boats=2, cooking="galley", flammable_cargo_kg=400_000)),
    (2, dict(registration="PY-3001", name="Lancha Ñandutí", propulsion="motor", service="passenger",
             hull_material="wood", length_m="12", beam_m="3", girth_m="5", crew=2, max_passengers=20,
             fire_hydrants=1, cooking="none", hot_climate=True)),
    (2, dict(registration="PY-3002", name="Canoa Yacaré", propulsion="rowing", service="work",
             hull_material="wood", length_m="5", beam_m="1.2", girth_m="2", crew=2)),
    (2, dict(registration="AR-5501", name="Río de la Plata", flag="foreign", cabotage_permit="CAB-2026-0042",
             propulsion="motor", service="cargo", hull_material="iron", length_m="50", beam_m="9",
             girth_m="15", crew=12, fire_hydrants=6, holds=3, boats=2, cooking="galley", home_port="Corrientes",
             practicaje="to_angostura")),
]

USERS = [
    ("admin", "admin", None, "Administración PGP"),
    ("inspector", "inspector", None, "Inspector de Máquinas Demo"),
    ("owner", "owner", 0, "Representante de Naviera del Paraguay"),
    ("police", "police", None, "Policía fluvial Demo"),
]


def database_is_empty() -> bool:
    """True when no owner and no user exists: only then may the demo be seeded."""
    return db.session.scalar(db.select(Owner.id).limit(1)) is None and \
        db.session.scalar(db.select(User.id).limit(1)) is None


def seed_demo() -> bool:
    """Add the demo records to an empty database; returns False (and touches nothing) otherwise."""
    if not database_is_empty():
        return False
    now = office_now()  # the command's one clock read: the demo's inspections happen "today" in the office
    today = office_date(now)
    owners = [create_owner(values) for values in OWNERS]
    for index, values in VESSELS:
        particulars = {"flag": "national", "cabotage_permit": None, "home_port": "Asunción",
                       "max_passengers": 0, "cabins": 0, "fire_hydrants": 0, "holds": 0, "boilers": 0,
                       "steam_launch": False, "boats": 0, "cooking": "none", "hot_climate": False,
                       "flammable_cargo_kg": 0, "practicaje": "none", **values}
        for field in ("length_m", "beam_m", "girth_m"):
            particulars[field] = Decimal(particulars[field])
        create_vessel({**particulars, "owner_id": owners[index].id})
    for username, role, owner_index, full_name in USERS:
        owner_id = owners[owner_index].id if owner_index is not None else None
        create_user(username, DEMO_PASSWORD, role, owner_id=owner_id, full_name=full_name)
    create_first_signing_key(current_app.config["OFFICE_CODE"], now)  # the demo's own key, never replacing one
    seed_activity(now, today)
    return True


def _demo_photo(seed: int) -> bytes:
    """A small, distinct JPEG standing in for an inspector's photo."""
    import io

    from PIL import Image, ImageDraw

    image = Image.new("RGB", (640, 480), (40 + seed * 7 % 180, 90, 140))
    ImageDraw.Draw(image).text((20, 20), f"Baliza demo {seed}", fill=(255, 255, 255))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=80)
    return out.getvalue()


def demo_signature(seed: int = 0) -> bytes:
    """A drawn signature for the demo and the tests: a distinct ink scrawl on a transparent 600 × 200 canvas, as PNG."""
    import io
    import math

    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (600, 200), (0, 0, 0, 0))
    stroke = [(30 + x, 100 + 55 * math.sin(x / (18 + seed % 7)) * math.cos(x / 97)) for x in range(0, 540, 4)]
    ImageDraw.Draw(image).line(stroke, fill=(20, 30, 110, 255), width=3, joint="curve")
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _answer_items(inspector, inspection, items, fail: tuple, now) -> None:
    """Answer `items` through the real operation (pass unless in `fail`), photographing evidence items."""
    from uuid import uuid4

    from inspection.inspections.operations import add_photo, record_answer
    from inspection.inspections.outcomes import item_bound
    from inspection.media.configured import media_storage, photo_limits
    from inspection.media.photos import process_photo

    for item in items:
        n = inspection.items.index(item)
        failed = item["id"] in fail
        bound, observed = item_bound(item) or (None, None)
        if failed and bound is not None:
            observed = observed + 1 if bound.name == "maximum" else 0  # a count outside the bound
        record_answer(inspector, inspection, item["id"], {"client_id": str(uuid4()), "result": "fail" if failed else "pass",
                                                          "observed": observed, "note": "Demostración" if failed else ""}, now)
        if item["evidence_required"]:
            processed = process_photo(_demo_photo(inspection.id * 100 + n), photo_limits())
            add_photo(inspector, inspection, item["id"], str(uuid4()), processed, media_storage(), now, -25.28, -57.63, now)


def _inspect(admin, inspector, vessel, kind, now, today, fail: tuple = ()):
    """Run a whole inspection through the real operations, photos included."""
    from uuid import uuid4

    from inspection.certificates.keys import signer
    from inspection.core.clock import office_zone
    from inspection.core.office import current_office
    from inspection.inspections.closing import close_inspection
    from inspection.inspections.operations import schedule_inspection, start_inspection
    from inspection.media.configured import media_storage

    inspection = schedule_inspection(admin, vessel, kind, inspector, today, "Asunción", today)
    start_inspection(inspector, inspection, now)
    _answer_items(inspector, inspection, inspection.items, fail, now)
    close_inspection(inspector, inspection, {"client_id": str(uuid4()), "signature": inspector.full_name,
                                             "master_name": "Cap. Ramón Giménez",
                                             "signatures": {"inspector": demo_signature(inspector.id),
                                                            "master": demo_signature(vessel.id + 1)}},
                     current_office(), signer(current_office(), now), today, now, media_storage(), office_zone())
    return inspection


def _interrupt(admin, inspector, vessel, kind, now, today, answered: int, reason: str):
    """Start an inspection, answer its first items and interrupt it: no outcome, no certificate."""
    from inspection.inspections.operations import interrupt_inspection, schedule_inspection, start_inspection

    inspection = schedule_inspection(admin, vessel, kind, inspector, today, "Asunción", today)
    start_inspection(inspector, inspection, now)
    _answer_items(inspector, inspection, inspection.items[:answered], (), now)
    return interrupt_inspection(inspector, inspection, reason, now)


def seed_activity(now, today) -> None:
    """Certificates today (one with an observation) and from months ago, so the fleets show every state
    (up to date, inside the application window, expired, never issued), an interrupted inspection, and the
    inspector's agenda (the interrupted one again today, another in five days) to try on the tablet."""
    from datetime import timedelta

    from inspection.core.models import Vessel
    from inspection.inspections.operations import schedule_inspection

    admin = db.session.scalar(db.select(User).filter_by(username="admin"))
    inspector = db.session.scalar(db.select(User).filter_by(username="inspector"))
    vessels = {v.registration: v for v in db.session.scalars(db.select(Vessel))}
    _inspect(admin, inspector, vessels["PY-1002"], "seguridad", now, today)
    _inspect(admin, inspector, vessels["PY-1002"], "navegabilidad", now, today)
    _inspect(admin, inspector, vessels["PY-1003"], "seguridad", now, today, fail=("seg.hoses.weekly",))
    # Months ago: certificates now inside their application window (art. 222) or expired (art. 225).
    for registration, kind, days_ago in (("PY-1003", "navegabilidad", 340), ("PY-1004", "seguridad", 200),
                                         ("PY-1004", "navegabilidad", 200), ("PY-2001", "navegabilidad", 60),
                                         ("PY-2004", "seguridad", 170), ("PY-2004", "navegabilidad", 100)):
        _inspect(admin, inspector, vessels[registration], kind, now - timedelta(days=days_ago),
                 today - timedelta(days=days_ago))
    _interrupt(admin, inspector, vessels["PY-2001"], "seguridad", now, today, 5,
               "Tormenta en el puerto: el buque volvió a amarrar antes de terminar la inspección.")
    schedule_inspection(admin, vessels["PY-2001"], "seguridad", inspector, today, "Asunción", today)
    schedule_inspection(admin, vessels["PY-1001"], "seguridad", inspector, today + timedelta(days=5),
                        "Asunción", today)


def prepare_database() -> bool:
    """Create or upgrade the schema with the migrations, then seed the demo if the database is empty."""
    upgrade()
    seeded = seed_demo()
    db.session.commit()
    return seeded
