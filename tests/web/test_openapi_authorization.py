"""Refuse before you read: every write of the OpenAPI document and every page form, as every role, with an
empty body, is refused for who it is (401/403, 404 outside an owner's fleet) before the body is validated."""
import re

from inspection.accounts.auth import issue_token
from inspection.core.extensions import db
from inspection.core.models import utcnow
from tests.fleets import PASSWORD

ROLES = ("anonymous", "admin", "inspector", "owner", "police", "reviewer")
PUBLIC = "public"  # no login needed
PAGE_SESSION = "page session"  # the page's cookie (and CSRF header), never a bearer token: every bearer caller is 401
SIGNED_IN = frozenset(ROLES[1:])
STAFF = frozenset({"admin", "inspector"})

# Who may do each write operation of the API. A new endpoint fails test_the_table_covers_every_write until
# it is stated here.
API_PERMISSIONS = {
    "POST /api/v1/auth/token": PUBLIC,
    "DELETE /api/v1/auth/token": SIGNED_IN,
    "POST /api/v1/auth/device": PAGE_SESSION,
    "DELETE /api/v1/auth/devices/{device_id}": SIGNED_IN,
    "POST /api/v1/owners": {"admin"},
    "PATCH /api/v1/owners/{owner_id}": {"admin"},
    "POST /api/v1/vessels": {"admin"},
    "PATCH /api/v1/vessels/{vessel_id}": {"admin"},
    "POST /api/v1/users": {"admin"},
    "POST /api/v1/users/{user_id}/conflicts": {"admin"},
    "POST /api/v1/inspections": STAFF,
    "POST /api/v1/inspections/{inspection_id}/start": {"inspector"},
    "PUT /api/v1/inspections/{inspection_id}/answers/{item_id}": {"inspector"},
    "POST /api/v1/inspections/{inspection_id}/sync": {"inspector"},
    "POST /api/v1/inspections/{inspection_id}/photos": {"inspector"},
    "POST /api/v1/inspections/{inspection_id}/uploads": {"inspector"},
    "PATCH /api/v1/inspections/{inspection_id}/uploads/{client_id}": {"inspector"},
    "PUT /api/v1/inspections/{inspection_id}/photos/{photo_id}/marks": {"inspector"},
    "POST /api/v1/inspections/{inspection_id}/submit": {"inspector"},
    "POST /api/v1/inspections/{inspection_id}/interrupt": STAFF,
    "POST /api/v1/inspections/{inspection_id}/cancel": STAFF,
    "POST /api/v1/deficiencies/{deficiency_id}/evidence": {"owner"},
    "POST /api/v1/deficiencies/{deficiency_id}/report-fixed": {"owner"},
    "POST /api/v1/deficiencies/{deficiency_id}/close": {"inspector"},
    "POST /api/v1/vessels/{vessel_id}/detentions": STAFF,
    "POST /api/v1/detentions/{detention_id}/lift": STAFF,
    "POST /api/v1/certificates/{number}/revoke": {"admin"},
    "POST /api/v1/certificates/{number}/suspend": {"admin"},
    "POST /api/v1/certificates/{number}/reinstate": {"admin"},
    "POST /api/v1/applications": STAFF | {"owner"},
    "POST /api/v1/applications/preview": STAFF | {"owner"},
    "POST /api/v1/applications/{application_id}/assign": {"admin"},
    "POST /api/v1/fines/{fine_id}/waive": {"admin"},
    "POST /api/v1/vessels/{vessel_id}/arqueos": STAFF,
    "POST /api/v1/inspections/{inspection_id}/countersign": {"reviewer"},
    "POST /api/v1/inspections/{inspection_id}/return": {"reviewer"},
    "POST /api/v1/patrol-checks": {"police"},
    "PUT /api/v1/patrol-checks/{check_id}/answers/{item_id}": {"police"},
    "POST /api/v1/patrol-checks/{check_id}/photos": {"police"},
    "POST /api/v1/patrol-checks/{check_id}/uploads": {"police"},
    "PATCH /api/v1/patrol-checks/{check_id}/uploads/{client_id}": {"police"},
    "POST /api/v1/patrol-checks/{check_id}/close": {"police"},
}

