"""A bounded schemathesis run over the whole OpenAPI document, in process: no 5xx, every response as documented.

Fixed seed, a few examples per operation, as admin, inspector, owner and anonymous; the paths name the
records of tests/fleets.py (random ids would almost only ever reach the 404).
"""
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from inspection.accounts.auth import issue_token
from inspection.core.extensions import db
from inspection.core.models import utcnow
from tests.fleets import seed_fleets

# Random generation only (the coverage phase alone sends thousands of boundary cases), a fixed seed and a
# few examples per operation, each sent as every role: the whole run stays well under a minute.
CONFIG = {"seed": 20261130, "generation": {"max-examples": 4},
          "phases": {"examples": {"enabled": False}, "coverage": {"enabled": False}, "stateful": {"enabled": False}}}


@pytest.fixture
def fleets(app):
    return seed_fleets()


@pytest.fixture
def api_schema(app, fleets):
    return schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app, config=SchemathesisConfig.from_dict(CONFIG))


schema = schemathesis.pytest.from_fixture("api_schema")


def path_choices(fleets) -> dict:
    """Real values for each path argument: records of both fleets in each state, users of each role."""
    own, other = fleets["fleets"]["own"], fleets["fleets"]["other"]
    both = lambda *keys: [fleet[key] for key in keys for fleet in (own, other)]  # noqa: E731
    return {
        "owner_id": both("owner_id"), "vessel_id": both("vessel_id"), "deficiency_id": both("deficiency_id"),
        "inspection_id": both("inspection_id", "scheduled_id", "submitted_id"), "detention_id": both("detention_id"),
        "photo_id": both("photo_id"), "number": both("number"), "token": both("token"), "item_id": both("item_id"),
        "user_id": [user.id for user in fleets["users"].values()],
        "variant": ["original", "display", "thumb"], "kind": ["seguridad", "navegabilidad", "documentacion", "menores"],
    }


def pick(choices: list, generated):
    """One of the real values, chosen by the generated one (so the seed decides), or the generated value
    itself one time in (len + 1): unknown records stay covered."""
    index = (generated if isinstance(generated, int) else len(str(generated))) % (len(choices) + 1)
    return choices[index] if index < len(choices) else generated


# A resumable upload's PATCH body is raw bytes under its tus-like media type.
schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")

ROLES = ("admin", "inspector", "owner", "anonymous")
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


@schema.parametrize()
@settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))
def test_api_answers_as_documented(case, fleets):
    """Each generated request is sent once per role."""
    choices = path_choices(fleets)
    for name, generated in (case.path_parameters or {}).items():
        if name in choices:
            case.path_parameters[name] = pick(choices[name], generated)
    for role in ROLES:
        headers = {"Accept-Encoding": "identity"}  # compression has its own test; the WSGI client does not inflate
        if role != "anonymous":
            token, _ = issue_token(fleets["users"][role], utcnow())  # fresh: a DELETE /auth/token revokes it
            db.session.commit()
            headers["Authorization"] = f"Bearer {token}"
        try:
            case.call_and_validate(headers=headers, checks=CHECKS)
        except Exception as error:
            error.add_note(f"as {role}")
            raise
