"""Two app servers (separate gunicorn processes, one PostgreSQL, one SeaweedFS bucket, one key folder) behave as one.

Requests alternate between the instances A and B as a load balancer would send them; racing retries
are released together by a barrier. State is seeded with the operations in this process.
"""
import hashlib
import threading
import uuid

import pytest
import requests

from bench.seaweed import new_bucket
from inspection.accounts.auth import issue_token
from inspection.certificates.keys import create_signing_key, key_set
from inspection.certificates.numbering import CertificateNumber, parse_number
from inspection.certificates.status_list import REVOKED, VALID, verify_status_list
from inspection.core.clock import office_now, office_today
from inspection.core.models import Answer, Certificate, ClientRequest, Photo
from inspection.inspections.operations import schedule_inspection, start_inspection
from tests.conftest import PASSWORD, TEST_DATABASE_URL, pass_and_close, pass_every_item
from tests.instances import csrf_token, instance_config, instances
from tests.media_samples import SIGNATURES, encode, noisy_image
from tests.tablet_rig import wait_until

pytestmark = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"),
    reason="needs PostgreSQL (BALIZA_TEST_DATABASE_URL): several servers share one server database")


@pytest.fixture(scope="module")
def bucket(seaweed):
    """The one bucket both instances store photos in, for the whole module."""
    return new_bucket(seaweed)


@pytest.fixture(scope="module")
def pair(_app, bucket):
    """Instances A and B for the whole module, on the test app's database and on `bucket`."""
    with instances(2, instance_config(_app, bucket), bucket.env()) as servers:
        yield [server.url for server in servers]


@pytest.fixture
def team(app, make_user, make_vessel, db):
    """An admin, an inspector with a bearer token, a vessel and the office's signing key."""
    admin, inspector = make_user("admin"), make_user("inspector")
    create_signing_key(app.config["OFFICE_CODE"], office_now())
    raw, _ = issue_token(inspector, office_now())
    admin_raw, _ = issue_token(admin, office_now())
    db.session.commit()
    return {"admin": admin, "inspector": inspector, "vessel": make_vessel(),
            "ih": {"Authorization": f"Bearer {raw}"}, "ah": {"Authorization": f"Bearer {admin_raw}"}}


def started(team, db, vessel=None):
    """A started seguridad inspection of today (operations): (id, items)."""
    today = office_today()
    inspection = schedule_inspection(team["admin"], vessel or team["vessel"], "seguridad", team["inspector"], today,
                                     "Asunción", today)
    start_inspection(team["inspector"], inspection, office_now())
    db.session.commit()
    return inspection.id, inspection.items


