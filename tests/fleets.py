"""Two fleets built with the operations (not HTTP), so every path of the OpenAPI document names a real record.

`seed_fleets` makes one user per role and, for the owner user's fleet ("own") and a stranger's
("other"), a vessel with a submitted seguridad inspection that passed with an observation (its deficiency
and its certificate), a scheduled seguridad one and a started navegabilidad one (one open inspection per
kind), a detention, a late application with its art. 225 fine, and a closed patrol check by the police user.
"""
import uuid
from datetime import date, datetime, timezone
from decimal import Decimal

from inspection.accounts.users import create_user
from inspection.certificates.keys import signer
from inspection.core.clock import office_zone
from inspection.core.extensions import db
from inspection.core.models import Deficiency, Photo
from inspection.core.office import current_office
from inspection.cycle.applications import apply_for_inspection
from inspection.inspections.closing import close_inspection
from inspection.inspections.operations import (
    add_photo,
    detain_vessel,
    record_answer,
    schedule_inspection,
    start_inspection,
)
from inspection.media.configured import media_storage, photo_limits
from inspection.media.photos import process_photo
from inspection.patrol.checks import close_check, start_check
from inspection.registry.vessels import create_owner, create_vessel
from tests.media_samples import encode, noisy_image, signature_images

PASSWORD = "correct-horse-battery"
NOW = datetime(2026, 11, 30, 15, 0, tzinfo=timezone.utc)
TODAY = date(2026, 11, 30)
LATE_ON = date(2027, 5, 10)  # after the certificate's art. 222 date (30 Apr 2027): a late application
FAILED_ITEM = "seg.hoses.weekly"  # not detainable: the inspection passes with an observation

PARTICULARS = {
    "flag": "national", "cabotage_permit": None, "home_port": "Asunción", "propulsion": "motor",
    "service": "cargo", "hull_material": "iron", "length_m": Decimal("30"), "beam_m": Decimal("7"),
    "girth_m": Decimal("11"), "crew": 6, "max_passengers": 0, "cabins": 0, "fire_hydrants": 3, "holds": 1,
    "boilers": 0, "steam_launch": False, "boats": 1, "cooking": "galley", "hot_climate": False,
    "flammable_cargo_kg": 0, "practicaje": "none",
}


def office_crew(password: str) -> tuple:
    """Inside an app context, not committed: the owner Naviera del Sur S.A. with its user "armador", the admin
    "jefa" and the inspector "inspectora", all signing in with `password`; returns (owner, admin, inspector)."""
    owner = create_owner({"name": "Naviera del Sur S.A.", "tax_id": "80012345-6", "email": None, "phone": None,
                          "address": None})
    db.session.flush()
    admin = create_user("jefa", password, "admin")
    inspector = create_user("inspectora", password, "inspector")
    create_user("armador", password, "owner", owner_id=owner.id)
    return owner, admin, inspector


def submit_inspection(admin, inspector, vessel, kind="seguridad", port="Asunción", note=""):
    """An inspection answered in full, closed: (inspection, deficiency, certificate); seguridad fails one item (`note`
    its inspector's note)."""
    inspection = schedule_inspection(admin, vessel, kind, inspector, TODAY, port, TODAY)
    start_inspection(inspector, inspection, NOW)
    for n, item in enumerate(inspection.items):
        failed = item["id"] == FAILED_ITEM
        observed = (0 if failed else item["required"]) if item["required"] is not None else None
        record_answer(inspector, inspection, item["id"], {
            "client_id": str(uuid.uuid4()), "result": "fail" if failed else "pass", "observed": observed,
            "note": note if failed else "", "recorded_at": NOW, "photos": [], "action": None}, NOW)
        if item["evidence_required"]:
            jpeg = encode(noisy_image((32, 24), seed=vessel.id * 100 + n), "JPEG", quality=70)
            add_photo(inspector, inspection, item["id"], str(uuid.uuid4()), process_photo(jpeg, photo_limits()),
                      media_storage(), NOW, None, None, NOW)
    result = close_inspection(inspector, inspection, {"client_id": str(uuid.uuid4()), "signature": "Inspector",
                                                      "master_name": "Cap. Giménez",
                                                      "signatures": signature_images()},
                              current_office(), signer(current_office(), NOW), TODAY, NOW, media_storage(), office_zone())
    deficiency = db.session.scalar(db.select(Deficiency).filter_by(inspection_id=inspection.id))
    return inspection, deficiency, result["certificate"]


def seed_fleets() -> dict:
    """Users by role and, per fleet ("own" is the owner user's, "other" a stranger's), the ids of its records."""
    owners = {name: create_owner({"name": f"Armador {name}", "tax_id": f"8000{n}-1", "email": None, "phone": None,
                                  "address": None}) for n, name in enumerate(("own", "other"))}
    users = {role: create_user(role, PASSWORD, role, owner_id=owners["own"].id if role == "owner" else None)
             for role in ("admin", "inspector", "owner", "police", "reviewer")}
    admin, inspector = users["admin"], users["inspector"]
    fleets = {}
    for n, (name, owner) in enumerate(owners.items()):
        vessel = create_vessel({**PARTICULARS, "registration": f"PY-900{n}", "name": f"Buque {name}",
                                "owner_id": owner.id})
        submitted, deficiency, certificate = submit_inspection(admin, inspector, vessel)
        scheduled = schedule_inspection(admin, vessel, "seguridad", inspector, TODAY, "Asunción", TODAY)
        started = schedule_inspection(admin, vessel, "navegabilidad", inspector, TODAY, "Asunción", TODAY)
        start_inspection(inspector, started, NOW)
        detention = detain_vessel(admin, vessel, "Prueba de detención", NOW)
        application = apply_for_inspection(admin, vessel, "seguridad", "Asunción", LATE_ON, LATE_ON)  # art. 225 fine
        check, _ = start_check(users["police"], vessel, {"client_id": str(uuid.uuid4()), "checked_at": NOW,
                                                         "place": "Km 1630", "checklist": "conducta"}, NOW)
        close_check(users["police"], check, "sin_novedad", "", NOW, TODAY, [])
        db.session.flush()
        fleets[name] = {
            "owner_id": owner.id, "vessel_id": vessel.id, "scheduled_id": scheduled.id, "inspection_id": started.id,
            "item_id": started.items[0]["id"], "submitted_id": submitted.id, "deficiency_id": deficiency.id,
            "detention_id": detention.id, "number": certificate.number, "token": certificate.token,
            "application_id": application.id, "fine_id": application.fines[0].id, "check_id": check.id,
            "photo_id": db.session.scalar(db.select(Photo.id).filter_by(inspection_id=submitted.id).limit(1)),
        }
    db.session.commit()
    return {"users": users, "fleets": fleets}
