"""Write-once media storage with atomic puts, and the orphan sweep for crash recovery.

Ordering contract (photos and every other stored file):
    write files first (atomic), then commit the DB row; a crash between leaves only unrecorded
    files, which the sweep removes; a recorded row never points to a missing file.

What makes that hold:
* ``put`` never exposes a partial file: it writes a temp file in the target directory, flushes,
  ``fsync``s, ``os.replace``s it onto the final name and ``fsync``s the directory, so after a
  crash the key holds either nothing or all of its bytes (a leftover temp file is never a key;
  ``LocalStorage.remove_stale_temp`` deletes old ones).
* Keys are write-once. Putting the same bytes again is a no-op that refreshes the file's
  modification time, so a retried upload of a file orphaned earlier is protected from the sweep
  by its grace period while its DB row is being committed; different bytes are ``KeyConflict``.
  Two concurrent first puts of one key with different bytes could both pass the check (last
  writer wins); with content-addressed keys that would take a SHA-256 collision.
* ``sweep_orphans`` deletes only keys absent from the DB *and* last written before
  ``older_than``. The job reads ``known_keys`` from the DB first and passes a cutoff that is
  longer than any upload request before that read (an hour is ample for one request per
  photo): a file whose row commits after the read was written after the cutoff and is kept.
* A store that cannot be reached raises ``StorageUnavailable`` before anything is recorded: the
  request that was writing fails (503 with Retry-After) and its retry writes the same keys again.

``LocalStorage`` is the default; ``storage_s3.S3Storage`` keeps the same contract in a bucket.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import BinaryIO, Container, Iterator, Protocol, runtime_checkable

_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
MAX_KEY_LENGTH = 512
MEDIA_KINDS = ("originals", "display", "thumbs", "signatures")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp"}


class StorageError(Exception):
    """Base class for media storage failures."""


class InvalidKey(StorageError, ValueError):
    """A key that is not a plain relative path of safe segments (e.g. '../x', '/etc/x')."""


class KeyConflict(StorageError):
    """A write-once key already holds different bytes."""


class MissingKey(StorageError, KeyError):
    """No file is stored under the key."""


class StorageUnavailable(StorageError):
    """The store cannot be reached or answers with a server error: try again later, nothing was recorded."""

    retry_after = 30  # seconds a client should wait before retrying (the Retry-After header)


@dataclass
class StoredFile:
    """An open stored file to stream: a binary stream (close it when done) and its length in bytes."""

    stream: BinaryIO
    size: int


@runtime_checkable
class MediaStorage(Protocol):
    """Where photo bytes live; the DB holds only keys. ``open_path`` and ``content_sha256`` are optional."""

    def put(self, key: str, data: bytes, sha256: str | None = None) -> None:
        """Store ``data`` under ``key`` atomically and durably before returning; same bytes again is a no-op.

        ``sha256``, the bytes' digest when the caller already has it, spares a store that records it a second hash.
        """

    def get(self, key: str) -> bytes:
        """The bytes under ``key``; MissingKey if absent."""

    def open_stream(self, key: str) -> StoredFile:
        """The bytes under ``key`` as a stream with its length, to serve large files; MissingKey if absent."""

    def exists(self, key: str) -> bool:
        """Whether ``key`` holds a complete file."""

    def delete(self, key: str) -> None:
        """Remove ``key``; absent keys are fine, so a sweep can be re-run."""

    def iter_keys(self, prefix: str = "") -> Iterator[str]:
        """Every stored key starting with ``prefix``, in sorted order."""

    def modified_at(self, key: str) -> datetime:
        """When ``key`` was last written (aware UTC), for the sweep's grace period."""

    def ping(self) -> None:
        """Return if the storage can be written now, else raise StorageError (the health check)."""


def validate_key(key: str) -> str:
    """Return ``key`` if it is 'seg/seg/name' of safe segments, else raise InvalidKey."""
    if not isinstance(key, str) or not key or len(key) > MAX_KEY_LENGTH:
        raise InvalidKey(f"invalid media key: {key!r}")
    if not all(_SEGMENT.match(part) for part in key.split("/")):
        raise InvalidKey(f"invalid media key: {key!r}")
    return key


def media_key(kind: str, sha256: str, mime: str = "image/jpeg") -> str:
    """The content-addressed key of a photo copy or a signature, e.g. 'originals/ab/abcd…ef.jpg'."""
    if kind not in MEDIA_KINDS or not _HEX64.match(sha256) or mime not in _EXTENSIONS:
        raise InvalidKey(f"invalid media key parts: {kind!r}, {sha256!r}, {mime!r}")
    return f"{kind}/{sha256[:2]}/{sha256}.{_EXTENSIONS[mime]}"


