"""The API blueprints' query parser: a query string that loaded is not parsed again, and nothing else is kept."""
from datetime import date

import pytest
from marshmallow import fields
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import UnprocessableEntity

from inspection.web.api_common import QueryParser
from inspection.web.schemas import BaseSchema, PageArgs


class Dated(BaseSchema):
    """A query whose default is computed when it loads: never kept."""

    day = fields.Date(load_default=date.today)


@pytest.fixture
def parses(monkeypatch):
    """Count the loads webargs' own parser does under the QueryParser."""
    counted = []
    original = FlaskParser.parse

    def parse(self, argmap, req=None, **kwargs):
        counted.append(kwargs.get("location"))
        return original(self, argmap, req, **kwargs)

    monkeypatch.setattr(FlaskParser, "parse", parse)
    return counted


def parse(app, schema, query: str, location="query"):
    with app.test_request_context(f"/api/v1/vessels?{query}"):
        return QueryParser().parse(schema, location=location)


def test_a_query_string_that_loaded_is_parsed_once_per_process(app, parses):
    schema = PageArgs()
    assert parse(app, schema, "page=2&per_page=10") == {"page": 2, "per_page": 10}
    assert parse(app, schema, "page=2&per_page=10") == {"page": 2, "per_page": 10}
    assert len(parses) == 1
    assert parse(app, schema, "page=3") == {"page": 3, "per_page": 50}
    assert len(parses) == 2


def test_each_caller_gets_its_own_copy(app, parses):
    schema = PageArgs()
    first = parse(app, schema, "page=4")
    first["page"] = 99
    first.pop("per_page")
    assert parse(app, schema, "page=4") == {"page": 4, "per_page": 50}


def test_a_refused_query_is_refused_every_time(app, parses):
    schema = PageArgs()
    for _ in range(2):
        with pytest.raises(UnprocessableEntity):
            parse(app, schema, "per_page=500")
    assert len(parses) == 2


def test_a_schema_with_a_computed_default_and_a_body_are_parsed_every_time(app, parses):
    for _ in range(2):
        parse(app, Dated(), "")
    with app.test_request_context("/api/v1/vessels", method="POST", json={"page": 1}):
        for _ in range(2):
            QueryParser().parse(PageArgs(), location="json")
    assert len(parses) == 4


def test_the_vessel_list_refuses_a_bad_page_in_spanish_after_a_good_one(client, as_role):
    _, admin = as_role("admin")
    assert client.get("/api/v1/vessels?per_page=5", headers=admin).status_code == 200
    for _ in range(2):
        refused = client.get("/api/v1/vessels?per_page=0", headers=admin)
        assert refused.status_code == 422
        assert refused.json["errors"] == {"per_page": ["Debe ser mayor o igual que 1 y menor o igual que 200."]}, refused.json
