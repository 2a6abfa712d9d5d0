"""Fault drills: kill -9 a gunicorn worker mid-upload and mid-sync, restart PostgreSQL mid-request, stop S3.

The server stores photos in a SeaweedFS bucket (a real S3 server). Each drill makes the fault land
inside a request, then checks the database and the bucket: nothing half-applied, no photo row
without its objects, and the tablet's retry (same client ids) applied exactly once.
`python -m bench.faults` runs every drill verbosely on a private PostgreSQL cluster and a SeaweedFS
of its own (never the machine's server); tests/test_bench_faults.py runs the same drills in CI.
A request is made to wait inside its transaction by holding, uncommitted, the idempotency row it
is about to write (`holding_client_id`): everything before that INSERT is done, nothing committed.
"""
from __future__ import annotations

import contextlib
import hashlib
import http.client
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import psycopg

from bench.fixtures import expect, http_caller, multipart, seed, server_env, start_inspection, sync_entries
from bench.harness import Gunicorn, free_port, gunicorn
from bench.photos_pipeline import make_sample_jpeg

PG_BIN = Path("/usr/lib/postgresql/15/bin")
WORKERS = 2


class DrillFailed(AssertionError):
    """The database or the bucket is not as the drill requires after the fault."""


def check(condition: bool, what: str) -> None:
    if not condition:
        raise DrillFailed(what)


def libpq_url(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as psycopg takes it."""
    return url.replace("postgresql+psycopg://", "postgresql://")


# --- a private PostgreSQL cluster, to restart without touching the machine's ---------------------

class PrivateCluster:
    """A PostgreSQL cluster of the drill's own (initdb in a temp folder owned by postgres, a free port)."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="baliza-pg-"))
        shutil.chown(self.dir, "postgres", "postgres")
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _pg(self, *args: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *args], check=True, capture_output=True, timeout=120)

    def _ctl(self, *args: str) -> None:
        self._pg(str(PG_BIN / "pg_ctl"), "-D", str(self.dir / "data"), "-l", str(self.dir / "log"), "-w", *args)

    def start(self) -> None:
        # A throwaway cluster: no fsync (a restart loses nothing; only a machine crash would).
        self._pg(str(PG_BIN / "initdb"), "-D", str(self.dir / "data"), "-A", "trust", "-U", "postgres", "--no-sync")
        self._ctl("-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def restart(self, mode: str = "fast") -> None:
        """pg_ctl restart -m fast (sessions ended cleanly) or immediate (as after a crash); same options."""
        self._ctl("restart", "-m", mode)

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._ctl("stop", "-m", "immediate")
        shutil.rmtree(self.dir, ignore_errors=True)


def cannot_run_private_cluster() -> str | None:
    """Why this machine cannot start a private cluster, or None when it can."""
    if os.geteuid() != 0 or not shutil.which("runuser"):
        return "initdb must run as postgres: needs root and runuser"
    if not (PG_BIN / "initdb").exists():
        return f"no PostgreSQL 15 binaries in {PG_BIN}"
    return None


@contextlib.contextmanager
def private_cluster():
    """A started PrivateCluster, always stopped and removed afterwards."""
    cluster = PrivateCluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()


# --- levers --------------------------------------------------------------------------------------

@contextlib.contextmanager
def holding_client_id(url: str, client_id: str, user_id: int):
    """Hold `client_id`'s idempotency row, uncommitted, so the request that records it waits mid-transaction."""
    conn = psycopg.connect(libpq_url(url))
    try:
        conn.execute("INSERT INTO client_requests (client_id, user_id, scope, body_hash, status_code, response, "
                     "created_at) VALUES (%s, %s, 'hold', '', 0, '{}', now())", (client_id, user_id))
        yield
    finally:
        with contextlib.suppress(psycopg.Error):  # a restarted server has ended this session already
            conn.rollback()
        conn.close()


def wait_for_lock_waiters(url: str, present: bool, timeout: float = 20.0) -> None:
    """Until some backend waits on a lock (the held request arrived) or, with present=False, none does."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        while True:
            waiting = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'").fetchone()[0]
            if bool(waiting) == present:
                return
            check(time.monotonic() < deadline, f"{waiting} backends wait on a lock after {timeout} s")
            time.sleep(0.02)


def send_partly(url: str, path: str, headers: dict, body: bytes, sent: int) -> socket.socket:
    """A POST declaring all of `body` that sends only its first `sent` bytes; the open socket (a slow tablet)."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=30)
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", f"Content-Length: {len(body)}",
             *(f"{k}: {v}" for k, v in headers.items())]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body[:sent])
    return sock


