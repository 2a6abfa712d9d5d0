"""Hit counts in fixed windows shared by every worker process of one app server, in a memory-mapped file.

Why (issue 22): counting each police scan in the database cost a write and a round trip per scan and held
verification below half a bare app's rate. Here a count is a few microseconds: a table of SLOTS slots in a
file in /dev/shm (memory, never written to disk), mapped by each process after its fork, locked with flock
around each count. A slot holds a bucket's hash and name, its window's start, the hits counted on this server,
how many of those the database has been sent, and the hits the other servers reported (shared with them
through the database, by flush). A bucket whose probe finds no free or ended slot takes the one whose window
started first. A crash leaves at worst counts of windows that end within the limit's window.
"""
import fcntl
import hashlib
import mmap
import os
import struct
import threading
from datetime import datetime, timedelta, timezone

SLOTS = 4_096  # distinct clients in one window per server; past that the oldest window gives way
PROBE = 32
_HEAD = struct.Struct("<8sq")  # magic, when the next flush is due (µs since the epoch)
_SLOT = struct.Struct("<qqIII4x64s")  # key, window start (µs), hits, sent, others, bucket
_PROBE_VIEW = struct.Struct("<" + f"qq{_SLOT.size - 16}x" * PROBE)  # the keys and starts of PROBE slots in a row
MAGIC = b"baliza1\0"
SIZE = _HEAD.size + SLOTS * _SLOT.size
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def micros(moment: datetime) -> int:
    """An aware moment as whole microseconds since the epoch."""
    return (moment - EPOCH) // timedelta(microseconds=1)


def moment(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=us)


def _key(bucket: str) -> int:
    return int.from_bytes(hashlib.blake2b(bucket.encode(), digest_size=8).digest(), "little", signed=True) or 1


class SharedCounts:
    """One server's counts: `hit` counts and answers, `take_unsent` and `hear` exchange them with the others."""

    def __init__(self, path: str, shared: bool = False):
        """`shared`: other servers count the same clients (through a server database): see take_unsent and hear."""
        self.path, self.shared, self.pid, self.thread_lock = path, shared, None, threading.Lock()

    def _open(self) -> None:
        """Map the file in this process (again after a fork: a lock belongs to its own open file)."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.fstat(fd).st_size != SIZE or os.pread(fd, len(MAGIC), 0) != MAGIC:  # new, or another layout's
            os.ftruncate(fd, 0)
            os.ftruncate(fd, SIZE)
            os.pwrite(fd, _HEAD.pack(MAGIC, 0), 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
        self.fd, self.map, self.pid = fd, mmap.mmap(fd, SIZE), os.getpid()

    def _locked(self):
        return _Held(self)

    def hit(self, bucket: str, now: datetime, window: timedelta) -> tuple[int, datetime]:
        """Count one hit in `bucket`'s window (a new one once `window` has passed): (hits on every server, start)."""
        at, span, key = micros(now), window // timedelta(microseconds=1), _key(bucket)
        with self._locked():
            offset, slot = self._find(key, at - span)
            if slot is None or slot[0] != key or slot[1] <= at - span or slot[1] > at:
                slot = (key, at, 0, 0, 0, bucket.encode()[:64])  # a new window (or a clock set back)
            slot = (slot[0], slot[1], slot[2] + 1, *slot[3:])
            self.map[offset:offset + _SLOT.size] = _SLOT.pack(*slot)
        return slot[2] + slot[4], moment(slot[1])

    def _find(self, key: int, ended: int) -> tuple[int, tuple | None]:
        """The slot of `key`, else a free or ended one, else the oldest on the probe: (offset, its contents or None).

        A key's probe is the PROBE slots from its home, read in one call (their keys and starts only)."""
        base = _HEAD.size + (key % (SLOTS - PROBE + 1)) * _SLOT.size
        found = _PROBE_VIEW.unpack_from(self.map, base)
        keys, starts = found[0::2], found[1::2]
        if key in keys:
            offset = base + keys.index(key) * _SLOT.size
            return offset, _SLOT.unpack_from(self.map, offset)
        spare = next((n for n, start in enumerate(starts) if start <= ended or not keys[n]), None)
        return base + (spare if spare is not None else starts.index(min(starts))) * _SLOT.size, None

    def take_unsent(self, now: datetime, every: timedelta) -> list[tuple[str, datetime, int]] | None:
        """If this server's flush is due (at most once per `every`, whichever worker asks first): each bucket's
        hits not yet sent, as (bucket, window start, hits), now counted as sent; else None."""
        at = micros(now)
        with self._locked():
            _, due = _HEAD.unpack_from(self.map, 0)
            if due and at < due:
                return None
            _HEAD.pack_into(self.map, 0, MAGIC, at + every // timedelta(microseconds=1))
            unsent = []
            slots = _SLOT.iter_unpack(memoryview(self.map)[_HEAD.size:])
            for index, (key, start, hits, sent, others, name) in enumerate(slots):
                if key and hits > sent:
                    unsent.append((name.rstrip(b"\0").decode(), moment(start), hits - sent))
                    _SLOT.pack_into(self.map, _HEAD.size + index * _SLOT.size, key, start, hits, hits, others, name)
            del slots
        return unsent

    def hear(self, totals: dict[str, int]) -> None:
        """Each bucket's hits on every server as the database holds them: the others' are those not counted here."""
        with self._locked():
            for bucket, total in totals.items():
                key = _key(bucket)
                offset, slot = self._find(key, 0)
                if slot is not None:
                    _SLOT.pack_into(self.map, offset, *slot[:4], max(0, total - slot[3]), slot[5])


    def clear(self) -> None:
        """Forget every count (a restored or emptied database: its windows went with it)."""
        with self._locked():
            self.map[:] = bytes(SIZE)
            _HEAD.pack_into(self.map, 0, MAGIC, 0)


class _Held:
    """The file's lock (between processes) and the object's (between a process's threads), held together."""

    def __init__(self, counts: SharedCounts):
        self.counts = counts

    def __enter__(self):
        self.counts.thread_lock.acquire()
        if self.counts.pid != os.getpid():
            self.counts._open()
        fcntl.flock(self.counts.fd, fcntl.LOCK_EX)

    def __exit__(self, *exc):
        fcntl.flock(self.counts.fd, fcntl.LOCK_UN)
        self.counts.thread_lock.release()
