"""The daily run: the art. 225 sweep and the reminders, through a real SMTP server (aiosmtpd) on loopback.

Fixed dates: the seguridad certificate of 30 Nov 2026 runs to 30 May 2027 and is applied for by 30 Apr
2027 (arts. 211, 222); the reminders fall on 31 Mar (30 days) and 23 Apr (7 days), expiry on 31 May.
"""
import threading
from datetime import date, datetime, timedelta, timezone

import pytest

from inspection.core.clock import office_zone
from inspection.core.extensions import db
from inspection.core.models import FineAssessment, Notice
from inspection.cycle.applications import apply_for_inspection, waive_fine
from inspection.inspections.operations import cancel_inspection, schedule_inspection
from inspection.notices.mail import MailSettings
from inspection.notices.reminders import apply_by_kind, deficiency_due, expiry_due, run_reminders, sweep_fines
from tests.conftest import TEST_DATABASE_URL, free_port

APPLY_BY, VALID_UNTIL = date(2027, 4, 30), date(2027, 5, 30)
NOW = datetime(2027, 3, 31, 11, 0, tzinfo=timezone.utc)
URL = "https://baliza.test"


@pytest.fixture
def fleet(make_owner, make_user, make_vessel, certify, staff):
    """An owner (mail to the armador's address) with a Spanish and an English user, and a certified vessel."""
    owner = make_owner(email="flota@armador.test")
    es = make_user("owner", owner_id=owner.id)
    en = make_user("owner", owner_id=owner.id, language="en", email="captain@armador.test")
    vessel = make_vessel(owner_id=owner.id)
    certificate = certify(vessel)
    return {"owner": owner, "es": es, "en": en, "vessel": vessel, "certificate": certificate, **staff}


NOON = datetime(2027, 3, 31, 15, 0, tzinfo=timezone.utc)


def run(day, settings=None):
    return run_reminders(day, datetime.combine(day, datetime.min.time(), timezone.utc) + timedelta(hours=12),
                         office_zone(), settings, URL)


def received(inbox):
    return [(to, message["Subject"], message.get_content().replace("\r\n", "\n")) for to, message in inbox.messages]


# --- the rules ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("today, kind", [
    (date(2027, 3, 30), None),             # 31 days before: nothing yet
    (date(2027, 3, 31), "apply_by_30"),    # 30 days before apply_by
    (date(2027, 4, 22), "apply_by_30"),    # a missed 30-day reminder is still sent, until...
    (date(2027, 4, 23), "apply_by_7"),     # ...the 7-day one takes over
    (APPLY_BY, "apply_by_7"),              # apply_by itself is in time (art. 222)
    (date(2027, 5, 1), None),              # late: the expiry notice and the fine follow
])
def test_the_apply_by_reminders_hold_over_their_window(today, kind):
    assert apply_by_kind(APPLY_BY, today) == kind


@pytest.mark.parametrize("due_on, today, due", [
    (date(2027, 1, 10), date(2027, 1, 6), False), (date(2027, 1, 10), date(2027, 1, 7), True),
    (date(2027, 1, 10), date(2027, 1, 10), True), (date(2027, 1, 10), date(2027, 1, 11), False),
    (None, date(2027, 1, 7), False),
])
def test_the_deficiency_reminder_runs_from_three_days_before_to_the_due_date(due_on, today, due):
    assert deficiency_due(due_on, today) is due


@pytest.mark.parametrize("today, due", [(VALID_UNTIL, False), (date(2027, 5, 31), True), (date(2028, 1, 1), True)])
def test_the_expiry_notice_starts_the_day_after_the_last_valid_day(today, due):
    assert expiry_due(VALID_UNTIL, today) is due


# --- the run, through SMTP -----------------------------------------------------------------------------

