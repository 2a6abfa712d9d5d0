"""Patrol checks as pages (issue 23): the list each role may see and one check, for staff reading a retention's
notice, police looking back at their unit's work and owners at what patrols found on their vessels."""
from flask import Blueprint, render_template, request
from flask_login import current_user
from sqlalchemy.orm import selectinload

from inspection.accounts.access import patrol_scope
from inspection.accounts.auth import require_page
from inspection.core.extensions import db
from inspection.core.models import PatrolCheck
from inspection.i18n.language import current_language
from inspection.patrol.checks import check_view, get_check_for, photos_of

bp = Blueprint("patrol", __name__)
PER_PAGE = 30


@bp.route("/patrullas")
@require_page()
def check_list():
    """The patrol checks the user may see, newest first (owners: their vessels' closed ones)."""
    query = (db.select(PatrolCheck).options(selectinload(PatrolCheck.answers))
             .order_by(PatrolCheck.checked_at.desc(), PatrolCheck.id.desc()))
    page = db.paginate(patrol_scope(query, current_user), page=request.args.get("page", 1, type=int),
                       per_page=PER_PAGE, error_out=False)
    lang = current_language()
    return render_template("patrol/list.html", page=page, checks=[check_view(c, [], lang) for c in page.items])


@bp.route("/patrullas/<int:check_id>")
@require_page()
def check_page(check_id):
    """One patrol check: the craft, where and when, each item with its article and answer, the outcome, photos."""
    check = get_check_for(current_user, check_id)
    view = check_view(check, photos_of([check.id])[check.id], current_language())
    answers = {a.item_id: a for a in check.answers}
    return render_template("patrol/check.html", check=view, answers=answers, officer=check.officer)
