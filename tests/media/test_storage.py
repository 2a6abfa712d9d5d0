"""Tests for inspection.media.storage: atomic write-once puts, key safety and the orphan sweep.

The contract tests (fixture `store`) run on both stores: a local directory and a real S3 bucket
(SeaweedFS, tests/s3_server.py); the tests of files, fsync and temp files use `local` only.
"""

import hashlib
import io
import os
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from inspection.media import storage as storage_module
from inspection.media.storage import (
    InvalidKey,
    KeyConflict,
    LocalStorage,
    MediaStorage,
    MissingKey,
    StorageError,
    StoredFile,
    is_orphan,
    media_key,
    sha256_of_stream,
    sweep_orphans,
)
from inspection.media.storage_s3 import S3Storage

SHA = "ab" + "0" * 62
KEY = f"originals/ab/{SHA}.jpg"
NOW = datetime(2024, 5, 17, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def local(tmp_path):
    return LocalStorage(tmp_path / "media")


@pytest.fixture(params=["local", "s3"])
def store(request, tmp_path):
    """Each contract test twice: on a local directory and on a fresh bucket of the real S3 server."""
    if request.param == "local":
        return LocalStorage(tmp_path / "media")
    bucket = request.getfixturevalue("s3_bucket")
    return S3Storage(bucket.name, bucket.prefix, bucket.server.storage_client())


def stored_names(store) -> list[str]:
    """Everything the store holds, temp files and objects outside the prefix included."""
    if isinstance(store, LocalStorage):
        return all_files(store.root.parent)
    pages = store.client.get_paginator("list_objects_v2").paginate(Bucket=store.bucket)
    return sorted(item["Key"] for page in pages for item in page.get("Contents", []))


def written_long_ago(store, *keys) -> datetime:
    """A sweep cutoff after which ``keys`` count as written: backdated files, or S3's clock moved past them."""
    if isinstance(store, LocalStorage):
        for key in keys:
            set_mtime(store, key, NOW - timedelta(days=2))
        return NOW - timedelta(hours=1)
    cutoff = max(store.modified_at(key) for key in keys) + timedelta(seconds=1)  # S3 times are whole seconds
    time.sleep(max(0.0, (cutoff - datetime.now(timezone.utc)).total_seconds()) + 0.05)
    return cutoff


def all_files(root: Path) -> list[str]:
    """Every file under ``root``, temp files included, as relative POSIX paths."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def set_mtime(store: LocalStorage, key: str, when: datetime) -> None:
    """Backdate a stored file."""
    os.utime(store.path_for(key), (when.timestamp(), when.timestamp()))


def test_put_get_exists_delete_round_trip(store):
    assert isinstance(store, MediaStorage)
    assert not store.exists(KEY)
    store.put(KEY, b"photo bytes")
    assert store.exists(KEY) and store.get(KEY) == b"photo bytes"
    assert stored_names(store) in ([f"media/{KEY}"], [KEY])  # no temp file left behind; S3: under the prefix
    opened = store.open_stream(KEY)
    assert isinstance(opened, StoredFile) and opened.size == 11
    assert sha256_of_stream(opened.stream) == store.content_sha256(KEY) == hashlib.sha256(b"photo bytes").hexdigest()
    store.delete(KEY)
    store.delete(KEY)  # absent is fine
    assert not store.exists(KEY)
    for read in (store.get, store.open_stream, store.modified_at, store.content_sha256):
        with pytest.raises(MissingKey):
            read(KEY)


def test_local_files_are_readable_by_a_front_end_server(local):
    local.put(KEY, b"photo bytes")
    assert local.open_path(KEY).read_bytes() == b"photo bytes"
    assert local.open_path(KEY).stat().st_mode & 0o777 == 0o644


def test_put_is_atomic_fsyncs_file_and_directory(local, monkeypatch):
    seen, synced = [], []
    real_replace, real_fsync = os.replace, os.fsync

    def checking_replace(src, dst):
        assert not Path(dst).exists()  # the final name appears only complete
        assert Path(src).read_bytes() == b"x" * 100_000
        assert Path(src).parent == Path(dst).parent  # same directory, so rename is atomic
        seen.append(Path(src).name)
        real_replace(src, dst)

    def counting_fsync(fd):
        synced.append("dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "replace", checking_replace)
    monkeypatch.setattr(os, "fsync", counting_fsync)
    local.put(KEY, b"x" * 100_000)
    assert seen and seen[0].startswith(".") and seen[0].endswith(".tmp")
    assert synced[0] == "file" and "dir" in synced[1:]
    assert local.get(KEY) == b"x" * 100_000


def test_a_retried_put_makes_the_directory_entry_durable_without_writing(local, monkeypatch):
    """A put that died after its rename left the entry maybe unsynced: the retry that finds the bytes syncs it."""
    local.put(KEY, b"photo bytes")
    synced, real_fsync = [], os.fsync

    def counting_fsync(fd):
        synced.append("dir" if os.path.isdir(f"/proc/self/fd/{fd}") else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    monkeypatch.setattr(os, "replace", _fail_replace)
    local.put(KEY, b"photo bytes")
    assert synced == ["dir"]


def _fail_replace(*args):
    raise AssertionError("a retried put writes nothing")


@pytest.mark.parametrize("failing", ["replace", "fsync", "fchmod"])
def test_crash_during_put_leaves_no_final_file_and_no_temp_file(local, monkeypatch, failing):
    def crash(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, crash)
    with pytest.raises(OSError):
        local.put(KEY, b"half a photo")
    monkeypatch.undo()
    assert not local.exists(KEY)
    assert all_files(local.root) == []
    local.put(KEY, b"whole photo")  # the retry then succeeds
    assert local.get(KEY) == b"whole photo"


def test_hard_crash_temp_files_are_never_keys_and_are_cleaned(local):
    local.put(KEY, b"done")
    folder = local.path_for(KEY).parent
    old, fresh = folder / f".{SHA}.jpg.abc123.tmp", folder / f".{SHA}.jpg.def456.tmp"
    old.write_bytes(b"partial")
    fresh.write_bytes(b"still being written")
    os.utime(old, ((NOW - timedelta(hours=2)).timestamp(),) * 2)
    os.utime(fresh, (NOW.timestamp(),) * 2)
    assert list(local.iter_keys()) == [KEY]
    removed = local.remove_stale_temp(older_than=NOW - timedelta(hours=1))
    assert removed == [f"originals/ab/{old.name}"]
    assert not old.exists() and fresh.exists()


def test_putting_the_same_bytes_again_is_a_no_op_that_refreshes_the_time(store):
    store.put(KEY, b"same")
    cutoff = written_long_ago(store, KEY)
    assert is_orphan(KEY, store.modified_at(KEY), set(), cutoff)
    store.put(KEY, b"same")
    assert store.get(KEY) == b"same"
    assert store.modified_at(KEY) >= cutoff  # not an orphan any more: the grace restarted
    assert len(stored_names(store)) == 1


def test_different_bytes_for_an_existing_key_conflict(store):
    store.put(KEY, b"first")
    with pytest.raises(KeyConflict):
        store.put(KEY, b"second")
    assert store.get(KEY) == b"first"


@pytest.mark.parametrize("key", [
    "", "../escape.jpg", "originals/../../escape.jpg", "/etc/passwd", "originals//x.jpg",
    "originals/./x.jpg", ".hidden", "originals/ab/.x.jpg.123.tmp", "originals\\ab\\x.jpg",
    "originals/ab/x.jpg/", "C:/x.jpg", "originals/ab/x y.jpg", "originals/ab/\x00.jpg",
    "a" * 600, None, b"originals/x.jpg",
])
def test_unsafe_keys_are_refused(store, key):
    for operation in ("put", "get", "exists", "delete", "open_stream", "modified_at", "open_path"):
        if not hasattr(store, operation):  # open_path: local only
            continue
        args = (key, b"x") if operation == "put" else (key,)
        with pytest.raises(InvalidKey):
            getattr(store, operation)(*args)
    assert stored_names(store) == []


def test_a_symlink_cannot_lead_outside_the_root(local, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (local.root / "originals").symlink_to(outside)
    with pytest.raises(InvalidKey):
        local.put(KEY, b"x")
    assert list(outside.iterdir()) == []


def test_iter_keys_lists_sorted_keys_under_a_prefix(store):
    keys = [media_key(kind, h * 64) for kind in ("thumbs", "originals") for h in "fa0"]
    for key in keys:
        store.put(key, key.encode())
    assert list(store.iter_keys()) == sorted(keys)
    assert list(store.iter_keys("originals/")) == sorted(k for k in keys if "originals" in k)
    assert list(store.iter_keys("thumbs/ff")) == [media_key("thumbs", "f" * 64)]
    assert list(store.iter_keys("display/")) == []
    with pytest.raises(InvalidKey):
        list(store.iter_keys("../../"))


@pytest.mark.parametrize("kind, sha, mime, expected", [
    ("originals", SHA, "image/jpeg", KEY),
    ("originals", SHA, "image/png", f"originals/ab/{SHA}.png"),
    ("thumbs", SHA, "image/jpeg", f"thumbs/ab/{SHA}.jpg"),
])
def test_media_key(kind, sha, mime, expected):
    assert media_key(kind, sha, mime) == expected


@pytest.mark.parametrize("kind, sha, mime", [
    ("../originals", SHA, "image/jpeg"), ("originals", "AB" + "0" * 62, "image/jpeg"),
    ("originals", SHA[:-1], "image/jpeg"), ("originals", SHA, "image/gif"),
])
def test_media_key_refuses_bad_parts(kind, sha, mime):
    with pytest.raises(InvalidKey):
        media_key(kind, sha, mime)


CUTOFF = NOW - timedelta(hours=1)


@pytest.mark.parametrize("key, modified, known, orphan", [
    ("a", NOW - timedelta(days=1), set(), True),
    ("a", NOW - timedelta(days=1), {"a"}, False),  # recorded: never touched
    ("a", NOW, set(), False),  # may still be in flight: its row is about to commit
    ("a", CUTOFF, set(), False),
])
def test_is_orphan(key, modified, known, orphan):
    assert is_orphan(key, modified, known, CUTOFF) is orphan


def test_sweep_removes_only_old_unknown_keys(store):
    recorded = media_key("originals", "1" * 64)
    old_orphan = media_key("originals", "2" * 64)
    fresh_orphan = media_key("thumbs", "3" * 64)
    for key in (recorded, old_orphan):
        store.put(key, key.encode())
    cutoff = written_long_ago(store, recorded, old_orphan)
    store.put(fresh_orphan, fresh_orphan.encode())  # after the cutoff: its row may be committing

    assert sweep_orphans(store, {recorded}, cutoff) == [old_orphan]
    assert sorted(store.iter_keys()) == sorted([recorded, fresh_orphan])
    assert sweep_orphans(store, {recorded}, cutoff) == []  # re-runnable


def test_a_retried_upload_of_an_orphan_survives_the_sweep(store):
    key = media_key("originals", "4" * 64)
    store.put(key, b"orphaned by a crash yesterday")
    sweep_cutoff = written_long_ago(store, key)
    store.put(key, b"orphaned by a crash yesterday")  # the client retries; its row is pending
    assert sweep_orphans(store, set(), sweep_cutoff) == []
    assert store.exists(key)


class MemoryStorage:
    """A dict-backed MediaStorage, to show the sweep needs only the protocol."""

    def __init__(self, items):
        self.items = dict(items)

    def put(self, key, data):
        self.items[key] = (data, NOW)

    def get(self, key):
        return self.items[key][0]

    def open_stream(self, key):
        return StoredFile(io.BytesIO(self.items[key][0]), len(self.items[key][0]))

    def exists(self, key):
        return key in self.items

    def delete(self, key):
        self.items.pop(key, None)

    def iter_keys(self, prefix=""):
        return iter(sorted(k for k in self.items if k.startswith(prefix)))

    def modified_at(self, key):
        return self.items[key][1]

    def ping(self):
        pass


def test_sweep_works_on_any_media_storage():
    old = NOW - timedelta(days=1)
    memory = MemoryStorage({"originals/a": (b"", old), "originals/b": (b"", old),
                            "thumbs/c": (b"", old)})
    assert isinstance(memory, MediaStorage)
    assert sweep_orphans(memory, {"originals/a"}, CUTOFF, prefix="originals/") == ["originals/b"]
    assert sorted(memory.items) == ["originals/a", "thumbs/c"]


def test_module_documents_the_ordering_contract():
    assert ("write files first (atomic), then commit the DB row; a crash between leaves only "
            "unrecorded files, which the sweep removes; a recorded row never points to a "
            "missing file.") in " ".join(storage_module.__doc__.split())


def test_ping_checks_the_local_root_is_writable(local):
    local.ping()
    assert all_files(local.root) == []  # writes nothing
    local.root.rmdir()
    with pytest.raises(StorageError):
        local.ping()
