"""A hostile pass over every operation of the OpenAPI document and every page, as every role: no 5xx, ever.

schemathesis (test_openapi_schemathesis.py) sends requests that look like the schemas; this pass sends
what it never does: a NUL (U+0000) in every string field, query parameter and path parameter, lone
surrogates, nesting far past any schema and numbers of 5,000 digits or past a float, in every JSON
body, form and file name; and bytes that are not UTF-8 where a decoder must cope. Each request is sent
as each role of the User model and anonymously, naming the records of tests/fleets.py so that the edge,
not a 404, is what answers. A request carrying a NUL, a lone surrogate, deep nesting or a huge number is
one the edge must refuse: never a 2xx, and never a 5xx on either database. The count of requests sent is
printed (pytest -s) and held to a floor, so the pass cannot shrink unnoticed.
"""
import io
import json
import re
import uuid
from dataclasses import dataclass, field
from urllib.parse import quote

import pytest

from inspection.accounts.auth import issue_token
from inspection.core.extensions import db
from inspection.core.models import ROLES as USER_ROLES
from inspection.core.models import utcnow
from tests.fleets import PASSWORD, seed_fleets

pytestmark = pytest.mark.db

ROLES = (*USER_ROLES, "anonymous")
NUL = "a%00b"  # in a URL: percent-encoded, as a client sends it
NOT_UTF8 = "%ED%A0%80"  # a lone surrogate's bytes, which are not UTF-8: read as replacement characters
HUGE = "9" * 5000
LONG = "9" * 40  # past any column, yet an int Python reads
DEEP = "[" * 40 + "]" * 40  # past the edge's 32 levels, within the parser's own bound
METHODS = ("get", "post", "put", "patch", "delete")
FLOOR = 2000  # requests sent: 2,035 when written (62 operations and 70 page routes, 5 roles)
MULTIPART = "multipart/form-data"


@dataclass
class Probe:
    """One request; `hostile`: it carries text the edge must refuse, so a 2xx means it got through."""

    label: str
    method: str
    url: str
    hostile: bool
    body: bytes | dict | None = None
    content_type: str | None = None
    headers: dict = field(default_factory=dict)


def real_values(fleets) -> dict:
    """A real value for each path argument: the owner user's own fleet, so authorization lets the edge answer."""
    own = fleets["fleets"]["own"]
    values = {name: own[name] for name in ("owner_id", "vessel_id", "inspection_id", "item_id", "deficiency_id",
                                          "detention_id", "photo_id", "number", "token", "application_id", "fine_id",
                                          "check_id")}
    return {**values, "user_id": fleets["users"]["owner"].id, "device_id": 1, "notice_id": 1, "kind": "seguridad",
            "variant": "thumb", "role": "inspector", "client_id": str(uuid.UUID(int=1)), "decision": "revocar",
            "chart": "certificados", "secret": "x"}


def resolve(doc: dict, schema: dict) -> dict:
    """The schema behind a $ref, or the first of an allOf/oneOf/anyOf."""
    while True:
        if "$ref" in schema:
            schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        elif any(key in schema for key in ("allOf", "oneOf", "anyOf")):
            schema = next(schema[key][0] for key in ("allOf", "oneOf", "anyOf") if key in schema)
        else:
            return schema


def fill(doc: dict, schema: dict, leaf, depth: int = 0):
    """A value of the schema's shape whose every string and number is `leaf(type)`."""
    schema = resolve(doc, schema)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if kind == "object" and depth < 6:
        properties = schema.get("properties") or {"x": {"type": "string"}}
        return {name: fill(doc, sub, leaf, depth + 1) for name, sub in properties.items()}
    if kind == "array" and depth < 6:
        return [fill(doc, schema.get("items", {}), leaf, depth + 1)]
    if kind == "boolean":
        return True
    return leaf("number" if kind in ("integer", "number") else "string")


class Literal(str):
    """JSON text written as it is: a lone surrogate's escape, NaN, 5,000 digits, which json.dumps will not write."""


