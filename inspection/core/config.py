"""Configuration layers: defaults, then the instance file, then BALIZA_* environment variables."""
import os
import secrets
from datetime import timedelta
from pathlib import Path

from inspection.core.clock import DEFAULT_ZONE, zone_named
from inspection.law.legal_terms import hull_late_fine, navegabilidad_practice

COUNTERSIGN_VALIDITIES = ("countersignature", "closing")
DEFAULTS = {
    "DATABASE_URL": None,  # None: SQLite file under the instance folder
    "MEDIA_DIR": None,  # None: instance/media
    "MEDIA_URL": None,  # s3://bucket/prefix: photos in object storage (storage_s3.py); None: MEDIA_DIR
    "S3_ENDPOINT_URL": None,  # an S3-compatible server (SeaweedFS, MinIO); None: AWS
    "KEYS_DIR": None,  # None: instance/keys (private signing keys, never in the database)
    "PUBLIC_URL": "http://127.0.0.1:5000",
    "OFFICE_CODE": "PGP-ASU",
    "OFFICE_NAME": "Prefectura General de Puertos — Asunción",
    "OFFICE_TZ": DEFAULT_ZONE,  # the law's "today" is the office's date, not the UTC one
    # The navegabilidad term is the Prefectura's practice, not the law's (arts. 201, 203): None takes
    # legal_terms.toml's [practice] (12 months). The inspector may shorten it (art. 203), never lengthen it.
    "NAVEGABILIDAD_MONTHS": None,
    # Art. 204 fines a late hull application without naming the amount: None (or 0) charges only the double
    # fee the article sets; an amount is the Prefectura's figure, billed as such (legal_terms.toml [practice]).
    "HULL_LATE_FINE": None,
    # Art. 221 (legal_terms.toml [countersignature]): "closing" issues a reviewed kind's certificate at the
    # inspector's closing, valid while the Prefecto's (or a delegate's) countersignature follows within the
    # practice's days (past them the review is overdue, never the certificate): a vessel found fit is not held
    # in port by the review's desk, and the police see it pending. "countersignature" issues it only once
    # countersigned, as the article has it signed by both (and lets the reviewer return a passed inspection first).
    "COUNTERSIGN_VALIDITY": "closing",
    # Reminders by email (reminders.py): with no host the notices are only in the app (/avisos).
    "SMTP_HOST": None,
    "SMTP_PORT": 25,
    "MAIL_FROM": None,
    "SMTP_TIMEOUT": 10,  # seconds per connection and command: a dead server fails the send, not the run
    "AUTO_SIGNING_KEY": False,  # make the office's first key on first issue: the demo only (`python app.py`)
    "VERIFY_CACHE_SIZE": 10_000,  # recent verdicts and signature checks kept per process; 0 checks every scan
    "STAMP_FEED": True,  # PostgreSQL: hear the data stamps from the writers' notices, not read them a request
    # bandit B105 reads this name and the two marked below as passwords: two lifetimes and a hash's name.
    "TOKEN_TTL_HOURS": 12,  # nosec B105
    # A tablet's device token outlives a trip up the river offline; its user or an admin revokes it.
    "DEVICE_TOKEN_DAYS": 30,  # nosec B105
    # Page sessions end after 8 h without a request (a shift left signed in on a shared desk or a
    # lost tablet) and 7 days after sign-in whatever the use: an inspector on a week's trip up
    # the river is not asked to sign in again mid-route, and a stolen cookie dies within a week.
    "SESSION_IDLE_MINUTES": 8 * 60,
    "SESSION_LIFETIME_HOURS": 7 * 24,
    "PASSWORD_METHOD": "scrypt",  # nosec B105
    "PHOTO_MAX_BYTES": 15 * 1024 * 1024,
    "PHOTO_MAX_PIXELS": 40_000_000,
    # Resumable uploads: the bytes a tablet should send per PATCH (published with the limits; on a
    # weak link a cut costs at most this much), and how long an unfinished upload's bytes are kept.
    "PHOTO_UPLOAD_CHUNK_BYTES": 1024 * 1024,
    "PHOTO_UPLOAD_KEEP_DAYS": 7,
    # A photo's flags for the reviewer (issue 24; places.py), never a refusal: taken farther than this from
    # the inspection's port (river_ports.toml places a port within ~2 km; a fix aboard is within tens of
    # metres), or this many minutes before its start or after its closing (a tablet's clock drifts).
    "PHOTO_FAR_FROM_PORT_KM": 15,
    "PHOTO_TIME_TOLERANCE_MINUTES": 30,
    "CHECKLIST_SETTINGS": {},
    "MAX_CONTENT_LENGTH": 20 * 1024 * 1024,  # the ceiling; each route has its own limit (body_limits.py)
    "BODY_MAX_BYTES": 1024 * 1024,  # JSON writes and page forms
    "SYNC_MAX_BYTES": 4 * 1024 * 1024,  # a tablet's sync batch and the closing with its signatures
    # Requests per client address (rate_limits.py): 'N/unit', or 0 to turn a limit off. Sign-in on top
    # of the per-account lockout; verification generous, the police scan a lot.
    "RATE_LIMIT_LOGIN": "30/minute",
    "RATE_LIMIT_VERIFY": "120/minute",
    "RATE_COUNTS_FILE": None,  # None: a file in /dev/shm named after the database (rate_limits.host_counts_path)
    # Proxies in front of the app whose X-Forwarded-For/-Proto are believed (security.py); 0 trusts none.
    "TRUSTED_PROXIES": 0,
    "CONTENT_SECURITY_POLICY": None,  # None: security.content_security_policy()
    "SESSION_COOKIE_SECURE": None,  # None: Secure when PUBLIC_URL is https://
    "API_TITLE": "Baliza",
    "API_VERSION": "v1",
    "OPENAPI_VERSION": "3.0.3",
    "OPENAPI_URL_PREFIX": "/api/v1",
    "OPENAPI_JSON_PATH": "openapi.json",
    "SESSION_COOKIE_HTTPONLY": True,
    "SESSION_COOKIE_SAMESITE": "Lax",
    "WTF_CSRF_TIME_LIMIT": None,
    "JSON_SORT_KEYS": False,
    "LOG_FORMAT": "json",  # BALIZA_LOG_FORMAT: json lines for servers (gunicorn), text for a person (`python app.py`)
}


