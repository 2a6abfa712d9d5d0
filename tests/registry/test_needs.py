"""Stored certificate needs: decided with the particulars, always what the checklists' exemptions say (arts. 210, 211)."""
from datetime import date, timedelta, timezone
from decimal import Decimal

import pytest

from inspection.core.extensions import db
from inspection.core.models import Vessel
from inspection.dashboard.board import fleet_validity
from inspection.registry.needs import needs_basis, refresh_needs, stored_needs
from inspection.registry.vessel_checklists import vessel_checklist
from inspection.registry.vessels import needs_cached, particulars_of, update_vessel

TODAY = date(2026, 11, 20)
ZONE = timezone(timedelta(hours=-3))
# (particulars, needs): around each exemption's edge (art. 210: rowing, or sail under 5 t; art. 211: no machinery)
BASE = {"propulsion": "motor", "service": "cargo", "length_m": Decimal("30"), "beam_m": Decimal("7"),
        "girth_m": Decimal("11"), "fire_hydrants": 2, "boats": 1, "cooking": "galley", "boilers": 0,
        "max_passengers": 0}  # conftest's VESSEL_DEFAULTS, which TABLE's rows change
TABLE = [
    ({}, ("navegabilidad", "seguridad")),                                        # motor cargo
    ({"propulsion": "rowing", "fire_hydrants": 0, "boats": 0, "cooking": "none"}, ()),
    ({"propulsion": "sail", "length_m": Decimal("6"), "beam_m": Decimal("2"), "girth_m": Decimal("3")}, ()),
    ({"propulsion": "sail", "length_m": Decimal("40"), "beam_m": Decimal("8"), "girth_m": Decimal("12")},
     ("navegabilidad",)),                                                         # a sailing ship over 5 t
    ({"propulsion": "sail", "boilers": 1}, ("navegabilidad", "seguridad")),       # boilers are machinery (art. 211)
    ({"propulsion": "towed"}, ("navegabilidad",)),
    ({"propulsion": "steam", "boilers": 2}, ("navegabilidad", "seguridad")),
    ({"service": "passenger", "max_passengers": 40}, ("navegabilidad", "seguridad")),
]


def checklists_say(vessel) -> tuple[str, ...]:
    """What the built checklists say, exemption by exemption (the slow, authoritative way)."""
    return tuple(kind for kind in ("navegabilidad", "seguridad") if not vessel_checklist(vessel, kind)["exempt"])


@pytest.mark.parametrize("particulars, needs", TABLE)
def test_stored_needs_agree_with_the_checklists(make_vessel, particulars, needs):
    vessel = make_vessel(**particulars)
    assert stored_needs(vessel) == needs == checklists_say(vessel)
    assert vessel.needs_basis == needs_basis()


@pytest.mark.parametrize("before, after", [(0, 1), (1, 0), (3, 2), (2, 3)])  # rows of TABLE
def test_updating_the_particulars_decides_the_needs_again(make_vessel, before, after):
    vessel = make_vessel(**TABLE[before][0])
    update_vessel(vessel, {**BASE, **TABLE[after][0]})  # the one update operation
    db.session.commit()
    db.session.expire_all()
    vessel = db.session.get(Vessel, vessel.id)
    assert stored_needs(vessel) == TABLE[after][1] == checklists_say(vessel)


def test_other_rules_make_the_stored_needs_stale_and_readers_decide_again(app, make_vessel):
    vessels = [make_vessel(**particulars) for particulars, _ in TABLE]
    app.config["CHECKLIST_SETTINGS"] = {"opt_art138_limit_400": True}  # any setting: another basis
    try:
        assert all(stored_needs(v) is None for v in vessels)
        assert [needs_cached(v, {}) for v in vessels] == [needs for _, needs in TABLE]
        assert refresh_needs(particulars_of) == len(TABLE) and refresh_needs(particulars_of) == 0
        assert [stored_needs(v) for v in vessels] == [needs for _, needs in TABLE]
    finally:
        app.config["CHECKLIST_SETTINGS"] = {}


def test_the_dashboard_counts_stale_and_fresh_vessels_alike(make_vessel):
    for particulars, _ in TABLE * 2:
        make_vessel(**particulars)
    fresh = [(p.kind, p.needing) for p in fleet_validity(TODAY, ZONE)]
    needing = {kind: 2 * sum(kind in needs for _, needs in TABLE) for kind in ("navegabilidad", "seguridad")}
    assert set(fresh) == set(needing.items())
    # half the fleet decided under other rules (or never): grouped by particulars and decided again
    db.session.execute(db.update(Vessel).where(Vessel.id % 2 == 0).values(needs_basis=None, needs_seguridad=None))
    db.session.execute(db.update(Vessel).where(Vessel.id % 4 == 1).values(needs_basis="stale", needs_seguridad=False))
    assert [(p.kind, p.needing) for p in fleet_validity(TODAY, ZONE)] == fresh


def test_whether_any_need_is_stale_is_kept_until_a_vessel_is_written(app, make_vessel, sql_statements):
    """The planning board asks on every view; the answer is kept under the registry's stamp (readcache)."""
    from inspection.registry.needs import any_stale

    vessel = make_vessel()
    db.session.commit()
    with app.test_request_context("/planificacion"):
        assert any_stale() is False
    with app.test_request_context("/planificacion"):
        asked = sql_statements(any_stale)
    assert not [sql for sql in asked if "count(" in sql.lower()], asked
    vessel.needs_basis = "older-rules"  # as stored under other rules
    db.session.commit()
    with app.test_request_context("/planificacion"):
        assert any_stale() is True