def answer_on(sock: socket.socket) -> tuple[int, dict, bytes]:
    """(status, headers with lower-case names, body) of the response on a socket from send_partly."""
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()


def unavailable(status: int, headers: dict) -> bool:
    """A 503 problem+json with a Retry-After in seconds: the tablet keeps the entry and tries again later."""
    return (status == 503 and headers.get("content-type", "").startswith("application/problem+json")
            and headers.get("retry-after", "").isdigit())


def kill_worker_serving(server: Gunicorn, sock: socket.socket) -> int:
    """kill -9 the worker holding this connection, then wait for the master to start another; its pid."""
    deadline = time.monotonic() + 10
    while True:
        try:
            pid = server.worker_serving(sock.getsockname()[1])
            break
        except LookupError:
            check(time.monotonic() < deadline, "no worker accepted the connection")
            time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    server.wait_for_workers(WORKERS)
    return pid


# --- what the database and the bucket must hold ----------------------------------------------------

def rows(url: str, sql: str, *args) -> list[tuple]:
    with psycopg.connect(libpq_url(url)) as conn:
        return conn.execute(sql, args).fetchall()


def photos_have_files(url: str, storage) -> int:
    """Every photo row's original, display copy and thumbnail exist in the storage (a MediaStorage); how many photos."""
    found = rows(url, "SELECT id, original_key, display_key, thumb_key FROM photos")
    for photo_id, *keys in found:
        for key in keys:
            check(storage.exists(key), f"photo {photo_id} has no object {key}")
    return len(found)


def nothing_recorded(url: str, *client_ids: str) -> None:
    """No photo row and no idempotency record under any of these client ids."""
    for client_id in client_ids:
        check(not rows(url, "SELECT id FROM photos WHERE client_id = %s", client_id), "a photo row appeared")
        check(not rows(url, "SELECT 1 FROM client_requests WHERE client_id = %s", client_id),
              "an idempotency record appeared")


def answers_of(url: str, inspection_id: int) -> list[str]:
    return sorted(r[0] for r in rows(url, "SELECT client_id FROM answers WHERE inspection_id = %s", inspection_id))


@dataclass
class Rig:
    """A served database for the drills: one gunicorn, the seeded ids, its bucket (tests.s3_server.Bucket), a printer."""

    server: Gunicorn
    database_url: str
    ids: dict
    bucket: object
    say: Callable[[str], None] = lambda text: None

    @property
    def storage(self):
        """The bucket as a MediaStorage, to check what the server stored."""
        return self.bucket.storage()

    def inspection(self) -> tuple[int, list, dict]:
        """A fresh started inspection: (id, items, inspector auth header)."""
        return start_inspection(http_caller(self.server.url), self.ids)


@contextlib.contextmanager
def rig(database_url: str, base: Path, bucket, say=lambda text: None):
    """Seed `database_url` (schema, users, a vessel, a key) and serve it with gunicorn, photos in `bucket`; a Rig."""
    config = {"DATABASE_URL": database_url, "SECRET_KEY": "faults", "PASSWORD_METHOD": "pbkdf2:sha256:1000",
              "KEYS_DIR": str(base / "keys"), "PUBLIC_URL": "http://127.0.0.1", **bucket.config()}
    with _environ(bucket.env()):  # seeding reaches no storage, but the app is built with the bucket's settings
        ids = seed(config)
    with gunicorn("bench.wsgi:app", {**server_env(config), **bucket.env()}, workers=WORKERS) as server:
        yield Rig(server, database_url, ids, bucket, say)


