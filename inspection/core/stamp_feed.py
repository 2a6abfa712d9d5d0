"""The data stamps pushed to every process by PostgreSQL's LISTEN/NOTIFY, so a request need not read them.

Why (issue 22): reading the stamps was the one round trip left on a police scan answered from the kept
verdicts, and with four workers on two cores it held the scan below half a bare app's rate. Every write
that redraws a stamp also sends NOTIFY in its transaction (readcache._redraw); PostgreSQL delivers it to
every listening connection once the writer commits, to each app server alike. A process keeps one
listening connection and, on a request, drains what arrived with a non-blocking read of its socket (no
round trip). A process's own commits are applied at once (note_committed), so it always sees its own
writes; another process or server sees them as soon as the notice arrives, within milliseconds.

`access` (who a bearer token is, and whether it is still open) is heard by reads and read by writes: a
revoked device is refused its next write on every server, and its reads within the milliseconds a notice
takes to land (a GET of the vessel list would otherwise spend a third of its time on that round trip,
issue 22). When the listening
connection is not there (SQLite, a fresh or broken connection) the stamps are read as before: the feed only
ever saves the read (a failed connection is tried again after RETRY seconds). It resynchronises every RESYNC
seconds and on a `*` notice (a bulk change).
"""
import os
import select
import threading
import time

import psycopg

CHANNEL = "baliza_stamps"
EXACT = {"access"}  # read by every write (not GET, HEAD, OPTIONS): a revocation holds on the next write anywhere
RESYNC = 60.0
RETRY = 10.0  # seconds between attempts to connect again (the stamps are read meanwhile)
_feeds: dict = {}
_lock = threading.Lock()


class StampFeed:
    """One process's listening connection to one database and the stamps it has heard."""

    def __init__(self, url: str, table: str):
        self.url, self.table = url, table
        self.connection: psycopg.Connection | None = None
        self.stamps: dict[str, int] = {}
        self.synced_at = self.retry_at = 0.0
        self.poll = None
        self.lock = threading.Lock()  # a threaded server's requests share the connection

    def current(self) -> dict[str, int] | None:
        """The stamps as of the notices received so far, or None when the feed cannot vouch for them."""
        with self.lock:
            return self._current()

    def _current(self) -> dict[str, int] | None:
        try:
            if self.connection is None or self.connection.closed:
                if time.monotonic() < self.retry_at:
                    return None
                self._connect()
            elif time.monotonic() - self.synced_at > RESYNC:
                self._resync()
            else:
                self._drain()
        except (psycopg.Error, OSError):
            self._drop()
            self.retry_at = time.monotonic() + RETRY  # not a connection attempt on every request meanwhile
            return None
        return self.stamps

    def apply(self, drawn: dict[str, int]) -> None:
        """Take stamps this process has just committed (their notices follow, and change nothing)."""
        with self.lock:
            if self.connection is not None:
                self.stamps = {**self.stamps, **drawn}

    def _connect(self) -> None:
        self.connection = psycopg.connect(self.url, autocommit=True, connect_timeout=5)
        self.connection.execute(f"LISTEN {CHANNEL}")
        self.poll = select.poll()  # poll, not select: any descriptor number
        self.poll.register(self.connection.pgconn.socket, select.POLLIN)
        self._resync()  # after LISTEN: a write committed in between is both read here and heard

    def _resync(self) -> None:
        """Read every stamp afresh (what was heard before this read is in it)."""
        self._drain()
        rows = self.connection.execute(f"SELECT name, stamp FROM {self.table}").fetchall()  # nosec B608 (model's table)
        self.stamps, self.synced_at = dict(rows), time.monotonic()

    def _drain(self) -> None:
        """Apply the notices already on the socket, without waiting (a `*`: read them all again)."""
        if not self.poll.poll(0):
            return
        pgconn = self.connection.pgconn
        pgconn.consume_input()
        heard, everything = {}, False
        while (notice := pgconn.notifies()) is not None:
            name, _, stamp = notice.extra.decode().partition(":")
            if name == "*":
                everything = True
            else:
                heard[name] = int(stamp)
        if everything:
            self._resync()
        elif heard:
            self.stamps = {**self.stamps, **heard}

    def _drop(self) -> None:
        if self.connection is not None:
            try:
                self.connection.close()
            except psycopg.Error:
                pass
        self.connection, self.stamps = None, {}


def feed_for(url: str, table: str) -> StampFeed:
    """This process's feed for a database (made after a fork: a connection is never shared between processes)."""
    key = (os.getpid(), url)
    with _lock:
        feed = _feeds.get(key)
        if feed is None:
            feed = _feeds[key] = StampFeed(url, table)
    return feed


def read_afresh() -> None:
    """Every feed of this process reads all the stamps again when next asked: after a bulk change that sent no
    notice (saved rows put back), which the notices alone would never tell."""
    with _lock:
        feeds = list(_feeds.values())
    for feed in feeds:
        with feed.lock:
            feed.synced_at = 0.0
