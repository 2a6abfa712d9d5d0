"""The deficiency list (/deficiencias and its CSV): search, filters, order, the owner's scope and the page's language.

Two fleets, each a vessel with a seguridad inspection closed with one deficiency (tests/fleets.py); the own fleet gets
three more deficiencies on the same failed item, with other due dates, one reported fixed and one closed through the
operations, so every filter has something to keep and something to leave out.
"""
import csv
import html
import io
import re
from datetime import timedelta

import pytest

from inspection.core.extensions import db
from inspection.accounts.users import create_user
from inspection.core.models import Deficiency, Inspection
from inspection.inspections.operations import close_deficiency, report_fixed
from inspection.registry.vessels import create_owner, create_vessel
from tests.fleets import FAILED_ITEM, NOW, PARTICULARS, PASSWORD, TODAY, submit_inspection


@pytest.fixture
def fleets(app, set_clock):
    """The two fleets, and in the own one deficiencies overdue, reported fixed (due later) and closed (overdue once)."""
    set_clock(NOW)
    owners = [create_owner({"name": f"Armador {name}", "tax_id": f"8000{n}-1"}) for n, name in enumerate(("own", "other"))]
    users = {role: create_user(role, PASSWORD, role, owner_id=owners[0].id if role == "owner" else None)
             for role in ("admin", "inspector", "owner", "police")}
    fleet = {}
    for n, (name, owner) in enumerate(zip(("own", "other"), owners)):
        vessel = create_vessel({**PARTICULARS, "registration": f"PY-900{n}", "name": f"Buque {name}", "owner_id": owner.id})
        inspection, deficiency, _ = submit_inspection(users["admin"], users["inspector"], vessel)
        fleet[name] = {"vessel_id": vessel.id, "submitted_id": inspection.id, "deficiency_id": deficiency.id}
    own, other = fleet["own"], fleet["other"]
    first = db.session.get(Deficiency, own["deficiency_id"])
    columns = {c.key: getattr(first, c.key) for c in Deficiency.__table__.columns if c.key != "id"}

    def copy(due_on):
        deficiency = Deficiency(**{**columns, "due_on": due_on})
        db.session.add(deficiency)
        db.session.flush()
        return deficiency

    overdue, reported, closed = copy(TODAY - timedelta(days=3)), copy(TODAY + timedelta(days=30)), \
        copy(TODAY - timedelta(days=10))
    report_fixed(users["owner"], reported, "Mangueras probadas", NOW)
    close_deficiency(users["inspector"], closed, "Verificado a bordo", NOW)
    db.session.commit()
    item = next(i for i in db.session.get(Inspection, own["submitted_id"]).items if i["id"] == FAILED_ITEM)
    return {"own": own, "other": other, "first": first.id, "overdue": overdue.id, "reported": reported.id,
            "closed": closed.id, "other_deficiency": other["deficiency_id"], "first_due": first.due_on, "item": item}


def signed_in(app, role):
    client = app.test_client()
    assert client.post("/login", data={"username": role, "password": PASSWORD}).status_code == 302
    return client


def listed(client, query="") -> list[int]:
    """The deficiency ids of the page's rows, in order (each row links to its anchor on the report)."""
    response = client.get(f"/deficiencias{query}")
    assert response.status_code == 200
    return [int(n) for n in re.findall(r'/inspecciones/\d+/informe#def-(\d+)"', response.get_data(as_text=True))]


def csv_rows(client, query="") -> list[list[str]]:
    response = client.get(f"/deficiencias.csv{query}")
    assert response.status_code == 200 and response.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(response.get_data(as_text=True).lstrip("\ufeff"))))


def test_staff_see_every_fleet_by_due_date_each_row_linking_to_its_report(app, fleets):
    admin = signed_in(app, "admin")
    response = admin.get("/deficiencias")
    page = response.get_data(as_text=True)
    ids = listed(admin)
    assert sorted(ids) == sorted([fleets["first"], fleets["overdue"], fleets["reported"], fleets["closed"],
                                  fleets["other_deficiency"]])
    assert ids.index(fleets["closed"]) < ids.index(fleets["overdue"]) < ids.index(fleets["reported"])
    assert f'/inspecciones/{fleets["own"]["submitted_id"]}/informe#def-{fleets["overdue"]}' in page
    assert 'aria-sort="ascending"' in page and "PY-9001" in page and "Buque other" in page
    assert page.count(">Vencida<") == 1  # the overdue open one; the closed one is past its date but done
    assert 'href="/deficiencias"' in page  # in the menu