def at_once(calls) -> list:
    """Run each call in its own thread, released together; their responses in order."""
    barrier, results = threading.Barrier(len(calls)), [None] * len(calls)

    def run(n, call):
        barrier.wait()
        results[n] = call()

    threads = [threading.Thread(target=run, args=(n, call)) for n, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def jpeg(seed: int) -> bytes:
    return encode(noisy_image((64, 48), seed=seed), "JPEG", quality=80)


def entry(item) -> dict:
    body = {"client_id": str(uuid.uuid4()), "item_id": item["id"], "result": "pass"}
    if item["required"] is not None:
        body["observed"] = item["required"]
    return body


# --- who is asking ---------------------------------------------------------------------------------

def test_failed_sign_ins_split_across_both_lock_the_account(pair, make_user):
    user = make_user("inspector")
    wrong = {"username": user.username, "password": "wrong"}
    for n in range(10):
        assert requests.post(f"{pair[n % 2]}/api/v1/auth/token", json=wrong).status_code == 401
    right = {"username": user.username, "password": PASSWORD}
    for url in pair:  # the eleventh attempt, on either server, even with the right password
        answer = requests.post(f"{url}/api/v1/auth/token", json=right)
        assert answer.status_code == 429 and answer.headers["Content-Type"].startswith("application/problem+json")


def test_a_page_session_opened_on_a_is_used_and_ended_across_both(pair, make_user):
    user = make_user("admin")
    browser = requests.Session()
    form = csrf_token(browser.get(f"{pair[0]}/login").text)  # the form from A, posted to B
    signed_in = browser.post(f"{pair[1]}/login", data={"csrf_token": form, "username": user.username,
                                                         "password": PASSWORD}, allow_redirects=False)
    assert signed_in.status_code == 302
    copy = requests.Session()
    copy.cookies.update(browser.cookies)
    for url in pair:
        assert copy.get(f"{url}/cuenta", allow_redirects=False).status_code == 200
    token = csrf_token(browser.get(f"{pair[1]}/cuenta").text)
    assert browser.post(f"{pair[0]}/logout", data={"csrf_token": token}, allow_redirects=False).status_code == 302
    for url in pair:  # the copied cookie died with the logout on A, on B too
        assert copy.get(f"{url}/cuenta", allow_redirects=False).status_code == 302


def test_a_device_token_from_a_works_on_b_until_revoked_on_a(pair, make_user):
    user = make_user("inspector")
    made = requests.post(f"{pair[0]}/api/v1/auth/token",
                         json={"username": user.username, "password": PASSWORD, "device": "Tableta 7"})
    assert made.status_code == 201, made.text
    bearer = {"Authorization": f"Bearer {made.json()['token']}"}
    assert requests.get(f"{pair[1]}/api/v1/auth/me", headers=bearer).json()["user_id"] == user.id
    devices = requests.get(f"{pair[1]}/api/v1/auth/devices", headers=bearer).json()
    assert [d["id"] for d in devices] == [made.json()["device_id"]]
    assert requests.delete(f"{pair[0]}/api/v1/auth/devices/{made.json()['device_id']}", headers=bearer).status_code == 204
    for url in pair:
        assert requests.get(f"{url}/api/v1/auth/me", headers=bearer).status_code == 401


# --- idempotency -----------------------------------------------------------------------------------

def test_one_sync_batch_raced_on_both_applies_each_entry_once(pair, team, db):
    inspection_id, items = started(team, db)
    batch = [entry(item) for item in items[:12]]
    send = [lambda url=url: requests.post(f"{url}/api/v1/inspections/{inspection_id}/sync",
                                          json={"answers": batch}, headers=team["ih"], timeout=60)
            for url in pair * 3]
    answers = at_once(send)
    assert [a.status_code for a in answers] == [200] * 6, [a.text for a in answers]
    for n in range(len(batch)):
        assert sorted(a.json()["results"][n]["status"] for a in answers) == ["applied"] + ["duplicate"] * 5
    db.session.expire_all()
    assert db.session.scalar(db.select(db.func.count(Answer.id)).filter_by(inspection_id=inspection_id)) == 12
    assert db.session.scalar(db.select(db.func.count()).select_from(ClientRequest)) == 12


def photo_objects_in(bucket, photo) -> list[bytes]:
    """The photo's original, display copy and thumbnail as the bucket holds them (MissingKey if one is not there)."""
    store = bucket.storage()
    return [store.get(key) for key in (photo.original_key, photo.display_key, photo.thumb_key)]


def test_one_photo_raced_on_both_is_stored_once(pair, bucket, team, db):
    inspection_id, items = started(team, db)
    item = next(i for i in items if i["evidence_required"])
    data, client_id = jpeg(7), str(uuid.uuid4())

    def send(url):
        return requests.post(f"{url}/api/v1/inspections/{inspection_id}/photos", headers=team["ih"], timeout=60,
                             data={"item_id": item["id"], "client_id": client_id}, files={"file": ("f.jpg", data)})

    answers = at_once([lambda url=url: send(url) for url in pair * 2])
    assert [a.status_code for a in answers] == [201] * 4, [a.text for a in answers]
    assert sorted(a.headers["Idempotent-Replayed"] for a in answers) == ["false", "true", "true", "true"]
    assert len({a.json()["id"] for a in answers}) == 1
    db.session.expire_all()
    photo = db.session.scalars(db.select(Photo).filter_by(inspection_id=inspection_id)).one()
    original, display, thumb = photo_objects_in(bucket, photo)
    assert original == data and display[:2] == thumb[:2] == b"\xff\xd8"  # the copies are JPEGs too
    assert f"{bucket.prefix}/{photo.original_key}" in bucket.objects()


def test_a_resumable_upload_with_chunks_alternating_between_both(pair, bucket, team, db):
    inspection_id, items = started(team, db)
    item = next(i for i in items if i["evidence_required"])
    data, client_id = jpeg(8), str(uuid.uuid4())
    declared = requests.post(f"{pair[1]}/api/v1/inspections/{inspection_id}/uploads", headers=team["ih"], json={
        "client_id": client_id, "item_id": item["id"], "size": len(data), "mime": "image/jpeg",
        "sha256": hashlib.sha256(data).hexdigest()})
    assert declared.status_code == 201, declared.text
    step, offset, n = len(data) // 4 + 1, 0, 0
    while offset < len(data):
        sent = requests.patch(f"{pair[n % 2]}/api/v1/inspections/{inspection_id}/uploads/{client_id}",
                              data=data[offset:offset + step], headers={
                                  **team["ih"], "Upload-Offset": str(offset),
                                  "Content-Type": "application/offset+octet-stream"})
        offset, n = offset + step, n + 1
        assert sent.status_code == (201 if offset >= len(data) else 200), sent.text
        assert int(sent.headers["Upload-Offset"]) == min(offset, len(data))
    state = requests.get(f"{pair[0]}/api/v1/inspections/{inspection_id}/uploads/{client_id}", headers=team["ih"])
    assert state.json()["photo"]["id"] == sent.json()["photo"]["id"]
    photo = db.session.scalars(db.select(Photo)).one()
    assert photo_objects_in(bucket, photo)[0] == data


# --- keys, status lists and counters ---------------------------------------------------------------

def certified(team, vessel=None):
    """A seguridad certificate issued today with the office's current key (operations): (number, token)."""
    today = office_today()
    inspection = schedule_inspection(team["admin"], vessel or team["vessel"], "seguridad", team["inspector"], today,
                                     "Asunción", today)
    certificate = pass_and_close(inspection, team["inspector"], office_now(), today)["certificate"]
    return certificate.number, certificate.token


def verdicts(pair, token) -> list[str]:
    return [requests.get(f"{url}/api/v1/verify/{token}").json()["verdict"] for url in pair]


def status_list(url, app):
    """The status list a server signs, verified with the published keys; (kid, StatusList)."""
    jws = requests.get(f"{url}/api/v1/status-list").json()["jws"]
    checked = verify_status_list(jws, key_set().keys)
    return checked.kid, checked


def test_a_key_made_by_flask_keys_new_is_seen_by_both(pair, team, db, runner, app, make_vessel):
    _, old_token = certified(team)
    assert verdicts(pair, old_token) == ["valid", "valid"]  # both have read (and cached) the first key set
    made = runner.invoke(args=["keys", "new"])  # the command, outside both servers
    assert made.exit_code == 0, made.output
    number, new_token = certified(team, make_vessel())
    new_kid = db.session.scalars(db.select(Certificate.kid).filter_by(number=number)).one()
    assert verdicts(pair, new_token) == ["valid", "valid"]
    assert verdicts(pair, old_token) == ["valid", "valid"]
    published = [requests.get(f"{url}/api/v1/keys").json() for url in pair]
    assert published[0] == published[1] and len(published[0]["keys"]) == 2
    assert [k["kid"] for k in published[0]["keys"] if k["status"] == "current"] == [new_kid]
    assert [status_list(url, app)[0] for url in pair] == [new_kid, new_kid]  # both sign with the new private key


def test_a_revocation_on_a_shows_at_once_in_b_s_status_list_and_within_moments_in_its_verdict(pair, team, db, app):
    number, token = certified(team)
    index = db.session.scalars(db.select(Certificate.status_index).filter_by(number=number)).one()
    assert verdicts(pair, token) == ["valid", "valid"]
    assert status_list(pair[1], app)[1].status_at(index) == VALID
    revoked = requests.post(f"{pair[0]}/api/v1/certificates/{number}/revoke", headers=team["ah"],
                            json={"reason": "Documentación falsa"})
    assert revoked.status_code == 200, revoked.text
    assert status_list(pair[1], app)[1].status_at(index) == REVOKED  # read afresh on every request
    # B's workers keep the verdict under stamps they hear from A's notice (stamp_feed.py): a moment later at most
    wait_until(lambda: verdicts(pair, token) == ["revoked", "revoked"], timeout=2, every=0.01, what="B's verdict")


def test_certificates_issued_at_once_on_both_are_numbered_without_gaps(pair, team, db, make_vessel):
    ids = []
    for _ in range(6):
        today = office_today()
        inspection = schedule_inspection(team["admin"], make_vessel(), "seguridad", team["inspector"], today,
                                         "Asunción", today)
        pass_every_item(inspection, team["inspector"], office_now())
        ids.append(inspection.id)
    db.session.commit()

    def submit(url, inspection_id):
        return requests.post(f"{url}/api/v1/inspections/{inspection_id}/submit", headers=team["ih"], timeout=60, json={
            "client_id": str(uuid.uuid4()), "signature": "Insp.", "master_name": "Cap.", "signatures": SIGNATURES})

    answers = at_once([lambda n=n, i=i: submit(pair[n % 2], i) for n, i in enumerate(ids)])
    assert [a.status_code for a in answers] == [200] * 6, [a.text for a in answers]
    db.session.expire_all()
    rows = db.session.execute(db.select(Certificate.number, Certificate.status_index)).all()
    year = office_today().year
    assert sorted(parse_number(number) for number, _ in rows) == [
        CertificateNumber("seguridad", year, serial) for serial in range(1, 7)]  # 1..6, each once
    assert sorted(index for _, index in rows) == list(range(6))
    assert sorted(a.json()["certificate"]["number"] for a in answers) == sorted(number for number, _ in rows)
