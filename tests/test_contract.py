"""The outside stays as it was: the OpenAPI document, every URL rule with its endpoint, and the CLI.

The snapshots in tests/snapshots/ were taken before the move into capability packages; a module may
move, but a tablet, a bookmark or a cron line written against the old house must still work. After a
deliberate change of contract, write new snapshots with `python tests/snapshots/take.py` and say why.
"""
import json
from pathlib import Path

import pytest

from tests.snapshots.take import cli_lines, openapi_document, url_rules

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"


@pytest.fixture(scope="module")
def contract_app(tmp_path_factory):
    from tests.snapshots.take import contract_app as build

    return build(tmp_path_factory.mktemp("contract"))


def test_the_openapi_document_is_unchanged(contract_app):
    assert openapi_document(contract_app) == json.loads((SNAPSHOTS / "openapi.json").read_text())


def test_every_url_rule_keeps_its_methods_and_endpoint(contract_app):
    assert url_rules(contract_app) == (SNAPSHOTS / "url_map.txt").read_text().splitlines()


def test_the_cli_keeps_its_commands_and_options(contract_app):
    assert cli_lines(contract_app) == (SNAPSHOTS / "cli.txt").read_text().splitlines()
