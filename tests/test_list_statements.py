"""Every list, API and page alike, sends as many SQL statements for 12 rows as for 2: no query per row.

One table for the whole app (as test_contract.py holds the whole outside): a list endpoint the OpenAPI
document declares (a *Page schema or an array) and this table misses fails the first test, so a new
list cannot skip the check.
"""
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from inspection.core.clock import office_today
from inspection.core.extensions import db
from inspection.core.models import (ApiToken, Application, Arqueo, ConflictOfInterest, Deficiency, Notice, PatrolAnswer,
                                    PatrolCheck, User)
from tests.conftest import (
    PASSWORD,
    new_owner,
    new_records,
    new_user,
    new_vessel,
    restore_rows,
    saved_rows,
    shared_state,
)

SMALL, LARGE = 2, 12
# (path, who asks, how): "bearer" for the API, "session" for a page; {vessel} and {inspector} name the
# world's first vessel and its agenda inspector.
LISTS = [
    ("/api/v1/owners?per_page=50", "admin", "bearer"),
    ("/api/v1/vessels?per_page=50", "admin", "bearer"),
    ("/api/v1/vessels?per_page=50", "owner", "bearer"),
    ("/api/v1/users?per_page=50", "admin", "bearer"),
    ("/api/v1/users/{inspector}/conflicts", "admin", "bearer"),
    ("/api/v1/inspections?per_page=50", "admin", "bearer"),
    ("/api/v1/inspections?per_page=50", "owner", "bearer"),
    ("/api/v1/agenda?days=30", "inspector", "bearer"),
    ("/api/v1/deficiencies?per_page=50", "admin", "bearer"),
    ("/api/v1/certificates?per_page=50", "admin", "bearer"),
    ("/api/v1/fleet?per_page=50", "admin", "bearer"),
    ("/api/v1/fleet?per_page=50", "owner", "bearer"),
    ("/api/v1/applications?per_page=50", "admin", "bearer"),
    ("/api/v1/vessels/{vessel}/arqueos", "admin", "bearer"),
    ("/api/v1/auth/devices", "admin", "bearer"),
    ("/api/v1/patrol-checks?per_page=50", "admin", "bearer"),
    ("/api/v1/patrol-checks?per_page=50", "owner", "bearer"),
    ("/buques", "admin", "session"),
    ("/armadores", "admin", "session"),
    ("/usuarios", "admin", "session"),
    ("/inspecciones", "admin", "session"),
    ("/inspecciones.csv", "admin", "session"),
    ("/certificados", "admin", "session"),
    ("/certificados.csv", "admin", "session"),
    ("/deficiencias", "admin", "session"),
    ("/deficiencias.csv", "admin", "session"),
    ("/flota", "owner", "session"),
    ("/solicitudes", "admin", "session"),
    ("/avisos", "owner", "session"),
    ("/planificacion", "admin", "session"),
    ("/tablero", "admin", "session"),
    ("/patrullas", "admin", "session"),
]


def list_paths(spec: dict) -> set[str]:
    """The GET paths whose answer is a page of items or an array: the API's lists."""
    found = set()
    for path, operations in spec["paths"].items():
        schema = operations.get("get", {}).get("responses", {}).get("200", {}).get("content", {}) \
            .get("application/json", {}).get("schema", {})
        if schema.get("type") == "array" or schema.get("$ref", "").endswith("Page"):
            found.add(path)
    return found


def test_every_list_of_the_api_is_in_the_table(client):
    covered = {path.split("?")[0].replace("{inspector}", "{user_id}") for path, _, _ in LISTS}
    assert list_paths(client.get("/api/v1/openapi.json").json) - covered == set()


