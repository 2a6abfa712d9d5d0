"""The caller's private iCalendar feed: its URL (renewed on the account page)."""
from flask import current_app

from inspection.accounts.auth import api_user, require
from inspection.accounts.feeds import FEED_ROLES, feed_url
from inspection.notices.schemas import CalendarSchema
from inspection.web.api_common import Blueprint

blp = Blueprint("api_calendar", __name__, description="Calendario privado (iCalendar) de vencimientos e inspecciones")


@blp.route("/calendar")
@blp.response(200, CalendarSchema)
@require(*FEED_ROLES)
def get_calendar():
    """The caller's private .ics feed URL (owners: their fleet's due dates; inspectors: their inspections)."""
    config = current_app.config
    return {"url": feed_url(api_user(), config["SECRET_KEY"], config["PUBLIC_URL"])}
