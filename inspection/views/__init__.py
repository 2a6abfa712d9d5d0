"""HTML pages: Spanish first, plain and fast, from a 360 px phone to a 1280 px tablet."""
from flask import Flask

from ..formats import format_day, format_number
from ..i18n import current_language, gettext
from ..labels import field_label, label
from . import auth, certificates, checklists, dashboard, inspections, pwa, registry, tablet, users


def register_views(app: Flask) -> None:
    """Attach the page blueprints and the template helpers."""
    for module in (auth, registry, certificates, checklists, dashboard, inspections, pwa, tablet, users):
        app.register_blueprint(module.bp)
    app.jinja_env.globals.update(_=gettext, label=lambda kind, value: label(kind, value, current_language()),
                                 field_label=lambda field: field_label(field, current_language()),
                                 lang=current_language)
    app.jinja_env.filters["number"] = lambda value, places=None: format_number(value, places, current_language())
    app.jinja_env.filters["day"] = lambda value, width="long": format_day(value, current_language(), width)