def load_config(app, test_config=None, served_at=None):
    """Fill app.config from the layers; tests pass a mapping that wins over everything.

    `served_at` (the address `python app.py` serves at) replaces the default public URL; the instance
    file, BALIZA_PUBLIC_URL or the test mapping still win over it."""
    app.config.from_mapping(DEFAULTS)
    if served_at:
        app.config["PUBLIC_URL"] = served_at
    if test_config is None:
        app.config.from_pyfile("baliza.cfg", silent=True)
        app.config.from_prefixed_env("BALIZA")
    else:
        app.config.from_mapping(test_config)
    instance = Path(app.instance_path)
    if not app.config["DATABASE_URL"]:
        app.config["DATABASE_URL"] = f"sqlite:///{instance / 'baliza.sqlite'}"
    app.config["SQLALCHEMY_DATABASE_URI"] = app.config["DATABASE_URL"]
    # A server database can drop idle connections (restarts, failover): extensions.ping_when_idle tests
    # the ones that sat idle before use, rather than a ping on every request.
    server = not app.config["DATABASE_URL"].startswith("sqlite")
    app.config["MEDIA_DIR"] = app.config["MEDIA_DIR"] or str(instance / "media")
    app.config["KEYS_DIR"] = app.config["KEYS_DIR"] or str(instance / "keys")
    app.config["PUBLIC_URL"] = app.config["PUBLIC_URL"].rstrip("/")
    # The signed cookie itself stops being accepted when the longest session would have ended.
    app.config["PERMANENT_SESSION_LIFETIME"] = timedelta(hours=app.config["SESSION_LIFETIME_HOURS"])
    zone_named(app.config["OFFICE_TZ"])  # an unknown zone stops the app here, not on the first request
    navegabilidad_practice(app.config["NAVEGABILIDAD_MONTHS"])  # likewise
    if "NAVEGABILIDAD_MAX_MONTHS" in app.config:  # gone: an installation relying on it must hear so, not guess
        raise RuntimeError("BALIZA_NAVEGABILIDAD_MAX_MONTHS no longer exists: art. 203 lets the inspector fix a "
                           "shorter hull term, never a longer one; set the term itself with BALIZA_NAVEGABILIDAD_MONTHS")
    hull_late_fine(app.config["HULL_LATE_FINE"])  # likewise
    if app.config["COUNTERSIGN_VALIDITY"] not in COUNTERSIGN_VALIDITIES:
        raise RuntimeError(f"BALIZA_COUNTERSIGN_VALIDITY must be one of {', '.join(COUNTERSIGN_VALIDITIES)}")
    if not app.config.get("SECRET_KEY"):
        if server:
            # Several app servers share a server database: a secret made per instance folder would
            # sign cookies and CSRF tokens that the other servers refuse, at random, per request.
            raise RuntimeError("BALIZA_SECRET_KEY is required with a server database (BALIZA_DATABASE_URL): "
                               "set the same secret on every app server")
        app.config["SECRET_KEY"] = _instance_secret(instance)


def _instance_secret(instance: Path) -> str:
    """A per-installation secret kept in the instance folder, so sessions survive restarts."""
    path = instance / "secret_key"
    if path.exists():
        return path.read_text().strip()
    instance.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    return key