def test_the_cycle_of_reminders_is_emailed_once_in_each_language(fleet, smtp):
    settings, inbox = smtp
    result = run(date(2027, 3, 31), settings)
    assert (result.notices, result.sent, result.failed) == (2, 2, 0)
    mails = dict((to[0], (subject, body)) for to, subject, body in received(inbox))
    subject, body = mails["flota@armador.test"]  # the Spanish user has no address: the armador's
    vessel = fleet["vessel"].name
    assert subject == f"{vessel}: quedan 30 días para solicitar la inspección de seguridad"
    assert "a más tardar el 30 de abril de 2027 (Ley 928, arts. 222 y 225)" in body
    assert "https://baliza.test/avisos" in body
    subject, body = mails["captain@armador.test"]
    assert subject == f"{vessel}: 30 days left to apply for the safety inspection"
    assert "by April 30, 2027 (Law 928, arts. 222 and 225)" in body
    assert inbox.messages[0][1]["Auto-Submitted"] == "auto-generated"

    assert run(date(2027, 3, 31), settings).notices == 0  # the same day again: nothing new, nothing sent
    assert run(date(2027, 4, 1), settings).sent == 0       # the next day: the 30-day notice is not repeated
    assert len(inbox.messages) == 2

    run(date(2027, 4, 23), settings)
    assert [s for _, s, _ in received(inbox)[2:]].count(f"{vessel}: quedan 7 días para solicitar la inspección "
                                                         "de seguridad") == 1
    assert len(inbox.messages) == 4

    expired = run(date(2027, 5, 31), settings)  # no application: expiry, and the art. 225 fine once
    assert expired.fines == 1
    fine = db.session.scalar(db.select(FineAssessment))
    assert (fine.article, fine.amount, fine.code, fine.assessed_on) == ("225", 1000, "late_application",
                                                                        date(2027, 5, 31))
    subjects = [s for to, s, _ in received(inbox)[4:] if to == ["flota@armador.test"]]
    assert sorted(subjects) == sorted([f"{vessel}: venció el certificado de seguridad",
                                       f"{vessel}: multa por no solicitar a tiempo la inspección de seguridad"])
    assert run(date(2027, 6, 1), settings).fines == 0  # "por cada vencimiento": never assessed twice
    assert db.session.scalar(db.select(db.func.count()).select_from(FineAssessment)) == 1
    assert len(inbox.messages) == 8


def test_a_run_after_missed_days_catches_up_once(fleet, smtp):
    settings, inbox = smtp
    run(date(2027, 4, 10), settings)  # the 31 Mar run never happened
    assert [kind for kind, in db.session.execute(db.select(Notice.kind).distinct())] == ["apply_by_30"]
    subjects = sorted(subject for _, subject, _ in received(inbox))  # one owner user reads Spanish, one English
    assert len(subjects) == 2 and "quedan 20 días" in subjects[1] and "20 days left" in subjects[0]
    run(date(2027, 4, 26), settings)  # 23 Apr missed too: the 7-day notice, not the 30-day one again
    run(date(2027, 4, 27), settings)
    kinds = sorted(kind for kind, in db.session.execute(db.select(Notice.kind).where(Notice.user_id == fleet["es"].id)))
    assert kinds == ["apply_by_30", "apply_by_7"]
    assert len(inbox.messages) == 4


def test_an_application_silences_the_reminders_and_the_sweep(fleet, smtp):
    settings, inbox = smtp
    apply_for_inspection(fleet["es"], fleet["vessel"], "seguridad", "Asunción", date(2027, 4, 20), date(2027, 3, 20))
    db.session.commit()
    assert run(date(2027, 3, 31), settings).notices == 0
    assert run(date(2027, 4, 23), settings).notices == 0
    assert run(date(2027, 5, 31), settings).fines == 0  # applied in time: no art. 225 fine
    assert [kind for kind, in db.session.execute(db.select(Notice.kind))] == ["expired", "expired"]  # both users
    assert len(inbox.messages) == 2


def test_a_waived_fine_is_not_notified(fleet, smtp):
    settings, inbox = smtp
    [fine] = sweep_fines(date(2027, 5, 31), NOW)
    waive_fine(fleet["admin"], fine, "Varado por bajante; no podía navegar.", NOW)
    db.session.commit()
    run(date(2027, 5, 31), settings)
    assert not [s for _, s, _ in received(inbox) if "multa" in s]


def test_inspectors_get_their_new_assignments_once(fleet, smtp, make_user):
    settings, inbox = smtp
    inspector = make_user("inspector", email="insp@prefectura.test", language="en")
    inspection = schedule_inspection(fleet["admin"], fleet["vessel"], "navegabilidad", inspector, date(2027, 4, 5),
                                     "Concepción", date(2027, 3, 31))
    db.session.commit()
    run(date(2027, 3, 31), settings)
    run(date(2027, 4, 1), settings)
    mine = [(s, body) for to, s, body in received(inbox) if to == ["insp@prefectura.test"]]
    assert mine == [(f"New inspection assigned: {fleet['vessel'].name}, April 5, 2027",
                     f"You have been assigned the navigability inspection of vessel {fleet['vessel'].name} "
                     f"({fleet['vessel'].registration}) on April 5, 2027 in Concepción.\n\n"
                     "See all your notices at https://baliza.test/avisos. Automatic message from Baliza; "
                     "do not reply.\n")]
    inspection.scheduled_on = date(2027, 4, 8)  # rescheduled: a new notice for the new date
    db.session.commit()
    run(date(2027, 4, 2), settings)
    assert len([1 for to, _, _ in received(inbox) if to == ["insp@prefectura.test"]]) == 2


