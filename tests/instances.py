"""Several Baliza app servers as one, and the faults they must survive: the processes and levers the tests need.

Each instance is its own gunicorn (`bench.wsgi:app`, configured only by BALIZA_* variables) on a free
loopback port, all on one PostgreSQL database, one media folder (BALIZA_MEDIA_DIR; a bucket once
BALIZA_MEDIA_URL is set) and one key folder. State is seeded with the operations in the test process.
"""
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path

import psycopg

from bench.fixtures import server_env
from bench.harness import free_port, gunicorn

SECRET = "instances-shared-secret"  # one secret for every instance, as production's BALIZA_SECRET_KEY
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def instance_config(app) -> dict:
    """The settings every instance shares with the test's app: its database, media and key folders."""
    config = {key: app.config[key] for key in ("DATABASE_URL", "MEDIA_DIR", "KEYS_DIR", "PASSWORD_METHOD",
                                                 "PUBLIC_URL", "OFFICE_CODE")}
    return {**config, "SECRET_KEY": SECRET}


@contextmanager
def instances(count: int, config: dict, workers: int = 2):
    """`count` gunicorn servers of the app with the same BALIZA_* settings; a list of Gunicorn, all stopped after."""
    with ExitStack() as stack:
        yield [stack.enter_context(gunicorn("bench.wsgi:app", server_env(config), workers=workers))
               for _ in range(count)]


def libpq_url(url: str) -> str:
    """A SQLAlchemy PostgreSQL URL as psycopg takes it."""
    return url.replace("postgresql+psycopg://", "postgresql://")


def csrf_token(html: str) -> str:
    """The CSRF token a page's form carries."""
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html) or re.search(r'name="csrf-token" content="([^"]+)"', html)
    assert match, "no CSRF token on the page"
    return match[1]


# --- holding a request inside its transaction ------------------------------------------------------

@contextmanager
def holding_client_id(url: str, client_id: str, user_id: int):
    """Hold `client_id`'s idempotency row, uncommitted, so a request that records it waits inside its transaction.

    The waiting request has done every write before that INSERT (a sync batch's earlier entries, a
    photo's files) and committed none: a kill or a restart then lands exactly mid-request.
    """
    conn = psycopg.connect(libpq_url(url))
    try:
        conn.execute("INSERT INTO client_requests (client_id, user_id, scope, body_hash, status_code, response, "
                     "created_at) VALUES (%s, %s, 'hold', '', 0, '{}', now())", (client_id, user_id))
        yield conn
    finally:
        conn.rollback()
        conn.close()


def wait_for_lock_waiter(url: str, present: bool = True, timeout: float = 20.0) -> None:
    """Until a backend waits on a lock (a held request arrived) or, with present=False, none does."""
    deadline = time.monotonic() + timeout
    with psycopg.connect(libpq_url(url), autocommit=True) as conn:
        while True:
            waiting = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'").fetchone()[0]
            if bool(waiting) == present:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"lock waiters: {waiting}")
            time.sleep(0.02)


def partial_request(url: str, path: str, headers: dict, body: bytes, sent: int) -> socket.socket:
    """A POST that declares all of `body` but sends only its first `sent` bytes; the open socket (a slow tablet)."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    lines = [f"POST {path} HTTP/1.1", f"Host: {host}:{port}", f"Content-Length: {len(body)}",
             *(f"{k}: {v}" for k, v in headers.items())]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body[:sent])
    return sock


# --- a private PostgreSQL cluster, to restart without touching the machine's ---------------------

class PrivateCluster:
    """A PostgreSQL cluster of the test's own (initdb in a temp folder, on a free port), owned by `postgres`."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="baliza-pg-"))
        shutil.chown(self.dir, "postgres", "postgres")
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _pg(self, *args: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *args], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._pg(str(PG_BIN / "initdb"), "-D", str(self.dir / "data"), "-A", "trust", "-U", "postgres")
        self._pg(str(PG_BIN / "pg_ctl"), "-D", str(self.dir / "data"), "-o",
                 f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1", "-l", str(self.dir / "log"),
                 "start", "-w")

    def restart(self, mode: str = "fast") -> None:
        """pg_ctl restart -m fast (sessions ended cleanly) or immediate (as after a crash)."""
        self._pg(str(PG_BIN / "pg_ctl"), "-D", str(self.dir / "data"), "restart", "-m", mode, "-w", "-l",
                 str(self.dir / "log"))

    def stop(self) -> None:
        try:
            self._pg(str(PG_BIN / "pg_ctl"), "-D", str(self.dir / "data"), "stop", "-m", "immediate")
        except subprocess.CalledProcessError:
            pass  # never started
        shutil.rmtree(self.dir, ignore_errors=True)


def can_run_private_cluster() -> str | None:
    """None when this machine can start a private cluster, else why not."""
    if os.geteuid() != 0 or not shutil.which("runuser"):
        return "needs root and runuser to run initdb as postgres"
    if not (PG_BIN / "initdb").exists():
        return f"no PostgreSQL 15 binaries in {PG_BIN}"
    return None


@contextmanager
def private_cluster():
    """A started PrivateCluster, always stopped and removed afterwards."""
    cluster = PrivateCluster()
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