@pytest.fixture(scope="module")
def worlds_built(_app):
    """The world at 2 and at 12 rows of every listed kind, built once, since the cases only read the lists; every
    row names its own vessel, owner and inspector (so a lookup per row would show), the armador owns every other
    vessel, the agenda inspector has them all. Each role holds a bearer token and a signed-in page session made
    at 2 rows. Returns (the world with the rows at 2 as "small", the rows at 12)."""
    def grow(records, ids: dict, vessels: list, n: int) -> None:
        today = office_today()
        for _ in range(n):
            vessel = new_vessel(owner_id=ids["armador"] if len(vessels) % 2 else new_owner().id)
            vessels.append(vessel.id)
            inspector = new_user("inspector")
            certificate = records["certificate"](vessel, inspector, "seguridad", today - timedelta(days=30),
                                                 today + timedelta(days=150))
            records["inspection"](vessel, db.session.get(User, ids["inspector"]), today + timedelta(days=1),
                                  status="scheduled")
            db.session.add_all([
                Deficiency(inspection_id=certificate.inspection_id, vessel_id=vessel.id, item_id="seg.x",
                           source="Ley 928/1927", article="63", description="Falta", action="within_14_days",
                           due_on=today + timedelta(days=14)),
                Application(vessel_id=vessel.id, kind="navegabilidad", port="Asunción", preferred_on=today,
                            applied_on=today, applied_by_id=ids["owner"]),
                Arqueo(vessel_id=vessels[0], measured_on=today, measured_by_id=inspector.id,
                       hull_material="iron", length_m=Decimal(30), beam_m=Decimal(7), girth_m=Decimal(11),
                       gross_tonnage=Decimal(100)),
                Notice(user_id=ids["owner"], kind="apply_by_30", subject_id=certificate.id,
                       due_on=certificate.valid_until, vessel_id=vessel.id, created_on=today,
                       params={"vessel": vessel.name, "registration": vessel.registration, "kind": "seguridad",
                               "number": certificate.number, "days": 30, "articles": "seguridad",
                               "valid_until_on": certificate.valid_until.isoformat(),
                               "apply_by_on": (certificate.valid_until - timedelta(days=30)).isoformat()}),
                ConflictOfInterest(user_id=ids["inspector"], owner_id=new_owner().id, reason="Pariente"),
                ApiToken(user_id=ids["admin"], token_hash=uuid.uuid4().hex * 2, kind="device", device_name="Tableta",
                         expires_at=datetime(2100, 1, 1, tzinfo=UTC)),
                PatrolCheck(client_id=str(uuid.uuid4()), officer_id=new_user("police").id, place="Km 1630",
                            checked_at=datetime.now(UTC) - timedelta(hours=1), vessel_id=vessel.id,
                            checklist="conducta", checklist_version="2026.1", items=[],
                            particulars={"registration": vessel.registration}, outcome="infraccion",
                            closed_at=datetime.now(UTC), infringements=[{
                                "item_id": "con.lights.night", "title": "Luces", "source": "Ley 928/1927",
                                "article": "68", "fine": None, "detainable": False}],
                            answers=[PatrolAnswer(item_id="con.lights.night", client_id=str(uuid.uuid4()),
                                                  result="fail", recorded_at=datetime.now(UTC))]),
            ])
            db.session.commit()

    def build():
        records, armador_owner = new_records(), new_owner()
        people = {"admin": records["admin"], "owner": new_user("owner", owner_id=armador_owner.id),
                  "inspector": new_user("inspector")}
        ids = {role: user.id for role, user in people.items()} | {"armador": armador_owner.id}
        vessels = []  # ids, the first with every arqueo
        grow(records, ids, vessels, SMALL)
        tokens, browsers = {}, {}
        for role, user in people.items():
            signing_in = {"username": user.username, "password": PASSWORD}
            response = _app.test_client().post("/api/v1/auth/token", json=signing_in)
            assert response.status_code == 201, response.json
            tokens[role] = {"Authorization": f"Bearer {response.json['token']}"}
            browsers[role] = _app.test_client()
            assert browsers[role].post("/login", data=signing_in).status_code == 302
            browsers[role].get("/cuenta")
        db.session.commit()
        world = {"small": saved_rows(), "tokens": tokens, "browsers": browsers, "ids": ids, "vessels": vessels}
        grow(records, ids, vessels, LARGE - SMALL)
        return world

    return shared_state(_app, build)


@pytest.mark.parametrize("path, who, how", LISTS, ids=[f"{who} {path}" for path, who, _ in LISTS])
def test_a_list_takes_the_same_statements_for_2_and_12_rows(app, db, client, worlds_built, count_queries, path, who,
                                                            how):
    world, large = worlds_built
    restore_rows(world["small"])
    path = path.format(vessel=world["vessels"][0], inspector=world["ids"]["inspector"])
    headers, browser = (world["tokens"][who], client) if how == "bearer" else ({}, world["browsers"][who])
    counts, sizes, responses = {}, {}, []
    for size in (SMALL, LARGE):
        if size == LARGE:
            restore_rows(large, since=world["small"])  # the rows grown after the small world, its stamps redrawn
        db.session.rollback()  # each size is read from a new transaction, nothing loaded kept, as a request is
        if how == "bearer":  # the token as a server knows it after its first use (the world's users redraw the stamp)
            browser.get("/api/v1/auth/me", headers=headers)
        counts[size] = count_queries(lambda: responses.append(browser.get(path, headers=headers)))
        assert responses[-1].status_code == 200, responses[-1].get_data(as_text=True)[:500]
        sizes[size] = len(responses[-1].get_data())
    assert sizes[LARGE] > sizes[SMALL]  # the rows are there, so the count speaks of them
    assert counts[LARGE] == counts[SMALL], counts

