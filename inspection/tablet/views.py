"""The inspector's tablet app: the agenda and the inspection screen, shells the device fills from its store.

Both pages carry no inspection data: the scripts render from IndexedDB, so the service worker can
serve the same bytes without signal (static/sw.js). What they carry is the page's words and the
labels of coded values, as JSON data blocks, in the user's language.
"""
from flask import Blueprint

from inspection.accounts.auth import require_page
from inspection.web.pwa import tablet_page

bp = Blueprint("tablet", __name__)





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
