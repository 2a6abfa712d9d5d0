"""Stamps: every write of a stamped kind redraws its stamp in the writing transaction, and nothing else does."""
from datetime import date, timedelta

from sqlalchemy import update

from inspection.accounts.auth import issue_token
from inspection.certificates.keys import create_signing_key
from inspection.core.models import ApiToken, Detention, Vessel, utcnow
from inspection.core.readcache import data_stamp


def stamps():
    """Both stamps as the database holds them now (outside a request nothing is remembered)."""
    return data_stamp("registry"), data_stamp("access")


def verdict_stamps():
    """The stamps a kept police verdict is keyed on, and the registry's, as the database holds them now."""
    return data_stamp("keys"), data_stamp("certificates"), data_stamp("registry")


def test_a_vessel_written_any_way_redraws_the_registry_stamp_only(app, db, make_vessel):
    vessel = make_vessel()
    registry, access = stamps()
    vessel.name = "Renombrado"
    db.session.commit()
    assert stamps()[0] != registry and stamps()[1] == access
    registry = stamps()[0]
    db.session.execute(update(Vessel).where(Vessel.id == vessel.id).values(crew=9))  # a bulk write, no flush
    db.session.commit()
    assert stamps()[0] != registry
    registry = stamps()[0]
    vessel.name = "Otra vez"
    db.session.flush()
    db.session.rollback()  # the stamp goes with the write it stamps
    assert stamps()[0] == registry


def test_a_new_token_and_its_use_redraw_nothing_and_a_revocation_does(app, db, client, make_user):
    user = make_user("inspector")
    before = stamps()
    token, _ = issue_token(user, utcnow(), "Tableta 1")
    db.session.commit()
    earlier = utcnow() - timedelta(minutes=5)
    db.session.execute(update(ApiToken).values(last_used_at=earlier).execution_options(unstamped=True))
    db.session.commit()
    assert client.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert db.session.scalar(db.select(ApiToken.last_used_at)) > earlier  # the request wrote its use
    assert stamps() == before  # a sign-in and a touch decide no access
    db.session.execute(update(ApiToken).values(revoked_at=utcnow()))
    db.session.commit()
    assert stamps()[1] != before[1] and stamps()[0] == before[0]


def test_a_request_that_wrote_reads_the_stamp_its_own_transaction_drew(app, db, make_vessel):
    vessel = make_vessel()
    with app.test_request_context("/"):
        before = data_stamp("registry")  # read below the ORM, outside any transaction
        vessel.name = "Cambiado"
        db.session.flush()  # not committed: only this transaction sees the new stamp
        assert data_stamp("registry") != before
        db.session.rollback()


def test_keys_and_the_records_of_a_verdict_redraw_their_own_stamps(app, db, records, make_vessel, make_user):
    vessel, inspector = make_vessel(), make_user("inspector")
    db.session.commit()
    before = verdict_stamps()
    create_signing_key("PGP", utcnow())
    db.session.commit()
    keys = verdict_stamps()
    assert keys[0] != before[0] and keys[1:] == before[1:]
    certificate = records["certificate"](vessel, inspector, "seguridad", date(2026, 11, 20), date(2027, 5, 20))
    db.session.commit()
    issued = verdict_stamps()
    assert issued[1] != keys[1] and (issued[0], issued[2]) == keys[::2]
    db.session.add(Detention(vessel_id=vessel.id, reason="Vía de agua", decided_by_id=inspector.id))
    db.session.commit()
    assert verdict_stamps()[1] != issued[1]
    detained = verdict_stamps()[1]
    certificate.revoked_at = utcnow()
    db.session.commit()
    assert verdict_stamps()[1] != detained
