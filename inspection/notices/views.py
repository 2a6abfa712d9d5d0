"""Notices in the app (/avisos) and the private calendar feed that phones subscribe to without a session."""
from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, url_for
from flask_login import current_user

from inspection.accounts.auth import require_page
from inspection.accounts.feeds import FEED_ROLES, feed_user, renew_feed
from inspection.core.clock import office_now, office_today
from inspection.core.extensions import db
from inspection.core.models import Notice
from inspection.core.readcache import cached
from inspection.i18n.language import current_language
from inspection.i18n.messages import Msg
from inspection.notices.calendars import feed_fingerprint, feed_ics, feed_rows
from inspection.notices.notices import mark_read, notice_view, notices_query
from inspection.web.acts import ask_confirmation, confirmed, report_done

bp = Blueprint("notices", __name__)
PER_PAGE = 30


@bp.route("/avisos")
@require_page()
def notice_list():
    """The user's notices, unread first: the same reminders the daily command emails."""
    page = db.paginate(notices_query(current_user), page=request.args.get("page", 1, type=int), per_page=PER_PAGE,
                       error_out=False)
    lang = current_language()
    return render_template("notices/list.html", page=page, notices=[notice_view(n, lang) for n in page.items])


@bp.route("/avisos/<int:notice_id>/leido", methods=["POST"])
@require_page()
def notice_read(notice_id):
    """Mark one of one's notices read (another user's is not found)."""
    if not mark_read(current_user, office_now(), notice_id) and db.session.scalar(
            db.select(Notice.id).filter_by(id=notice_id, user_id=current_user.id)) is None:
        abort(404)  # not one's own (or none): already-read ones of one's own are fine
    db.session.commit()
    report_done(Msg("Aviso marcado como leído."))
    return redirect(url_for("notices.notice_list"))


@bp.route("/avisos/leidos", methods=["POST"])
@require_page()
def notice_read_all():
    """Mark all of one's notices read."""
    marked = mark_read(current_user, office_now())
    db.session.commit()
    report_done(Msg("Avisos marcados como leídos: {count}.", count=marked))
    return redirect(url_for("notices.notice_list"))


@bp.route("/cuenta/calendario/renovar", methods=["POST"])
@require_page(*FEED_ROLES)
def calendar_renew():
    """Give one's calendar feed a new secret URL, after asking: the old one stops working at once."""
    if not confirmed():
        return ask_confirmation(
            Msg("¿Renovar la dirección de su calendario?"),
            Msg("La dirección actual dejará de funcionar en el acto: los calendarios suscritos a ella dejarán de "
                "actualizarse hasta que se suscriban a la nueva."),
            Msg("Sí, renovar la dirección"), url_for("pages.account", _anchor="calendario"))
    renew_feed(current_user._get_current_object(), office_now())
    db.session.commit()
    report_done(Msg("Dirección renovada: la anterior ya no funciona. Suscríbase de nuevo con esta."))
    return redirect(url_for("pages.account", _anchor="calendario"))


@bp.route("/calendario/<int:user_id>/<secret>.ics")
def calendar_feed(user_id, secret):
    """The private feed: no session (a phone's calendar has none), the URL's secret is the key; else 404."""
    user = feed_user(user_id, secret, current_app.config["SECRET_KEY"])
    if user is None:
        abort(404)
    lang, today, public_url = ("en" if user.language == "en" else "es"), office_today(), current_app.config["PUBLIC_URL"]
    rows = feed_rows(user, today)
    etag = feed_fingerprint(user, rows, lang, public_url, today)
    if request.if_none_match.contains_weak(etag):
        response = Response(status=304)
    else:
        body = cached("calendar_feed", etag, lambda: feed_ics(user, lang, public_url, office_now(), today, rows))
        response = Response(body, mimetype="text/calendar")
    response.set_etag(etag, weak=True)  # weak: the body's DTSTAMP is when this process built it
    response.headers["Content-Disposition"] = 'inline; filename="baliza.ics"'
    response.headers["Cache-Control"] = "private, no-cache"
    return response
