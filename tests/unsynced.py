"""The test databases do not wait for the disk at each commit: the suite's thousands of commits each waited on a
(shared) disk's flush, most of its time on a busy machine.

SQLite's synchronous=OFF and PostgreSQL's synchronous_commit=off leave what a commit makes visible, and when,
unchanged; a process killed mid-write loses nothing committed (the tablet journeys kill their server); only a crash
of the machine itself could lose the last commits, which no test makes. Test setup only: the app sets no such thing.
The photo store's file flushes likewise (unsynced_files).
"""
import os

from sqlalchemy import event


def unsynced_commits(engine) -> None:
    """From now on every new connection of `engine` commits without waiting for the disk."""
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, record):
        if engine.dialect.name == "sqlite":
            dbapi_connection.execute("PRAGMA synchronous=OFF")
        elif engine.dialect.name == "postgresql":
            dbapi_connection.execute("SET synchronous_commit TO off")
            dbapi_connection.commit()


def unsynced_files() -> None:
    """os.fsync checks its descriptor (an error stays an error) but no longer waits for the disk: the photo store's
    writes (two or three flushes a photo, dozens a closed inspection) in the tests' processes. The calls are still
    made, in their order; the tests of that order wrap os.fsync and count them."""
    os.fsync = _checked_no_flush


def _checked_no_flush(fd) -> None:
    os.fstat(fd)
