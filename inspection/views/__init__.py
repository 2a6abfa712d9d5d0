"""HTML pages: Spanish first, plain and fast, from a 360 px phone to a 1280 px tablet."""
from flask import Flask

from ..formats import format_day, format_number
from ..i18n import current_language, gettext
from ..labels import field_label, label
from . import (auth, certificates, checklists, dashboard, fleet, health, inspections, notices, planning, pwa, registry,
               tablet, users)


def _unread_notices() -> int:
    """The signed-in user's unread notices for the header: one count query per page, none when anonymous."""
    from flask import request
    from flask_login import current_user

    from ..notices import unread_count

    if not current_user.is_authenticated:
        return 0
    cache = request.environ  # per request (`g` lives as long as the app context)
    if "baliza.unread_notices" not in cache:
        cache["baliza.unread_notices"] = unread_count(current_user)
    return cache["baliza.unread_notices"]


def register_views(app: Flask) -> None:
    """Attach the page blueprints and the template helpers."""
    for module in (auth, registry, fleet, certificates, checklists, dashboard, health, inspections, notices, planning,
                   pwa, tablet, users):
        app.register_blueprint(module.bp)
    app.jinja_env.globals.update(_=gettext, label=lambda kind, value: label(kind, value, current_language()),
                                 field_label=lambda field: field_label(field, current_language()),
                                 lang=current_language, unread_notices=_unread_notices)
    app.jinja_env.filters["number"] = lambda value, places=None: format_number(value, places, current_language())
    app.jinja_env.filters["day"] = lambda value, width="long": format_day(value, current_language(), width)
