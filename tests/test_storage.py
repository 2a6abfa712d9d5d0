"""Tests for inspection.storage: atomic write-once puts, key safety and the orphan sweep."""

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from inspection import storage as storage_module
from inspection.storage import (
    InvalidKey,
    KeyConflict,
    LocalStorage,
    MediaStorage,
    MissingKey,
    is_orphan,
    media_key,
    sweep_orphans,
)

SHA = "ab" + "0" * 62
KEY = f"originals/ab/{SHA}.jpg"
NOW = datetime(2024, 5, 17, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def store(tmp_path):
    return LocalStorage(tmp_path / "media")


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
    assert store.open_path(KEY).read_bytes() == b"photo bytes"
    assert all_files(store.root) == [KEY]  # no temp file left behind
    assert store.open_path(KEY).stat().st_mode & 0o777 == 0o644
    store.delete(KEY)
    store.delete(KEY)  # absent is fine
    assert not store.exists(KEY)
    with pytest.raises(MissingKey):
        store.get(KEY)


def test_put_is_atomic_fsyncs_file_and_directory(store, monkeypatch):
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
    store.put(KEY, b"x" * 100_000)
    assert seen and seen[0].startswith(".") and seen[0].endswith(".tmp")
    assert synced[0] == "file" and "dir" in synced[1:]
    assert store.get(KEY) == b"x" * 100_000


@pytest.mark.parametrize("failing", ["replace", "fsync", "fchmod"])
def test_crash_during_put_leaves_no_final_file_and_no_temp_file(store, monkeypatch, failing):
    def crash(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, crash)
    with pytest.raises(OSError):
        store.put(KEY, b"half a photo")
    monkeypatch.undo()
    assert not store.exists(KEY)
    assert all_files(store.root) == []
    store.put(KEY, b"whole photo")  # the retry then succeeds
    assert store.get(KEY) == b"whole photo"


def test_hard_crash_temp_files_are_never_keys_and_are_cleaned(store):
    store.put(KEY, b"done")
    folder = store.path_for(KEY).parent
    old, fresh = folder / f".{SHA}.jpg.abc123.tmp", folder / f".{SHA}.jpg.def456.tmp"
    old.write_bytes(b"partial")
    fresh.write_bytes(b"still being written")
    os.utime(old, ((NOW - timedelta(hours=2)).timestamp(),) * 2)
    os.utime(fresh, (NOW.timestamp(),) * 2)
    assert list(store.iter_keys()) == [KEY]
    removed = store.remove_stale_temp(older_than=NOW - timedelta(hours=1))
    assert removed == [f"originals/ab/{old.name}"]
    assert not old.exists() and fresh.exists()


def test_putting_the_same_bytes_again_is_a_no_op_that_refreshes_the_time(store):
    store.put(KEY, b"same")
    set_mtime(store, KEY, NOW - timedelta(days=3))
    store.put(KEY, b"same")
    assert store.get(KEY) == b"same"
    assert store.modified_at(KEY) > NOW - timedelta(days=3)
    assert all_files(store.root) == [KEY]


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
@pytest.mark.parametrize("operation", ["put", "get", "exists", "delete", "open_path"])
def test_unsafe_keys_are_refused(store, key, operation):
    args = (key, b"x") if operation == "put" else (key,)
    with pytest.raises(InvalidKey):
        getattr(store, operation)(*args)
    assert all_files(store.root.parent) == []


def test_a_symlink_cannot_lead_outside_the_root(store, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.root / "originals").symlink_to(outside)
    with pytest.raises(InvalidKey):
        store.put(KEY, b"x")
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
    for key in (recorded, old_orphan, fresh_orphan):
        store.put(key, key.encode())
        set_mtime(store, key, NOW - timedelta(days=2))
    set_mtime(store, fresh_orphan, NOW)

    assert sweep_orphans(store, {recorded}, CUTOFF) == [old_orphan]
    assert sorted(store.iter_keys()) == sorted([recorded, fresh_orphan])
    assert sweep_orphans(store, {recorded}, CUTOFF) == []  # re-runnable


def test_a_retried_upload_of_an_orphan_survives_the_sweep(store):
    key = media_key("originals", "4" * 64)
    store.put(key, b"orphaned by a crash yesterday")
    set_mtime(store, key, NOW - timedelta(days=1))
    store.put(key, b"orphaned by a crash yesterday")  # the client retries; its row is pending
    sweep_cutoff = datetime.now(timezone.utc) - timedelta(hours=1)
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
