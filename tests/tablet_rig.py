"""A rig for the tablet journeys: the app in a killable process, behind a proxy that injects faults.

The browser talks to the proxy, whose port never changes, so the service worker and IndexedDB keep
their origin while the app behind it is killed and started again. The proxy reads each HTTP request
(headers and Content-Length body) and can: drop every n-th request (the connection closes before
the app sees it), cut a photo upload halfway (the app gets half the body, then the connection
closes), and count the bytes of every request body by path, so a test can tell what a retry re-sent.
"""
import asyncio
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEPT_FOLDERS = ("media", "keys")  # beside the database, what the app writes under the rig's folder


def app_config(base: Path) -> dict:
    """The settings both the server process and the test's own app use (one database, one photo folder)."""
    return {"TESTING": True, "SECRET_KEY": "tablet-journey-secret", "DATABASE_URL": f"sqlite:///{base / 'baliza.sqlite'}",
            "MEDIA_DIR": str(base / "media"), "KEYS_DIR": str(base / "keys"), "PASSWORD_METHOD": "pbkdf2:sha256:1000",
            "RATE_COUNTS_FILE": str(base / "rate-counts"), "AUTO_SIGNING_KEY": True}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Faults:
    """What the proxy does to requests; a test flips these while the journey runs."""

    def __init__(self):
        self.down = False             # the link is cut: every connection closes at once
        self.drop_every = 0           # drop every n-th request under /api/ (0: none)
        self.cut_upload_once = False  # cut the next photo PATCH after half its body
        self.busy_once = None         # (path ending, Retry-After): answer the next such POST 503 itself
        self.requests = 0
        self.dropped = 0
        self.cuts = 0
        self.body_bytes = defaultdict(int)   # "METHOD /path" -> bytes of request bodies forwarded
        self.paths: list[str] = []
        self.gets: list[str] = []     # every GET's target with its query, as the app received them


class Rig:
    """The app process and the proxy in front of it."""

    def __init__(self, base: Path):
        self.base = base
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.faults = Faults()
        self.backend_port = None
        self.process = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="tablet-proxy")

    # --- the app process ------------------------------------------------------------------------

    def start_app(self) -> None:
        self.backend_port = free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen([sys.executable, "-m", "tests.tablet_server", str(self.base),
                                         str(self.backend_port), self.origin], cwd=ROOT, env=env,
                                        stdout=subprocess.PIPE, stderr=open(self.base / "server.log", "ab"))
        line = self.process.stdout.readline().decode()
        assert line.strip() == "ready", (self.base / "server.log").read_text()[-3000:]

    def stop_app(self) -> None:
        """Stop the app process (SIGTERM, then SIGKILL if it lingers)."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def save_files(self, folder: Path) -> None:
        """Keep the server's state (the database, photos and keys) in `folder`, for restore_files."""
        with sqlite3.connect(self.base / "baliza.sqlite") as live, sqlite3.connect(folder / "baliza.sqlite") as kept:
            live.backup(kept)
        for name in KEPT_FOLDERS:
            if (self.base / name).exists():
                shutil.copytree(self.base / name, folder / name)

    def restore_files(self, folder: Path) -> None:
        """Put back the state save_files kept and start the app on it afresh (its connections and caches went with
        the old process)."""
        from inspection.core.extensions import db

        self.stop_app()
        with self.app.app_context():
            db.session.remove()
            db.engine.dispose()
        with sqlite3.connect(folder / "baliza.sqlite") as kept, sqlite3.connect(self.base / "baliza.sqlite") as live:
            kept.backup(live)
        for name in KEPT_FOLDERS:
            shutil.rmtree(self.base / name, ignore_errors=True)
            if (folder / name).exists():
                shutil.copytree(folder / name, self.base / name)
        self.start_app()

    def kill_app(self) -> None:
        """kill -9: no cleanup, no goodbye, as a crash or a pulled plug."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    # --- the proxy ------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(asyncio.start_server(self._client, "127.0.0.1", self.port),
                                                  self._loop)
        self._server = future.result(timeout=10)
        self.start_app()

    def stop(self) -> None:
        self.stop_app()
        self._loop.call_soon_threadsafe(self._server.close)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    async def _client(self, reader, writer):
        upstream = None
        if self.faults.down:
            writer.close()
            return
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line = head.split(b"\r\n", 1)[0].decode("latin-1")
                method, target = request_line.split(" ")[:2]
                path = target.split("?", 1)[0]
                length = int((re.search(rb"(?im)^content-length:\s*(\d+)", head) or [0, b"0"])[1])
                faults = self.faults
                if faults.down:
                    return
                faults.requests += 1
                faults.paths.append(f"{method} {path}")
                if method == "GET":
                    faults.gets.append(target)
                if path.startswith("/api/") and faults.drop_every and faults.requests % faults.drop_every == 0:
                    faults.dropped += 1
                    return  # closed before the app saw a byte: the client sees a network error
                if faults.busy_once and method == "POST" and path.endswith(faults.busy_once[0]):
                    await reader.readexactly(length)
                    writer.write(busy_response(faults.busy_once[1]))
                    await writer.drain()
                    faults.busy_once = None
                    continue
                if upstream is None:
                    try:
                        upstream = await asyncio.open_connection("127.0.0.1", self.backend_port)
                    except OSError:
                        return  # the app is down: the client sees a network error
                    asyncio.ensure_future(self._pump(upstream[0], writer))
                up_reader, up_writer = upstream
                up_writer.write(head)
                cut = method == "PATCH" and "/uploads/" in path and faults.cut_upload_once and length > 1
                body_left = length // 2 if cut else length
                while body_left:
                    chunk = await reader.read(min(65536, body_left))
                    if not chunk:
                        return
                    up_writer.write(chunk)
                    faults.body_bytes[f"{method} {path}"] += len(chunk)
                    body_left -= len(chunk)
                await up_writer.drain()
                if cut:
                    faults.cut_upload_once = False
                    faults.cuts += 1
                    await asyncio.sleep(0.5)  # the app has read what came; then the link drops
                    return
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            return
        finally:
            writer.close()
            if upstream is not None:
                upstream[1].close()

    @staticmethod
    async def _pump(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()


def busy_response(retry_after: str) -> bytes:
    """A 503 problem with Retry-After, as a load balancer or the app answers while the photo store is down."""
    body = b'{"type": "https://baliza.example/problems/unavailable", "status": 503, "title": "Servicio no disponible"}'
    return (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/problem+json\r\n"
            b"Retry-After: " + retry_after.encode() + b"\r\nContent-Length: " + str(len(body)).encode()
            + b"\r\n\r\n" + body)


@contextmanager
def tablet_rig(base: Path, rig_class: type[Rig] = Rig):
    """A started rig (database created, an admin as `rig.admin_id`, app up behind the proxy); stopped afterwards."""
    from app import create_app
    from inspection.accounts.users import create_user
    from inspection.core.extensions import db
    from tests.tablet_steps import PASSWORD
    from tests.unsynced import unsynced_commits
    app = create_app(app_config(base))
    with app.app_context():
        unsynced_commits(db.engine)
        db.create_all()
        admin_id = create_user("jefa", PASSWORD, "admin", full_name="Jefa de Inspecciones").id
        db.session.commit()
    rig = rig_class(base)
    rig.app, rig.admin_id = app, admin_id
    rig.start()
    try:
        yield rig
    finally:
        rig.stop()
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def wait_until(check, timeout: float = 60, every: float = 0.2, what: str = "condition"):
    """Poll `check()` until it returns something truthy; its value, or AssertionError after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"timed out waiting for {what}")