def test_an_inspector_told_of_an_assignment_hears_once_that_someone_else_cancelled_it(fleet, smtp, make_user,
                                                                                      make_vessel):
    settings, inbox = smtp
    inspector = make_user("inspector", email="insp@prefectura.test")
    planned = [schedule_inspection(fleet["admin"], fleet["vessel"], kind, inspector, date(2027, 4, 5), "Concepción",
                                   date(2027, 3, 31)) for kind in ("navegabilidad", "seguridad")]
    untold = schedule_inspection(fleet["admin"], make_vessel(owner_id=fleet["owner"].id), "seguridad", inspector, date(2027, 4, 6),
                                 "Concepción", date(2027, 3, 31))
    cancel_inspection(fleet["admin"], untold, "Mal agendada", NOON)  # before any run: the inspector never knew
    db.session.commit()
    run(date(2027, 3, 31), settings)
    cancel_inspection(fleet["admin"], planned[0], "El buque está en dique seco.", NOON)
    cancel_inspection(inspector, planned[1], "Me toca otra zona", NOON)  # the inspector's own: nothing to tell
    db.session.commit()
    run(date(2027, 4, 1), settings)
    run(date(2027, 4, 2), settings)
    mine = [(s, body) for to, s, body in received(inbox) if to == ["insp@prefectura.test"]]
    vessel = fleet["vessel"]
    assert len(mine) == 3 and mine[2] == (
        f"Inspección cancelada: {vessel.name}, 5 de abril de 2027",
        f"Se canceló la inspección de navegabilidad del buque {vessel.name} ({vessel.registration}) que tenía "
        "asignada el 5 de abril de 2027 en Concepción. Motivo: El buque está en dique seco. No necesita ir a "
        "bordo.\n\nVea todos sus avisos en https://baliza.test/avisos. Mensaje automático de Baliza; no lo "
        "responda.\n")


def test_the_owner_hears_once_in_their_language_that_the_prefectura_cancelled_a_scheduled_inspection(fleet, smtp):
    settings, inbox = smtp
    past = schedule_inspection(fleet["admin"], fleet["vessel"], "navegabilidad", fleet["inspector"], date(2027, 3, 20),
                               "Asunción", date(2027, 3, 1))
    coming = schedule_inspection(fleet["admin"], fleet["vessel"], "seguridad", fleet["inspector"], date(2027, 4, 5),
                                 "Concepción", date(2027, 3, 31))
    cancel_inspection(fleet["admin"], past, "Mal agendada", NOON)  # its date has gone: nothing to tell
    cancel_inspection(fleet["admin"], coming, "El buque está en dique seco.", NOON)
    db.session.commit()
    run(date(2027, 3, 31), settings)
    run(date(2027, 4, 1), settings)
    vessel = fleet["vessel"]
    told = [(to, subject, body.split("\n\n")[0]) for to, subject, body in received(inbox) if "cancel" in subject]
    assert told == [
        (["flota@armador.test"], f"{vessel.name}: se canceló la inspección de seguridad del 5 de abril de 2027",
         f"La Prefectura canceló la inspección de seguridad del buque {vessel.name} ({vessel.registration}) "
         "programada para el 5 de abril de 2027 en Concepción. Motivo: El buque está en dique seco. En su flota verá "
         "cuándo corresponde la próxima."),
        (["captain@armador.test"], f"{vessel.name}: the safety inspection of April 5, 2027 was cancelled",
         f"The Prefectura cancelled the safety inspection of {vessel.name} ({vessel.registration}) scheduled for "
         "April 5, 2027 in Concepción. Reason: El buque está en dique seco. Your fleet page shows when the next one "
         "is due.")]


def test_a_failed_send_is_retried_by_the_next_run(fleet, smtp):
    settings, inbox = smtp
    down = MailSettings("127.0.0.1", free_port(), settings.sender, timeout=2)  # nothing listens there
    result = run(date(2027, 3, 31), down)
    assert (result.notices, result.sent, result.failed) == (2, 0, 2)
    notice = db.session.scalar(db.select(Notice).limit(1))
    assert notice.sent_at is None and notice.claimed_at is None and "Connection" in notice.last_error
    retry = run(date(2027, 4, 1), settings)
    assert (retry.notices, retry.sent) == (0, 2)
    assert len(inbox.messages) == 2


