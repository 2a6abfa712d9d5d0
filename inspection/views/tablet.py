"""The inspector's tablet app: the agenda and the inspection screen, shells the device fills from its store.

Both pages carry no inspection data: the scripts render from IndexedDB, so the service worker can
serve the same bytes without signal (static/sw.js). What they carry is the page's words and the
labels of coded values, as JSON data blocks, in the user's language.
"""
from flask import Blueprint, current_app, render_template

from ..auth import require_page
from .terms import TERMS, term
from .pwa import script_strings

bp = Blueprint("tablet", __name__)

SCRIPTS = tuple(f"js/tablet/{name}.js" for name in (
    "agenda", "app", "aboard", "backoff", "inspection", "net", "outbox", "photos", "rules", "signature", "store", "sync",
    "uploads")) + ("js/i18n.js",)
SHOWN_TERMS = ("kind", "status", "outcome", "result", "action")


def tablet_page(template: str, status: int = 200):
    """A tablet shell in the user's language; never cached by HTTP (the service worker keeps its copy)."""
    terms = {group: {value: term(group, value) for value in TERMS[group]} for group in SHOWN_TERMS}
    response = current_app.make_response((render_template(template, strings=script_strings(*SCRIPTS), terms=terms),
                                          status))
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Baliza-Shell"] = "1"
    response.vary.update(("Cookie", "Accept-Language"))
    return response


@bp.route("/agenda")
@require_page("inspector")
def agenda():
    """'Mis inspecciones': where an inspector lands; works offline from the device's copy."""
    return tablet_page("tablet/agenda.html")


@bp.route("/tablet/inspeccion")
@require_page("inspector")
def inspection_shell():
    """The inspection screen without an inspection: what the service worker serves for /inspecciones/<id> offline."""
    return tablet_page("tablet/inspection.html")