class LocalStorage:
    """MediaStorage on a local directory tree (one file per key)."""

    TEMP_SUFFIX = ".tmp"

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root).resolve()
        self.root.mkdir(parents=True, exist_ok=True)

    def path_for(self, key: str) -> Path:
        """The file path of ``key``, refusing anything that would resolve outside the root."""
        path = self.root.joinpath(*validate_key(key).split("/"))
        if not path.resolve().is_relative_to(self.root):  # a symlinked directory, say
            raise InvalidKey(f"media key escapes the storage root: {key!r}")
        return path

    open_path = path_for

    def put(self, key: str, data: bytes, sha256: str | None = None) -> None:
        """Write atomically and durably (the file, then its directory); no-op for identical bytes, KeyConflict otherwise.

        Two fsyncs per new file (three when its two-letter folder is new); a file is not hashed here.
        """
        path = self.path_for(key)
        if self._same_as_stored(path, data):
            os.utime(path)  # restart the sweep's grace period for this retried upload
            _fsync_dir(path.parent)  # a put that crashed after its rename may not have made the entry durable
            return
        created = _make_dirs(path.parent, self.root)
        _write_atomically(path, data, self.TEMP_SUFFIX)
        for directory in [path.parent, *created]:
            _fsync_dir(directory)

    def _same_as_stored(self, path: Path, data: bytes) -> bool:
        """True if ``path`` already holds ``data``; KeyConflict if it holds other bytes."""
        try:
            stored = path.read_bytes()
        except FileNotFoundError:
            return False
        if stored != data:
            raise KeyConflict(f"{path.relative_to(self.root).as_posix()} holds other bytes")
        return True

    def get(self, key: str) -> bytes:
        """The stored bytes; MissingKey if absent."""
        try:
            return self.path_for(key).read_bytes()
        except FileNotFoundError:
            raise MissingKey(key) from None

    def exists(self, key: str) -> bool:
        """Whether a complete file is stored under ``key``."""
        return self.path_for(key).is_file()

    def open_stream(self, key: str) -> StoredFile:
        """The open file and its size; MissingKey if absent."""
        try:
            handle = self.path_for(key).open("rb")
        except FileNotFoundError:
            raise MissingKey(key) from None
        return StoredFile(handle, os.fstat(handle.fileno()).st_size)

    def content_sha256(self, key: str) -> str:
        """The SHA-256 of the stored bytes, read in chunks; MissingKey if absent."""
        return sha256_of_stream(self.open_stream(key).stream)

    def delete(self, key: str) -> None:
        """Remove the file; absent is fine."""
        self.path_for(key).unlink(missing_ok=True)

    def ping(self) -> None:
        """The root is a directory this process may write (no file is written: the check runs every few seconds)."""
        if not self.root.is_dir() or not os.access(self.root, os.W_OK | os.X_OK):
            raise StorageError(f"media root {self.root} is missing or not writable")

    def modified_at(self, key: str) -> datetime:
        """The file's modification time as aware UTC; MissingKey if absent."""
        try:
            mtime = self.path_for(key).stat().st_mtime
        except FileNotFoundError:
            raise MissingKey(key) from None
        return datetime.fromtimestamp(mtime, timezone.utc)

    def iter_keys(self, prefix: str = "") -> Iterator[str]:
        """Stored keys starting with ``prefix``, sorted; temp files are never keys."""
        top = self.root.joinpath(*prefix.split("/")[:-1]) if "/" in prefix else self.root
        if not top.resolve().is_relative_to(self.root):
            raise InvalidKey(f"invalid key prefix: {prefix!r}")
        for path in sorted(_walk_files(top)):
            key = path.relative_to(self.root).as_posix()
            if key.startswith(prefix) and _is_key(key):
                yield key

    def remove_stale_temp(self, older_than: datetime) -> list[str]:
        """Delete temp files left by a crash mid-put, if older than ``older_than``."""
        removed = []
        for path in _walk_files(self.root):
            if path.name.startswith(".") and path.name.endswith(self.TEMP_SUFFIX):
                if datetime.fromtimestamp(path.stat().st_mtime, timezone.utc) < older_than:
                    path.unlink(missing_ok=True)
                    removed.append(path.relative_to(self.root).as_posix())
        return sorted(removed)