@contextlib.contextmanager
def _environ(values: dict):
    """os.environ with `values` set, restored afterwards."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


# --- the drills ------------------------------------------------------------------------------------

def photo_request(inspection_id: int, items: list, auth: dict, seed_: int) -> tuple[str, dict, bytes, str]:
    """(path, headers, body, client_id) of a multipart photo for the first item needing evidence."""
    item = next(i for i in items if i["evidence_required"])
    client_id = str(uuid.uuid4())
    body, content_type = multipart({"item_id": item["id"], "client_id": client_id},
                                   make_sample_jpeg(640, 480, quality=85, seed=seed_))
    return f"/api/v1/inspections/{inspection_id}/photos", {**auth, "Content-Type": content_type}, body, client_id


def retry_photo_once(rig: Rig, path: str, headers: dict, body: bytes, client_id: str) -> None:
    """The tablet's retries: the first files the photo (201), the next replays it; one row, files present."""
    call = http_caller(rig.server.url)
    first = expect(call("POST", path, body, headers), 201, "retried photo")
    check(first.headers.get("idempotent-replayed") == "false", "the first retry was not the first filing")
    again = expect(call("POST", path, body, headers), 201, "second retry")
    check(again.headers.get("idempotent-replayed") == "true" and again.body["id"] == first.body["id"],
          "the second retry filed another photo")
    check(len(rows(rig.database_url, "SELECT id FROM photos WHERE client_id = %s", client_id)) == 1,
          "not exactly one photo for the client id")
    photos_have_files(rig.database_url, rig.storage)


