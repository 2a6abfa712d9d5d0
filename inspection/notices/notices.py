"""Notices: a reminder kept once per recipient, kind, subject and date, emailed when it can be and read in the app.

Delivery is at least once. The row is inserted first (the unique key settles two runs at once: only
the inserter's run may claim it), then claimed with an atomic UPDATE (a lease of CLAIM_LEASE), sent,
and marked sent. A failed send releases the claim and records the error, so the next run retries it
(up to MAX_ATTEMPTS). Only a crash between the server accepting the message and the mark being
committed sends it twice, after the lease: a reminder lost costs an owner the $1,000 fine of art. 225,
a duplicate costs nothing.
"""
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from sqlalchemy import func, or_, update
from sqlalchemy.dialects import postgresql, sqlite

from inspection.core.extensions import db
from inspection.core.models import Notice, User
from inspection.i18n.formats import format_day, format_money
from inspection.i18n.messages import N_, translate
from inspection.notices.mail import Mailer, MailSettings, compose

CLAIM_LEASE = timedelta(minutes=15)  # a run that died holding a claim releases it after this
MAX_ATTEMPTS = 5  # daily runs: a mailbox that refuses for five days is left to the in-app list

KIND_NAMES = {"navegabilidad": N_("Navegabilidad"), "seguridad": N_("Seguridad")}

# kind: (subject, body). Values in `params`; *_on are dates, amount a number, kind a certificate kind.
TEXTS = {
    "apply_by": (
        N_("{vessel}: quedan {days} días para solicitar la inspección de {kind}"),
        N_("El certificado de {kind} N.º {number} del buque {vessel} ({registration}) vence el {valid_until_on}. "
           "Solicite la próxima inspección a más tardar el {apply_by_on} ({articles}); una solicitud posterior "
           "lleva multa."),
    ),
    "expired": (
        N_("{vessel}: venció el certificado de {kind}"),
        N_("El certificado de {kind} N.º {number} del buque {vessel} ({registration}) venció el {valid_until_on}. "
           "Sin certificado vigente el buque no puede navegar; solicite la inspección en la Prefectura."),
    ),
    "deficiency_due": (
        N_("{vessel}: una deficiencia vence el {due_on}"),
        N_("La deficiencia «{description}» ({source}, art. {article}) del buque {vessel} ({registration}) debe "
           "subsanarse a más tardar el {due_on}. Comunique la corrección desde la página del buque."),
    ),
    "suspended": (
        N_("{vessel}: certificado de {kind} suspendido"),
        N_("El certificado de {kind} N.º {number} del buque {vessel} ({registration}) está suspendido desde el "
           "{suspended_on}. Motivo: {reason}"),
    ),
    "revoked": (
        N_("{vessel}: certificado de {kind} revocado"),
        N_("El certificado de {kind} N.º {number} del buque {vessel} ({registration}) fue revocado el {revoked_on} "
           "y ya no ampara al buque: no puede navegar con él. Motivo: {reason}. Solicite una nueva inspección para "
           "obtener otro certificado."),
    ),
    "detained": (
        N_("{vessel}: buque detenido"),
        N_("El buque {vessel} ({registration}) está detenido desde el {decided_on} y sus certificados quedan "
           "suspendidos mientras dure la detención (art. 208). Motivo: {reason}"),
    ),
    "fine": (
        N_("{vessel}: multa por no solicitar a tiempo la inspección de {kind}"),
        N_("Se aplicó al buque {vessel} ({registration}) una multa de {amount} ({source}, art. {article}). "
           "{reason}"),
    ),
    "assignment": (
        N_("Nueva inspección asignada: {vessel}, {scheduled_on}"),
        N_("Se le asignó la inspección de {kind} del buque {vessel} ({registration}) el {scheduled_on} en {port}."),
    ),
    "cancelled": (
        N_("Inspección cancelada: {vessel}, {scheduled_on}"),
        N_("Se canceló la inspección de {kind} del buque {vessel} ({registration}) que tenía asignada el "
           "{scheduled_on} en {port}. Motivo: {reason}. No necesita ir a bordo."),
    ),
    "patrol_retention": (
        N_("Retención por la patrulla: {craft}"),
        N_("El agente {officer} retuvo la embarcación {craft} {name} en {place} ({cited}). Vea el control de "
           "patrulla y decida sobre la retención."),
    ),
    "inspection_cancelled": (
        N_("{vessel}: se canceló la inspección de {kind} del {scheduled_on}"),
        N_("La Prefectura canceló la inspección de {kind} del buque {vessel} ({registration}) programada para el "
           "{scheduled_on} en {port}. Motivo: {reason}. En su flota verá cuándo corresponde la próxima."),
    ),
}
# The apply_by subject on its last days, where "quedan {days} días" would read wrong.
LAST_DAYS = {0: N_("{vessel}: hoy es el último día para solicitar la inspección de {kind}"),
             1: N_("{vessel}: queda 1 día para solicitar la inspección de {kind}")}
ARTICLES = {"seguridad": N_("Ley 928, arts. 222 y 225"), "navegabilidad": N_("Ley 928, art. 204")}
FOOTER = N_("Vea todos sus avisos en {url}. Mensaje automático de Baliza; no lo responda.")


def text_kind(kind: str) -> str:
    """The TEXTS entry of a notice kind (apply_by_30 and apply_by_7 share one)."""
    return "apply_by" if kind.startswith("apply_by_") else kind


def _values(params: dict, lang: str) -> dict:
    """The params as the reader reads them: dates in words, amounts as the locale writes money, kinds named."""
    values = {}
    for name, value in params.items():
        if name.endswith("_on"):
            value = format_day(value, lang)
        elif name == "amount":
            value = format_money(value, lang)
        elif name == "kind":
            value = translate(KIND_NAMES.get(value, value), lang).lower()
        elif name == "articles":
            value = translate(ARTICLES.get(value, value), lang)
        values[name] = value
    return values