def to_json(value) -> str:
    """JSON text of a value, its Literal parts as they are."""
    if isinstance(value, Literal):
        return value
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(key)}: {to_json(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(map(to_json, value)) + "]"
    return json.dumps(value)


# JSON bodies: (label, every string, every number, one member more, whatever the schema)
JSON_VARIANTS = [
    ("json-nul", "a\u0000b", 1, "a\u0000b"),
    ("json-surrogate", Literal('"\\ud800"'), 1, Literal('"x\\udc00"')),
    ("json-huge", "x", Literal(HUGE), Literal("-" + HUGE)),
    ("json-not-finite", "x", Literal("1e400"), Literal("NaN")),
    ("json-deep", Literal(DEEP), Literal(DEEP), Literal(DEEP)),
]


def json_bodies(doc: dict, schema: dict):
    """(label, body) for each variant, and a body nested deeper than the parser itself goes."""
    for label, text, number, extra in JSON_VARIANTS:
        value = fill(doc, schema, lambda kind, text=text, number=number: number if kind == "number" else text)
        if isinstance(value, dict):
            value["hostile"] = extra
        yield label, to_json(value).encode()
    yield "json-deeper-than-the-parser", b"[" * 100_000


def with_path(template: str, kinds: dict, values: dict, strings: str = "", integers: str = "") -> str:
    """The path with its arguments filled: strings and integers by the given (URL-ready) text, else real values."""
    def fill_in(match):
        name = match.group(1)
        given = integers if kinds.get(name) == "integer" else strings
        return given or quote(str(values[name]), safe="")
    return re.sub(r"\{(\w+)\}", fill_in, template)


def query(params: dict, strings: str, numbers: str) -> str:
    """A query string giving every string parameter `strings` and every numeric one `numbers`."""
    return "&".join(f"{key}={numbers if kind in ('integer', 'number') else strings}" for key, kind in params.items())


def url_probes(name: str, verb: str, template: str, params: dict, values: dict) -> list[Probe]:
    """A NUL in every query parameter (and in one no operation declares), non-UTF-8 bytes and odd numbers in the
    query, a NUL or non-UTF-8 bytes in every string path argument, 5,000 digits in every integer one."""
    path, kinds = with_path(template, params["path"], values), params["path"]
    numeric = {key: kind for key, kind in params["query"].items() if kind in ("integer", "number")}
    nul_query = "&".join(filter(None, [query(params["query"], NUL, HUGE), f"hostile={NUL}"]))
    probes = [Probe(f"{name} query", verb, f"{path}?{nul_query}", True)]
    if params["query"]:
        probes.append(Probe(f"{name} query-not-utf8", verb, f"{path}?{query(params['query'], NOT_UTF8, '1')}", False))
    if numeric:
        probes += [Probe(f"{name} query-{label}", verb, f"{path}?{query(numeric, '', number)}", False)
                   for label, number in (("long", LONG), ("huge", HUGE), ("nan", "NaN"), ("inf", "1e400"))]
    if "string" in kinds.values():
        probes += [Probe(f"{name} path-nul", verb, with_path(template, kinds, values, strings=NUL), True),
                   Probe(f"{name} path-not-utf8", verb, with_path(template, kinds, values, strings=NOT_UTF8), False)]
    if "integer" in kinds.values():
        probes.append(Probe(f"{name} path-huge", verb, with_path(template, kinds, values, integers=HUGE), True))
    return probes


def body_probes(doc: dict, name: str, verb: str, path: str, operation: dict, params: dict, values: dict):
    """Hostile bodies of the operation's own media types: JSON, a multipart form, a resumable upload's chunk."""
    content = operation.get("requestBody", {}).get("content", {})
    probes = []
    if "application/json" in content:
        probes += [Probe(f"{name} {label}", verb, path, True, body, "application/json")
                   for label, body in json_bodies(doc, content["application/json"]["schema"])]
    if MULTIPART in content:
        probes += multipart_probes(doc, name, verb, path, params["formData"], content[MULTIPART]["schema"], values)
    if "application/offset+octet-stream" in content:
        probes.append(Probe(f"{name} chunk", verb, path, False, b"\x00\xff" * 32, "application/offset+octet-stream",
                            {"Upload-Offset": "0"}))
    if params["header"]:
        probes.append(Probe(f"{name} header-huge", verb, path, False, headers=dict.fromkeys(params["header"], HUGE)))
    return probes


def api_probes(doc: dict, values: dict) -> list[Probe]:
    """Hostile requests for every operation of the OpenAPI document."""
    probes = []
    for template, operations in doc["paths"].items():
        for method, operation in operations.items():
            if method not in METHODS:
                continue
            declared = [*operations.get("parameters", []), *operation.get("parameters", [])]
            params = {where: {param["name"]: param.get("schema", {}).get("type", "string")
                              for param in declared if param["in"] == where}
                      for where in ("path", "query", "formData", "header")}
            name, verb = f"{method.upper()} {template}", method.upper()
            probes += url_probes(name, verb, template, params, values)
            path = with_path(template, params["path"], values)
            probes += body_probes(doc, name, verb, path, operation, params, values)
    return probes


def multipart_probes(doc, name, verb, path, fields, schema, values) -> list[Probe]:
    """A form whose fields carry a NUL, one whose file's name does, and a file of NUL bytes (not text: not refused)."""
    files = list(resolve(doc, schema).get("properties", {}))
    sane = {key: str(values.get(key, uuid.uuid4())) for key, kind in fields.items() if kind == "string"}

    def form(data: dict, filename: str, content: bytes) -> dict:
        return {**data, **{key: (content, filename) for key in files}}

    hostile = {key: HUGE if kind == "number" else "a\x00b" for key, kind in fields.items()}
    return [Probe(f"{name} form-nul", verb, path, True, form(hostile, "foto.jpg", b"\xff\xd8\x00"), MULTIPART),
            Probe(f"{name} filename-nul", verb, path, True, form(sane, "fo\x00to.jpg", b"\xff\xd8\x00"), MULTIPART),
            Probe(f"{name} file-bytes", verb, path, False, form(sane, "foto.jpg", b"\x00" * 64), MULTIPART)]


FORM_FIELDS = ("username", "password", "current", "new", "name", "q", "reason", "note", "registration", "kind",
               "vessel", "full_name", "role", "port", "scheduled_on", "tax_id")
RULE_ARGUMENT = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")  # <int:vessel_id>, <any(a, b):kind>, <token>


def page_probes(app, values: dict) -> list[Probe]:
    """For every page: a GET with a NUL in its query, in each string argument or 5,000 digits in each integer one;
    a POST with a NUL in every field it might read."""
    probes = []
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith(("api_", "api-docs")) or rule.endpoint == "static":
            continue
        kinds = {name: "integer" if converter == "int" else "string"
                 for converter, name in RULE_ARGUMENT.findall(rule.rule)}
        template = RULE_ARGUMENT.sub(r"{\2}", rule.rule)
        path = with_path(template, kinds, values)
        if "GET" in rule.methods:
            probes.append(Probe(f"GET {rule.rule} query", "GET", f"{path}?q={NUL}&page={NUL}", True))
            if "string" in kinds.values():
                probes.append(Probe(f"GET {rule.rule} path-nul", "GET", with_path(template, kinds, values, strings=NUL),
                                    True))
            if "integer" in kinds.values():
                probes.append(Probe(f"GET {rule.rule} path-huge", "GET",
                                    with_path(template, kinds, values, integers=HUGE), True))
        if "POST" in rule.methods:
            probes.append(Probe(f"POST {rule.rule} form-nul", "POST", path, True,
                                {key: "a\x00b" for key in FORM_FIELDS}, "application/x-www-form-urlencoded"))
    return probes


def send(client, probe: Probe, headers: dict):
    """Send a probe; a form's files are made afresh each time (the client closes what it sent)."""
    body = probe.body
    if isinstance(body, dict):
        body = {key: (io.BytesIO(value[0]), value[1]) if isinstance(value, tuple) else value
                for key, value in body.items()}
    return client.open(probe.url, method=probe.method, data=body, content_type=probe.content_type,
                       headers={"Accept-Encoding": "identity", **probe.headers, **headers})


def test_no_hostile_request_is_a_5xx_or_gets_through(app, monkeypatch):
    """Every probe as every role: the API's with a fresh bearer token, the pages' in a signed-in browser."""
    monkeypatch.setitem(app.extensions, "baliza.rate_limits", {})  # a 429 would hide what the edge answers
    fleets = seed_fleets()
    values = real_values(fleets)
    doc = app.test_client().get("/api/v1/openapi.json").json
    operations = [(method, path) for path, ops in doc["paths"].items() for method in ops if method in METHODS]
    api, pages = api_probes(doc, values), page_probes(app, values)
    failures, sent = [], 0
    for role in ROLES:
        api_client, browser = app.test_client(), app.test_client()
        if role != "anonymous":
            assert browser.post("/login", data={"username": role, "password": PASSWORD}).status_code == 302, role
        for probes, client in ((api, api_client), (pages, browser)):
            for probe in probes:
                headers = {}
                if client is api_client and role != "anonymous":
                    token, _ = issue_token(fleets["users"][role], utcnow())  # fresh: no probe may spoil another's
                    db.session.commit()
                    headers["Authorization"] = f"Bearer {token}"
                sent += 1
                try:
                    response = send(client, probe, headers)
                except Exception as error:  # escaped every handler: the server would answer 500
                    failures.append(f"{role}: {probe.label} -> raised {error!r:.160}")
                    continue
                if response.status_code >= 500 or (probe.hostile and response.status_code < 300):
                    failures.append(f"{role}: {probe.label} -> {response.status_code} {response.get_data()[:160]!r}")
    print(f"\nhostile pass: {sent} requests ({len(api)} API probes over {len(operations)} operations, "
          f"{len(pages)} page probes) as {len(ROLES)} roles ({', '.join(ROLES)}); 5xx or let through: {len(failures)}")
    assert not failures, "\n".join(failures)
    assert {(probe.method.lower(), probe.label.split(" ")[1]) for probe in api} == set(operations)
    assert sent >= FLOOR