def test_without_smtp_the_notices_are_only_in_the_app(fleet, smtp):
    _, inbox = smtp
    result = run(date(2027, 3, 31), None)
    assert (result.notices, result.sent) == (2, 0)
    assert db.session.scalar(db.select(db.func.count()).where(Notice.email_to.is_not(None))) == 0
    assert inbox.messages == []


def test_the_unique_key_settles_two_runs_recording_the_same_notice(fleet):
    from inspection.notices.notices import Draft, _claim, record_notices

    draft = Draft(fleet["es"].id, "apply_by_30", fleet["certificate"].id, APPLY_BY, fleet["vessel"].id, {})
    assert record_notices([draft], {fleet["es"].id: "x@armador.test"}, date(2027, 3, 31), NOW) == 1
    assert record_notices([draft], {fleet["es"].id: "x@armador.test"}, date(2027, 3, 31), NOW) == 0
    notice = db.session.scalar(db.select(Notice))
    assert _claim(notice.id, NOW) is True
    assert _claim(notice.id, NOW + timedelta(minutes=1)) is False  # another run holds it
    assert _claim(notice.id, NOW + timedelta(minutes=20)) is True  # a dead run's lease has run out


def test_the_command_runs_for_a_given_day(fleet, smtp, runner, app, monkeypatch):
    settings, inbox = smtp
    for name, value in {"SMTP_HOST": settings.host, "SMTP_PORT": settings.port, "MAIL_FROM": settings.sender}.items():
        monkeypatch.setitem(app.config, name, value)
    result = runner.invoke(args=["reminders", "send", "--today", "2027-03-31"])
    assert result.exit_code == 0, result.output
    assert "2027-03-31: 0 multas aplicadas, 2 avisos nuevos; 2 correos enviados" in result.output
    assert runner.invoke(args=["reminders", "send", "--today", "31/03/2027"]).exit_code == 2


@pytest.mark.skipif(not (TEST_DATABASE_URL or "").startswith("postgresql"),
                    reason="needs PostgreSQL (BALIZA_TEST_DATABASE_URL): SQLite serializes writers")
def test_four_runs_at_once_send_each_notice_once(app, fleet, smtp):
    """Race it: four commands for the same day, released together by a barrier, on PostgreSQL."""
    settings, inbox = smtp
    day = date(2027, 5, 31)  # expiry: the sweep's fine and two notices per user, all raced
    barrier, results, errors = threading.Barrier(4), [], []

    def one():
        with app.app_context():
            barrier.wait()
            try:
                results.append(run(day, settings))
            except Exception as error:  # noqa: BLE001
                errors.append(error)
            finally:
                db.session.remove()

    db.session.remove()
    threads = [threading.Thread(target=one) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    assert sum(r.fines for r in results) == 1 and sum(r.sent for r in results) == 4
    assert sorted(to[0] for to, _ in inbox.messages) == ["captain@armador.test"] * 2 + ["flota@armador.test"] * 2
    assert db.session.scalar(db.select(db.func.count()).select_from(FineAssessment)) == 1


def test_a_revoked_certificate_is_notified_to_the_owner_once_in_each_language(fleet, smtp):
    """Issue 21: a revocation was silent (no notice kind); the owner learns of it and what to do."""
    from inspection.certificates.operations import revoke_certificate

    settings, inbox = smtp
    revoke_certificate(fleet["admin"], fleet["certificate"], "Documentación falsa.",
                       datetime(2027, 3, 2, 14, 0, tzinfo=timezone.utc))
    db.session.commit()
    assert run(date(2027, 3, 3), settings).notices == 2
    mails = dict((to[0], (subject, body)) for to, subject, body in received(inbox))
    vessel, number = fleet["vessel"].name, fleet["certificate"].number
    subject, body = mails["flota@armador.test"]
    assert subject == f"{vessel}: certificado de seguridad revocado"
    assert f"N.º {number}" in body and "fue revocado el 2 de marzo de 2027" in body
    assert "Motivo: Documentación falsa. Solicite una nueva inspección" in body
    subject, body = mails["captain@armador.test"]
    assert subject == f"{vessel}: safety certificate revoked"
    assert "was revoked on March 2, 2027" in body and "apply for a new inspection" in body
    assert run(date(2027, 3, 31), settings).notices == 0  # once; and no reminder to renew what is revoked
    assert {n.kind for n in db.session.scalars(db.select(Notice))} == {"revoked"}