# The same for every page that takes a form (Flask rules, as app.url_map spells them).
PAGE_PERMISSIONS = {
    "/login": PUBLIC,
    "/logout": PUBLIC,
    "/csp-report": PUBLIC,  # browsers report what the Content-Security-Policy blocked
    "/cuenta": SIGNED_IN,
    "/cuenta/idioma": SIGNED_IN,
    "/cuenta/dispositivos/<int:device_id>/revocar": SIGNED_IN,
    "/cuenta/calendario/renovar": {"owner", "inspector"},
    "/avisos/<int:notice_id>/leido": SIGNED_IN,
    "/avisos/leidos": SIGNED_IN,
    "/buques/nuevo": {"admin"},
    "/buques/<int:vessel_id>/editar": {"admin"},
    "/armadores/nuevo": {"admin"},
    "/armadores/<int:owner_id>/editar": {"admin"},
    "/usuarios": {"admin"},
    "/usuarios/<int:user_id>/conflictos": {"admin"},
    "/usuarios/<int:user_id>/activo": {"admin"},
    "/usuarios/<int:user_id>/dispositivos/revocar": {"admin"},
    "/inspecciones": STAFF,
    "/inspecciones/<int:inspection_id>/interrumpir": STAFF,
    "/inspecciones/<int:inspection_id>/cancelar": STAFF,
    "/inspecciones/<int:inspection_id>/refrendar": {"reviewer"},
    "/inspecciones/<int:inspection_id>/devolver": {"reviewer"},
    "/inspecciones/<int:inspection_id>/detener": STAFF,
    "/inspecciones/<int:inspection_id>/detenciones/<int:detention_id>/levantar": STAFF,
    "/deficiencias/<int:deficiency_id>/subsanada": {"owner"},
    "/deficiencias/<int:deficiency_id>/cerrar": {"inspector"},
    "/certificados/<number>/<decision>": {"admin"},
    "/solicitudes/vista-previa": {"admin", "inspector", "owner"},
    "/solicitudes": {"admin", "inspector", "owner"},
    "/planificacion/solicitudes/<int:application_id>/asignar": {"admin"},
    "/planificacion/buques/<int:vessel_id>/asignar": {"admin"},
    "/multas/<int:fine_id>/condonar": {"admin"},
}

# Reads that only some roles may make (every other read is covered by its own module's tests).
API_READS = {
    "GET /api/v1/calendar": {"owner", "inspector"},
}

FLEET_ARGS = {"owner_id", "vessel_id", "inspection_id", "deficiency_id", "detention_id", "number", "application_id",
              "fine_id", "check_id"}
WRITES = ("post", "put", "patch", "delete")


def api_writes(client) -> dict:
    """{"METHOD /path": operation} for every write operation of the generated document."""
    spec = client.get("/api/v1/openapi.json").json
    return {f"{method.upper()} {path}": op for path, ops in spec["paths"].items()
            for method, op in ops.items() if method in WRITES}


def test_the_tables_cover_every_write(client, app):
    assert set(api_writes(client)) == set(API_PERMISSIONS)
    page_forms = {rule.rule for rule in app.url_map.iter_rules()
                  if not rule.rule.startswith("/api/") and rule.methods & {"POST", "PUT", "PATCH", "DELETE"}}
    assert page_forms == set(PAGE_PERMISSIONS)


def path_values(seeded, fleet: str, role: str = "anonymous") -> dict:
    """Path arguments naming records of one fleet (the owner user's "own", or a stranger's "other"), and a
    device of the caller's own."""
    records = seeded["fleets"][fleet]
    return {**records, "user_id": seeded["users"]["inspector"].id, "decision": "suspender",
            "device_id": own_device(seeded, role), "notice_id": 1, "client_id": "00000000-0000-4000-8000-000000000000"}


def own_device(seeded, role: str) -> int:
    """The id of a new device token of the `role` user (any id for the anonymous caller)."""
    if role == "anonymous":
        return 1
    _, record = issue_token(seeded["users"][role], utcnow(), "Tableta")
    db.session.commit()
    return record.id