def kill_mid_upload(rig: Rig) -> None:
    """kill -9 the worker reading a slow multipart photo (half its bytes sent); the retry files it once."""
    inspection_id, items, auth = rig.inspection()
    path, headers, body, client_id = photo_request(inspection_id, items, auth, 1)
    sock = send_partly(rig.server.url, path, headers, body, len(body) // 2)
    time.sleep(0.2)  # the worker is inside the request, reading the body
    pid = kill_worker_serving(rig.server, sock)
    rig.say(f"  killed worker {pid} after {len(body) // 2} of {len(body)} bytes")
    sock.close()
    nothing_recorded(rig.database_url, client_id)
    retry_photo_once(rig, path, headers, body, client_id)
    rig.say("  no row for the cut upload; the retry filed it once, the next replayed it")


def kill_mid_photo_store(rig: Rig) -> None:
    """kill -9 the worker after it stored a photo's files and before it committed the row; the retry files it once."""
    inspection_id, items, auth = rig.inspection()
    path, headers, body, client_id = photo_request(inspection_id, items, auth, 2)
    with holding_client_id(rig.database_url, client_id, rig.ids["inspector_id"]):
        sock = send_partly(rig.server.url, path, headers, body, len(body))
        wait_for_lock_waiters(rig.database_url, present=True)
        pid = kill_worker_serving(rig.server, sock)
    sock.close()
    wait_for_lock_waiters(rig.database_url, present=False)
    rig.say(f"  killed worker {pid} with the photo's files written and its row not committed")
    check(not rows(rig.database_url, "SELECT id FROM photos WHERE client_id = %s", client_id), "a photo row appeared")
    photos_have_files(rig.database_url, rig.storage)
    retry_photo_once(rig, path, headers, body, client_id)
    rig.say("  the objects without a row are an orphan for `media sweep`; the retry filed the photo once")


def sync_request(rig: Rig, count: int = 20) -> tuple[int, str, dict, list]:
    """(inspection id, path, headers, entries) of a sync batch of `count` fresh answers."""
    inspection_id, items, auth = rig.inspection()
    entries = sync_entries(items, count, seed=inspection_id)  # client ids are unique across inspections too
    return inspection_id, f"/api/v1/inspections/{inspection_id}/sync", {**auth, "Content-Type": "application/json"}, entries


def retry_sync_once(rig: Rig, inspection_id: int, path: str, headers: dict, entries: list) -> None:
    """The tablet's retries of the batch: the first applies every entry, the next finds them all applied."""
    call = http_caller(rig.server.url)
    first = expect(call("POST", path, {"answers": entries}, headers), 200, "retried sync")
    check({r["status"] for r in first.body["results"]} == {"applied"}, f"retry: {first.body['results']}")
    again = expect(call("POST", path, {"answers": entries}, headers), 200, "second retry")
    check({r["status"] for r in again.body["results"]} == {"duplicate"}, f"second retry: {again.body['results']}")
    check(answers_of(rig.database_url, inspection_id) == sorted(e["client_id"] for e in entries),
          "the answers stored are not the batch's, once each")


def held_sync(rig: Rig, entries: list, path: str, headers: dict, fault: Callable[[socket.socket], None]) -> socket.socket:
    """Send the batch with its middle entry's record held, so the request waits half-applied; then `fault(sock)`."""
    import json

    body = json.dumps({"answers": entries}).encode()
    with holding_client_id(rig.database_url, entries[len(entries) // 2]["client_id"], rig.ids["inspector_id"]):
        sock = send_partly(rig.server.url, path, headers, body, len(body))
        wait_for_lock_waiters(rig.database_url, present=True)
        fault(sock)
    return sock


def kill_mid_sync(rig: Rig) -> None:
    """kill -9 the worker with half a sync batch applied and nothing committed; the retry applies it once."""
    inspection_id, path, headers, entries = sync_request(rig)
    killed = []
    sock = held_sync(rig, entries, path, headers, lambda sock: killed.append(kill_worker_serving(rig.server, sock)))
    sock.close()
    wait_for_lock_waiters(rig.database_url, present=False)
    rig.say(f"  killed worker {killed[0]} with {len(entries) // 2} of {len(entries)} entries applied, uncommitted")
    check(answers_of(rig.database_url, inspection_id) == [], "part of the killed batch was kept")
    retry_sync_once(rig, inspection_id, path, headers, entries)
    rig.say("  nothing of the killed batch was kept; the retry applied every entry once")


def restart_mid_request(rig: Rig, cluster: PrivateCluster, mode: str = "fast") -> tuple[int, dict]:
    """Restart PostgreSQL while a sync batch waits half-applied: 503 with Retry-After, nothing is kept, the pool recovers.

    Returns the in-flight request's (status, headers).
    """
    inspection_id, path, headers, entries = sync_request(rig)
    sock = held_sync(rig, entries, path, headers, lambda sock: cluster.restart(mode))
    status, answered, body = answer_on(sock)
    sock.close()
    rig.say(f"  in flight during `pg_ctl restart -m {mode}`: {status} Retry-After {answered.get('retry-after')} "
            f"{body[:120]!r}")
    check(unavailable(status, answered),
          f"the in-flight request was not a 503 problem with Retry-After: {status} {answered} {body[:300]!r}")
    check(answers_of(rig.database_url, inspection_id) == [], "part of the interrupted batch was kept")
    call = http_caller(rig.server.url)
    for _ in range(4 * WORKERS):  # every worker's pooled connections died with the server
        expect(call("GET", f"/api/v1/inspections/{inspection_id}", None, headers), 200, "a request after the restart")
    retry_sync_once(rig, inspection_id, path, headers, entries)
    rig.say("  the next requests succeeded (the idle connections were tested before use) and the retried batch applied once")
    return status, answered


def restart_between_requests(rig: Rig, cluster: PrivateCluster, mode: str = "immediate") -> None:
    """Restart PostgreSQL between requests (as after a crash): the very next requests succeed."""
    inspection_id, path, headers, entries = sync_request(rig)
    call = http_caller(rig.server.url)
    for _ in range(2 * WORKERS):
        expect(call("GET", f"/api/v1/inspections/{inspection_id}", None, headers), 200, "a request before")
    cluster.restart(mode)
    retry_sync_once(rig, inspection_id, path, headers, entries)
    rig.say(f"  after `pg_ctl restart -m {mode}` the next sync applied at once")


def upload_declaration(items: list, data: bytes) -> dict:
    """A resumable upload's declaration of `data` for the first item needing evidence (a fresh client_id)."""
    item = next(i for i in items if i["evidence_required"])
    return {"client_id": str(uuid.uuid4()), "item_id": item["id"], "size": len(data), "mime": "image/jpeg",
            "sha256": hashlib.sha256(data).hexdigest()}


def patch(call, path: str, auth: dict, data: bytes, offset: int):
    """One PATCH of a resumable upload: the bytes from `offset` on."""
    return call("PATCH", path, data[offset:], {**auth, "Upload-Offset": str(offset),
                                                "Content-Type": "application/offset+octet-stream"})


def stop_storage(rig: Rig) -> None:
    """Stop the S3 server: photos are 503 with Retry-After and nothing is recorded; back up, each retry stores once.

    The photo POST and a resumable upload's last PATCH answer 503; /healthz names storage; a sync of
    answers (no storage needed) still applies.
    """
    call, server = http_caller(rig.server.url), rig.bucket.server
    inspection_id, items, auth = rig.inspection()
    path, headers, body, client_id = photo_request(inspection_id, items, auth, 3)
    data = make_sample_jpeg(640, 480, quality=85, seed=4)
    declared = upload_declaration(items, data)
    uploads, upload_id = f"/api/v1/inspections/{inspection_id}/uploads", declared["client_id"]
    expect(call("POST", uploads, declared, auth), 201, "declare the upload")
    half = len(data) // 2
    expect(patch(call, f"{uploads}/{upload_id}", auth, data[:half], 0), 200, "first half of the upload")
    _, _, _, entries = sync_request(rig, 6)
    sync_path = f"/api/v1/inspections/{inspection_id}/sync"
    server.stop()
    try:
        for what, reply in (("photo", call("POST", path, body, headers)),
                            ("last PATCH", patch(call, f"{uploads}/{upload_id}", auth, data, half))):
            check(unavailable(reply.status, reply.headers), f"{what} with S3 stopped: {reply.status} {reply.body}")
            rig.say(f"  {what} with S3 stopped: 503, Retry-After {reply.headers['retry-after']}")
        nothing_recorded(rig.database_url, client_id, upload_id)
        health = call("GET", "/healthz")
        check(health.status == 503 and health.body["checks"]["storage"] == "fail", f"/healthz: {health.body}")
        synced = expect(call("POST", sync_path, {"answers": entries}, {**auth, "Content-Type": "application/json"}),
                        200, "sync with S3 stopped")
        check({r["status"] for r in synced.body["results"]} == {"applied"}, f"sync: {synced.body['results']}")
        rig.say("  nothing recorded for either photo, /healthz names storage, a sync of answers applied")
    finally:
        server.start()
    retry_photo_once(rig, path, headers, body, client_id)
    # The tablet's retry of the upload (static/js/tablet/uploads.js): declare again, go on from the server's
    # offset. The bytes that arrived were kept (the upload's parts commit before filing), so only filing is left.
    state = expect(call("POST", uploads, declared, auth), 200, "declare the upload again").body
    check(state["offset"] == len(data) and state["photo"] is None, f"upload after the outage: {state}")
    finished = expect(patch(call, f"{uploads}/{upload_id}", auth, data, state["offset"]), 201, "the upload's retry")
    photo_id = finished.body["photo"]["id"]
    check(rows(rig.database_url, "SELECT id FROM photos WHERE client_id = %s", upload_id) == [(photo_id,)],
          "not exactly one photo for the upload")
    original = rows(rig.database_url, "SELECT original_key FROM photos WHERE id = %s", photo_id)[0][0]
    check(rig.storage.get(original) == data, "the uploaded original in the bucket is not the tablet's bytes")
    photos_have_files(rig.database_url, rig.storage)
    rig.say("  S3 back: the photo's retry filed it once, the upload's retry filed it from the kept bytes; objects present")


WORKER_DRILLS = (kill_mid_upload, kill_mid_photo_store, kill_mid_sync)
STORAGE_DRILLS = (stop_storage,)


def main() -> None:
    """Every drill, on a private cluster, saying what happened."""
    reason = cannot_run_private_cluster()
    if reason:
        raise SystemExit(f"faults: {reason}")
    from bench.seaweed import new_bucket, running_seaweed

    with tempfile.TemporaryDirectory() as tmp, private_cluster() as cluster, running_seaweed() as seaweed, \
            rig(cluster.url, Path(tmp), new_bucket(seaweed), say=print) as drills:
        for drill in WORKER_DRILLS + STORAGE_DRILLS:
            print(f"{drill.__name__}: {drill.__doc__.splitlines()[0]}")
            drill(drills)
        for drill, mode in ((restart_mid_request, "fast"), (restart_mid_request, "immediate"),
                            (restart_between_requests, "immediate")):
            print(f"{drill.__name__} ({mode}): {drill.__doc__.splitlines()[0]}")
            drill(drills, cluster, mode)
        print(f"photos with all their files: {photos_have_files(cluster.url, drills.storage)}")
        print("faults: every drill passed")


if __name__ == "__main__":
    main()
