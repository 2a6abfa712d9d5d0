"""The OpenAPI document tells the truth: problem+json errors, response schemas, nullable fields, security."""
import re
from pathlib import Path

import pytest
from marshmallow import Schema

from inspection.web import schemas

PROBLEM = "application/problem+json"


@pytest.fixture
def spec(client):
    return client.get("/api/v1/openapi.json").json


def operations(spec):
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if method != "parameters":
                yield f"{method.upper()} {path}", op


def resolve(spec, node: dict) -> dict:
    while "$ref" in node:
        *_, kind, name = node["$ref"].split("/")
        node = spec["components"][kind][name]
    return node


def nullable(prop: dict) -> bool:
    """OpenAPI 3.0 nullability, including apispec's anyOf form for a nested schema."""
    return bool(prop.get("nullable") or any(alt.get("nullable") for alt in prop.get("anyOf", [])))


def test_every_error_is_documented_as_problem_json(spec):
    wrong = []
    for name, op in operations(spec):
        for status, response in op["responses"].items():
            if status.startswith(("2", "3")):
                continue
            content = resolve(spec, response).get("content", {})
            if list(content) != [PROBLEM] or content[PROBLEM]["schema"] != {"$ref": "#/components/schemas/Problem"}:
                wrong.append(f"{name} {status}: {list(content)}")
    assert not wrong, "\n".join(wrong)


def test_the_problem_schema_is_rfc_9457_with_field_errors(spec):
    problem = spec["components"]["schemas"]["Problem"]
    assert set(problem["properties"]) == {"type", "title", "status", "detail", "errors"}
    assert set(problem["required"]) == {"type", "title", "status", "detail"}
    assert problem["additionalProperties"] is True  # refusals may add `limits`, `missing`, ...


def test_problem_responses_match_the_schema(client, as_role):
    _, headers = as_role("inspector")
    response = client.post("/api/v1/owners", json={}, headers=headers)
    assert response.status_code == 403 and response.mimetype == PROBLEM
    assert {"type", "title", "status", "detail"} <= set(response.json)


@pytest.mark.parametrize("path, component", [
    ("/api/v1/keys", "KeySet"),
    ("/api/v1/status-list", "StatusList"),
    ("/api/v1/verify/{token}", "Verification"),
])
def test_what_a_verifier_caches_has_a_response_schema(spec, path, component):
    ok = spec["paths"][path]["get"]["responses"]["200"]
    assert ok["content"]["application/json"]["schema"] == {"$ref": f"#/components/schemas/{component}"}


def test_a_verdict_without_readable_particulars_is_documented_as_null(spec):
    assert nullable(spec["components"]["schemas"]["Verification"]["properties"]["certificate"])


def test_an_inspection_not_started_has_null_evidence_as_documented(client, spec, as_role, make_vessel, make_user):
    from datetime import date

    _, admin = as_role("admin")
    inspector = make_user("inspector")
    body = {"vessel_id": make_vessel().id, "kind": "seguridad", "inspector_id": inspector.id,
            "scheduled_on": date(2099, 1, 1).isoformat(), "port": "Asunción"}
    created = client.post("/api/v1/inspections", json=body, headers=admin)
    detail = client.get(f"/api/v1/inspections/{created.json['id']}", headers=admin).json
    assert detail["evidence"] is None
    assert nullable(spec["components"]["schemas"]["InspectionDetail"]["properties"]["evidence"])


def schema_classes():
    """Every schema class of every package's schemas module, by its OpenAPI component name."""
    import importlib

    modules = [importlib.import_module(f"inspection.{path.parent.name}.schemas")
               for path in sorted(Path(schemas.__file__).parent.parent.glob("*/schemas.py"))]
    return {cls.__name__.removesuffix("Schema"): cls for module in modules for cls in vars(module).values()
            if isinstance(cls, type) and issubclass(cls, Schema) and cls.__module__ == module.__name__}


def test_every_field_that_may_be_none_is_nullable(spec):
    components, checked, wrong = spec["components"]["schemas"], 0, []
    for name, cls in schema_classes().items():
        if name not in components:
            continue
        for field_name, field in cls().fields.items():
            if field.allow_none and not field.load_only:
                checked += 1
                if not nullable(components[name]["properties"][field.data_key or field_name]):
                    wrong.append(f"{name}.{field_name}")
    assert checked > 20 and not wrong, wrong


def test_security_is_documented_exactly_where_a_role_is_required(app, spec):
    """`require` marks the view and documents it (`require_session` as the page's cookie); a view without it is
    public and documented so."""
    views = {}
    for rule in app.url_map.iter_rules():
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            views[f"{method} {path}"] = app.view_functions[rule.endpoint]
    for name, op in operations(spec):
        access = getattr(views[name], "access", None)
        scheme = "pageSession" if access is not None and access.session else "bearerAuth"
        assert (op.get("security") == [{scheme: []}]) == (access is not None), name
        assert ("401" in op["responses"]) == (access is not None), name


def test_patch_bodies_are_documented_as_changing_something(spec):
    patches = {name: schema for name, schema in spec["components"]["schemas"].items() if name.endswith("Patch")}
    assert set(patches) == {"OwnerPatch", "VesselPatch"}
    assert all(schema["minProperties"] == 1 for schema in patches.values())


@pytest.mark.parametrize("resource", ["owners", "vessels"])
def test_an_empty_patch_is_refused(client, as_role, make_vessel, resource):
    vessel = make_vessel()
    record_id = vessel.id if resource == "vessels" else vessel.owner_id
    _, admin = as_role("admin")
    response = client.patch(f"/api/v1/{resource}/{record_id}", json={}, headers=admin)
    assert response.status_code == 422 and response.mimetype == PROBLEM
    assert response.json["detail"] == "Indique al menos un campo que cambiar."
    assert response.json["errors"] == {"body": ["Indique al menos un campo que cambiar."]}
    english = client.patch(f"/api/v1/{resource}/{record_id}", json={}, headers={**admin, "Accept-Language": "en"})
    assert english.json["detail"] == "Give at least one field to change."