def expected(allowed, role: str, fleet: str, path_args: set, has_body: bool) -> int | None:
    """The status the caller must get, or None when anything but a refusal of who they are is right."""
    if allowed == PUBLIC:
        return None
    if role == "anonymous" or allowed == PAGE_SESSION:
        return 401
    if role == "owner" and fleet == "other" and path_args & FLEET_ARGS:
        return 404
    if role not in allowed:
        return 403
    return 422 if has_body else None  # allowed: only now is the (empty) body read


def test_api_refuses_who_may_not_before_reading_the_body(client, seeded):
    """Every write operation, as every role on the owner user's fleet (and the owner on a stranger's)."""
    writes, wrong = api_writes(client), []
    for operation, allowed in API_PERMISSIONS.items():
        method, template = operation.split(" ")
        content = (writes[operation].get("requestBody") or {}).get("content", {})
        for role, fleet in [(role, "own") for role in ROLES] + [("owner", "other")]:
            path = template.format(**path_values(seeded, fleet, role))
            response = call_api(client, seeded, method, path, role, content)
            body = writes[operation].get("requestBody") or {}
            want = expected(allowed, role, fleet, set(re.findall(r"{(\w+)}", template)), bool(body.get("required")))
            if want is None:
                right = response.status_code not in (401, 403, 404)
            else:
                right = response.status_code == want and response.mimetype == "application/problem+json"
            if not right:
                wrong.append(f"{operation} as {role} ({fleet} fleet): {response.status_code}, expected {want or 'no refusal'}")
    assert not wrong, "\n".join(wrong)


def call_api(client, seeded, method: str, path: str, role: str, content: dict):
    """One request with an empty body of the documented kind, with a fresh bearer token for `role`."""
    headers = {}
    if role != "anonymous":
        token, _ = issue_token(seeded["users"][role], utcnow())
        db.session.commit()
        headers["Authorization"] = f"Bearer {token}"
    if "multipart/form-data" in content:
        return client.open(path, method=method, data={}, headers=headers, content_type="multipart/form-data")
    if content:
        return client.open(path, method=method, json={}, headers=headers)
    return client.open(path, method=method, headers=headers)


def test_pages_refuse_who_may_not_before_reading_the_form(app, seeded):
    """With CSRF on and no token: a refused caller is refused for who they are, not for the missing token;
    only an allowed one gets as far as the form (and the CSRF check that reads it: 400)."""
    browsers = {"anonymous": app.test_client()}
    for role in SIGNED_IN:
        browsers[role] = app.test_client()
        assert browsers[role].post("/login", data={"username": role, "password": PASSWORD}).status_code == 302
    app.config["WTF_CSRF_ENABLED"] = True
    wrong = []
    for rule, allowed in PAGE_PERMISSIONS.items():
        if allowed in (PUBLIC, PAGE_SESSION):
            continue
        args = set(re.findall(r"<(?:\w+:)?(\w+)>", rule))
        for role, fleet in [(role, "own") for role in ROLES] + [("owner", "other")]:
            path = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(path_values(seeded, fleet)[m[1]]), rule)
            response = browsers[role].post(path, data={})
            if role == "anonymous":
                right = response.status_code == 302 and "/login" in response.headers["Location"]
            else:
                want = expected(allowed, role, fleet, args, has_body=True)
                right = response.status_code == (400 if want == 422 else want)
            if not right:
                wrong.append(f"POST {rule} as {role} ({fleet} fleet): {response.status_code}")
    assert not wrong, "\n".join(wrong)


def test_restricted_reads_refuse_who_may_not(client, seeded):
    """GET /api/v1/calendar: 401 anonymous, 403 for the roles without a feed, the caller's own URL otherwise."""
    spec = client.get("/api/v1/openapi.json").json
    for operation, allowed in API_READS.items():
        method, path = operation.split(" ")
        assert method.lower() in spec["paths"][path]
        for role in ROLES:
            response = call_api(client, seeded, method, path, role, {})
            want = 401 if role == "anonymous" else (200 if role in allowed else 403)
            assert response.status_code == want, f"{operation} as {role}: {response.status_code}"
