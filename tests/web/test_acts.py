"""A page act asks once where it cannot be undone, and says on the next page what it did, once, in the reader's language."""
import pytest
from flask import Flask

from inspection.i18n.messages import Msg
from inspection.web.acts import pending_reports, report_done


@pytest.fixture
def flask_app():
    bare = Flask(__name__)
    bare.secret_key = "flashes"
    return bare


def test_a_report_is_shown_once_in_the_language_of_the_act(flask_app):
    with flask_app.test_request_context("/?lang=en"):
        report_done(Msg("Certificado {number} revocado.", number="SEG-2026-0001"))
        report_done(Msg("Certificado {number} revocado.", number="SEG-2026-0002"), "warn")
        assert pending_reports() == [("ok", "Certificate SEG-2026-0001 revoked."),
                                     ("warn", "Certificate SEG-2026-0002 revoked.")]


def test_an_unknown_tone_is_a_programming_error(flask_app):
    with flask_app.test_request_context("/"), pytest.raises(ValueError):
        report_done("Hecho.", "green")