def sha256_of_stream(stream: BinaryIO, chunk: int = 1 << 20) -> str:
    """The hex SHA-256 of a stream read to its end in chunks (never whole in memory), then closed."""
    digest = hashlib.sha256()
    try:
        while block := stream.read(chunk):
            digest.update(block)
    finally:
        stream.close()
    return digest.hexdigest()


def _is_key(key: str) -> bool:
    """Whether a relative path is a valid key (temp files start with a dot and are not)."""
    try:
        validate_key(key)
    except InvalidKey:
        return False
    return True


def _walk_files(top: Path) -> Iterator[Path]:
    """Every regular file below ``top`` (no symlinks followed)."""
    for dirpath, _dirs, files in os.walk(top):
        for name in files:
            path = Path(dirpath, name)
            if path.is_file() and not path.is_symlink():
                yield path


def _make_dirs(directory: Path, root: Path) -> list[Path]:
    """mkdir -p; returns the parents of newly created directories, whose entries must be synced."""
    missing = []
    while not directory.exists() and directory != root:
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        path.mkdir(exist_ok=True)
    return [path.parent for path in missing]


def _write_atomically(path: Path, data: bytes, suffix: str) -> None:
    """Temp file in the same directory, write, flush, fsync, os.replace; no temp left on error."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), 0o644)  # readable by a front-end server serving media
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


def _fsync_dir(directory: Path) -> None:
    """Make a rename or new entry in ``directory`` durable."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def is_orphan(key: str, modified_at: datetime, known_keys: Container[str],
              older_than: datetime) -> bool:
    """A stored key no DB row records, written before the cutoff (the in-flight grace)."""
    return key not in known_keys and modified_at < older_than


CONTENT_ADDRESSED = ("originals", "signatures")  # their keys name the SHA-256 of their own bytes


@dataclass
class CopyReport:
    """What ``copy_store`` did: keys copied and verified, already present with the same hash, and mismatched."""

    copied: int = 0
    present: int = 0
    mismatched: list[tuple[str, str]] = field(default_factory=list)  # (key, 'source' | 'target' | 'copy')


def stored_sha256(storage: MediaStorage, key: str) -> str:
    """The SHA-256 of what ``storage`` holds under ``key``: its own record when it keeps one, else by reading it."""
    own = getattr(storage, "content_sha256", None)
    return own(key) if own is not None else sha256_of_stream(storage.open_stream(key).stream)


def expected_sha256(key: str, actual: str) -> str:
    """The hash a key's bytes must have: named in content-addressed keys, else the source file's own."""
    kind, *_rest, name = key.split("/")
    return name.split(".")[0] if kind in CONTENT_ADDRESSED and _HEX64.match(name.split(".")[0]) else actual


def copy_store(source: MediaStorage, target: MediaStorage) -> CopyReport:
    """Copy every key of ``source`` missing from ``target``, reading each copy back to check its hash.

    Resumable: a key the target already holds with the expected hash is skipped without reading it
    (S3Storage keeps the hash in metadata), so a rerun after an interrupt copies only what is missing.
    A source file whose bytes do not match its content-addressed name, a target holding other bytes,
    or a copy that reads back wrong is a mismatch, reported and never overwritten.
    """
    report = CopyReport()
    for key in source.iter_keys():
        data = source.get(key)
        actual = hashlib.sha256(data).hexdigest()
        expected = expected_sha256(key, actual)
        if actual != expected:
            report.mismatched.append((key, "source"))
        elif target.exists(key):
            if stored_sha256(target, key) == expected:
                report.present += 1
            else:
                report.mismatched.append((key, "target"))
        else:
            target.put(key, data)
            if sha256_of_stream(target.open_stream(key).stream) == expected:  # read back, not the metadata
                report.copied += 1
            else:
                report.mismatched.append((key, "copy"))
    return report


def sweep_orphans(storage: MediaStorage, known_keys: Container[str], older_than: datetime,
                  prefix: str = "") -> list[str]:
    """Delete stored files no DB row records, written before ``older_than``; returns their keys."""
    removed = []
    for key in storage.iter_keys(prefix):
        if key in known_keys:
            continue
        try:  # read the time just before deleting: a retried put refreshes it
            modified = storage.modified_at(key)
        except MissingKey:
            continue
        if is_orphan(key, modified, known_keys, older_than):
            storage.delete(key)
            removed.append(key)
    return removed
