"""Every Flask extension object, unbound, so no module needs to import the app."""
from flask_compress import Compress
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_sqlalchemy import SQLAlchemy
from flask_sqlalchemy.pagination import SelectPagination
from flask_wtf.csrf import CSRFProtect
from sqlalchemy import MetaData

# Stable constraint names so Alembic migrations are identical on SQLite and PostgreSQL.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}



def page_total(page: int, per_page: int, shown: int, count) -> int:
    """How many rows a paged list has: a page short of `per_page` (or an empty first page) is the last one, so its
    offset plus what it shows; any other page asks count(), a statement. Most pages (an owner's fleet, the board's
    lists, a search) are the last and cost no count."""
    if 0 < shown < per_page or (not shown and page == 1):
        return (page - 1) * per_page + shown
    return count()


class _Pagination(SelectPagination):
    """db.paginate's page, counted only when page_total must."""

    def _query_count(self) -> int:
        return page_total(self.page, self.per_page, len(self.items), super()._query_count)


class _Database(SQLAlchemy):
    """Flask-SQLAlchemy, its pages counted only when they must be (page_total)."""

    def paginate(self, select, *, page=None, per_page=None, max_per_page=None, error_out=True, count=True):
        return _Pagination(select=select, session=self.session(), page=page, per_page=per_page,
                           max_per_page=max_per_page, error_out=error_out, count=count)


db = _Database(metadata=MetaData(naming_convention=NAMING))
migrate = Migrate(render_as_batch=True)
login_manager = LoginManager()
csrf = CSRFProtect()
compress = Compress()

# The methods that only read (RFC 9110's safe methods, and flask-wtf's exemptions from CSRF): the one test of "a read"
# for the database's transactions, who may act (the access stamp) and a page session's use of the API.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def configure_sqlite(engine) -> None:
    """Make SQLite behave like a server database under concurrent requests.

    pysqlite defers BEGIN and breaks SAVEPOINTs, so SQLAlchemy's documented recipe takes over.
    Write-ahead logging lets readers and a writer proceed together. A request that may write
    begins with BEGIN IMMEDIATE: two deferred transactions that both read and then write would
    deadlock, and SQLite answers that at once with "database is locked" instead of waiting.
    Reads (SAFE_METHODS) and work outside a request (commands, migrations) begin deferred.
    Foreign keys are enforced. Does nothing on other databases.
    """
    from flask import has_request_context, request
    from sqlalchemy import event

    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection, record):
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=10000")
        if engine.url.database not in (None, "", ":memory:"):
            cursor.execute("PRAGMA journal_mode=WAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection):
        writing = has_request_context() and request.method not in SAFE_METHODS
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")


# A pooled server connection unused for this long is tested before use; one in steady use is not.
# Seconds: any restart takes longer (pg_ctl alone polls in 0.1 s steps); a busy worker reuses its connections
# within milliseconds, so under load nothing is pinged.
IDLE_BEFORE_PING = 0.05


def ping_when_idle(engine) -> None:
    """Test a pooled server connection before use only when it sat idle (SQLAlchemy's disconnect-handling recipe).

    `pool_pre_ping` pings on every checkout: a round trip on every request (two on a police scan).
    A connection the server dropped can only be one that sat in the pool while it restarted, so only
    those are pinged; a dead one is discarded and the pool opens a fresh one, and the request never
    notices. Does nothing on SQLite (a file cannot drop a connection).
    """
    import time

    from sqlalchemy import event, exc

    if engine.dialect.name == "sqlite":
        return

    @event.listens_for(engine, "checkin")
    def _checkin(dbapi_connection, record):
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_connection, record, proxy):
        idle_since = record.info.get("idle_since")
        if idle_since is None or time.monotonic() - idle_since < IDLE_BEFORE_PING:
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as error:
            raise exc.DisconnectionError("the idle connection did not answer") from error  # the pool opens another