def render(kind: str, params: dict, lang: str) -> tuple[str, str]:
    """(subject, body) of a notice in `lang`."""
    subject, body = TEXTS[text_kind(kind)]
    if text_kind(kind) == "apply_by":
        subject = LAST_DAYS.get(params.get("days"), subject)
    if lang == "en" and "reason_en" in params:  # a fine's reason is recorded in both languages
        params = {**params, "reason": params["reason_en"]}
    values = _values(params, lang)
    return capitalized(translate(subject, lang).format(**values)), translate(body, lang).format(**values)


def capitalized(text: str) -> str:
    """The text with its first letter upper-case ("{kind} inspection" in English starts with a kind)."""
    return text[:1].upper() + text[1:]


def notice_view(notice: Notice, lang: str) -> dict:
    """A notice as the /avisos page lists it."""
    subject, body = render(notice.kind, notice.params, lang)
    return {"id": notice.id, "subject": subject, "body": body, "kind": notice.kind, "subject_id": notice.subject_id,
            "due_on": notice.due_on,
            "created_on": notice.created_on, "read": notice.read_at is not None, "vessel_id": notice.vessel_id}


# --- in the app ------------------------------------------------------------------------------------

def notices_query(user: User):
    """The user's own notices, unread first, newest first."""
    return (db.select(Notice).where(Notice.user_id == user.id)
            .order_by(Notice.read_at.is_not(None), Notice.created_on.desc(), Notice.id.desc()))


def unread_count(user: User) -> int:
    """How many of the user's notices are unread: the header's one query."""
    return db.session.scalar(db.select(func.count()).select_from(Notice)
                             .where(Notice.user_id == user.id, Notice.read_at.is_(None)))


def mark_read(user: User, now: datetime, notice_id: int | None = None) -> int:
    """Mark one of the user's notices read (or all of them with no id); another's is untouched. How many changed."""
    statement = update(Notice).where(Notice.user_id == user.id, Notice.read_at.is_(None)).values(read_at=now)
    if notice_id is not None:
        statement = statement.where(Notice.id == notice_id)
    return db.session.execute(statement).rowcount


# --- recording and sending -------------------------------------------------------------------------

@dataclass(frozen=True)
class Draft:
    """A notice a rule says is due today: who, what, about which record and date, with its text's values."""

    user_id: int
    kind: str
    subject_id: int
    due_on: date
    vessel_id: int | None
    params: dict = field(default_factory=dict, hash=False, compare=False)


def record_notices(drafts: list[Draft], addresses: dict[int, str | None], today: date, now: datetime) -> int:
    """Insert the drafts not recorded yet (ON CONFLICT DO NOTHING on the notice key); how many were new.

    `addresses` maps a user to the email address to send to (None: in-app only).
    """
    if not drafts:
        return 0
    insert = postgresql.insert if db.engine.dialect.name == "postgresql" else sqlite.insert
    rows = [{"user_id": d.user_id, "kind": d.kind, "subject_id": d.subject_id, "due_on": d.due_on,
             "vessel_id": d.vessel_id, "params": d.params, "created_on": today, "created_at": now,
             "email_to": addresses.get(d.user_id), "attempts": 0} for d in dict.fromkeys(drafts)]
    new = 0
    for start in range(0, len(rows), 500):
        result = db.session.execute(insert(Notice).values(rows[start:start + 500]).on_conflict_do_nothing(
            index_elements=["user_id", "kind", "subject_id", "due_on"]).returning(Notice.id))
        new += len(result.all())
    return new


def _claim(notice_id: int, now: datetime) -> bool:
    """Take the notice for this run (one atomic UPDATE, committed): False when another run holds or sent it."""
    claimed = db.session.execute(
        update(Notice).where(Notice.id == notice_id, Notice.sent_at.is_(None),
                             or_(Notice.claimed_at.is_(None), Notice.claimed_at < now - CLAIM_LEASE))
        .values(claimed_at=now, attempts=Notice.attempts + 1)).rowcount == 1
    db.session.commit()
    return claimed


def deliver_notices(settings: MailSettings, public_url: str, now: datetime) -> tuple[int, int]:
    """Email every unsent notice that has an address, each committed on its own; (sent, failed)."""
    pending = db.session.execute(
        db.select(Notice.id, Notice.kind, Notice.params, Notice.email_to, User.language)
        .join(User, User.id == Notice.user_id)
        .where(Notice.sent_at.is_(None), Notice.email_to.is_not(None), Notice.attempts < MAX_ATTEMPTS)
        .order_by(Notice.id)).all()
    db.session.commit()
    sent = failed = 0
    with Mailer(settings) as mailer:
        for row in pending:
            if not _claim(row.id, now):
                continue
            lang = "en" if row.language == "en" else "es"
            subject, body = render(row.kind, row.params, lang)
            body += "\n\n" + translate(FOOTER, lang).format(url=f"{public_url}/avisos")
            try:
                mailer.send(compose(settings, row.email_to, subject, body, lang))
            except Exception as error:  # noqa: BLE001 (any failure leaves the notice for the next run)
                db.session.execute(update(Notice).where(Notice.id == row.id)
                                   .values(claimed_at=None, last_error=f"{type(error).__name__}: {error}"[:300]))
                failed += 1
            else:
                db.session.execute(update(Notice).where(Notice.id == row.id).values(sent_at=now, last_error=None))
                sent += 1
            db.session.commit()
    return sent, failed