def test_filters_search_and_sortable_headers(app, fleets):
    admin = signed_in(app, "admin")
    assert listed(admin, "?status=reported_fixed") == [fleets["reported"]]
    assert fleets["closed"] not in listed(admin, "?status=open")
    assert listed(admin, "?due=overdue") == [fleets["overdue"]]
    in_time = listed(admin, "?due=in_time")
    assert fleets["reported"] in in_time and fleets["overdue"] not in in_time and fleets["closed"] not in in_time
    assert set(listed(admin, f"?vessel_id={fleets['other']['vessel_id']}")) == {fleets["other_deficiency"]}
    assert set(listed(admin, "?vessel=PY-9001")) == {fleets["other_deficiency"]}
    page = admin.get("/deficiencias?vessel=ZZ-404").get_data(as_text=True)
    assert "Ningún buque coincide con «ZZ-404»." in html.unescape(page)
    assert listed(admin, "?status=nonsense") == listed(admin)  # a malformed filter is dropped, not refused
    assert listed(admin, "?q=py-9001") == [fleets["other_deficiency"]]
    assert len(listed(admin, "?q=buque own")) == 4
    assert len(listed(admin, "?q=MANGUERAS")) == 5
    assert len(listed(admin, "?q=hoses run out")) == 5  # the English title: its item's id
    assert listed(admin, "?q=ancla") == []
    assert "No hay deficiencias que coincidan con la búsqueda." in html.unescape(
        admin.get("/deficiencias?q=ancla").get_data(as_text=True))
    # the headers sort, and a click on the active one flips it, keeping the filters
    ascending, descending = listed(admin, "?due=&sort=due_on"), listed(admin, "?sort=-due_on")
    assert descending[0] == fleets["reported"] and ascending[0] == fleets["closed"]
    by_status = listed(admin, "?sort=status")
    assert by_status.index(fleets["overdue"]) < by_status.index(fleets["reported"]) < by_status.index(fleets["closed"])
    assert listed(admin, "?sort=-vessel")[0] == fleets["other_deficiency"]
    page = admin.get("/deficiencias?status=open&sort=due_on").get_data(as_text=True)
    assert 'href="?status=open&amp;sort=-due_on"' in page
    assert 'href="?status=open&amp;sort=vessel"' in page
    assert 'aria-sort="descending"' in admin.get("/deficiencias?sort=-status").get_data(as_text=True)


def test_an_owner_sees_only_their_fleet_on_the_page_the_csv_and_the_api(app, fleets, client):
    owner = signed_in(app, "owner")
    ids = listed(owner)
    assert fleets["other_deficiency"] not in ids and len(ids) == 4
    assert listed(owner, "?q=PY-9001") == []
    assert owner.get(f"/deficiencias?vessel_id={fleets['other']['vessel_id']}").status_code == 404
    rows = csv_rows(owner)
    assert len(rows) == 5 and not any("PY-9001" in cell for row in rows for cell in row)
    assert signed_in(app, "police").get("/deficiencias").status_code == 403
    assert app.test_client().get("/deficiencias").status_code == 302
    # the API's list is the same operation: its search, filters and order, the owner's scope
    token = client.post("/api/v1/auth/token", json={"username": "owner", "password": PASSWORD}).json["token"]
    headers = {"Authorization": f"Bearer {token}"}
    response = client.get("/api/v1/deficiencies?due=overdue", headers=headers)
    assert response.status_code == 200 and [d["id"] for d in response.json["items"]] == [fleets["overdue"]]
    response = client.get("/api/v1/deficiencies?sort=-due_on&q=mangueras", headers=headers)
    assert [d["id"] for d in response.json["items"]] == listed(owner, "?sort=-due_on&q=mangueras")
    assert client.get("/api/v1/deficiencies?sort=owner", headers=headers).status_code == 422


def test_csv_follows_the_search_filters_and_order_titles_in_the_pages_language(app, fleets):
    admin = signed_in(app, "admin")
    rows = csv_rows(admin, "?status=open&sort=-due_on")
    assert rows[0][:4] == ["Número", "Matrícula", "Buque", "Deficiencia"]
    assert [int(row[0]) for row in rows[1:]] == listed(admin, "?status=open&sort=-due_on")
    assert {row[8] for row in rows[1:]} == {"open"}
    overdue = next(row for row in rows[1:] if int(row[0]) == fleets["overdue"])
    assert overdue[1:3] == ["PY-9000", "Buque own"]
    assert overdue[3].startswith(fleets["item"]["title"]) and overdue[7] == (TODAY - timedelta(days=3)).isoformat()
    assert 'href="/deficiencias.csv?status=open&amp;sort=-due_on"' in admin.get(
        "/deficiencias?status=open&sort=-due_on").get_data(as_text=True)
    spanish = html.unescape(admin.get("/deficiencias").get_data(as_text=True))
    assert fleets["item"]["title"] in spanish and "Informada subsanada" in spanish and "Plazo" in spanish
    english = html.unescape(admin.get("/deficiencias?lang=en").get_data(as_text=True))
    assert fleets["item"]["title_en"] in english and fleets["item"]["title"] not in english
    assert "Reported fixed" in english and "Overdue" in english and "Deficiencies" in english
    rows = csv_rows(admin, "?lang=en")
    assert rows[0][3] == "Deficiency" and all(row[3].startswith(fleets["item"]["title_en"]) for row in rows[1:])

