"""Several Baliza app servers as one: N gunicorn instances of the app on one database, bucket and key folder.

Each instance is its own gunicorn (`bench.wsgi:app`, configured only by BALIZA_* variables and boto3's
AWS_* credentials) on a free loopback port, all on one PostgreSQL database, one SeaweedFS bucket
(BALIZA_MEDIA_URL) and one key folder. State is seeded with the operations in the test process.
"""
import re
from contextlib import ExitStack, contextmanager

from bench.fixtures import server_env
from bench.harness import gunicorn

SECRET = "instances-shared-secret"  # one secret for every instance, as production's BALIZA_SECRET_KEY


def instance_config(app, bucket) -> dict:
    """The settings every instance shares: the test app's database and key folder, and `bucket` (tests.s3_server.Bucket)."""
    config = {key: app.config[key] for key in ("DATABASE_URL", "KEYS_DIR", "PASSWORD_METHOD", "PUBLIC_URL",
                                                 "OFFICE_CODE")}
    # The instances answer plain HTTP on loopback (TLS ends at the balancer), so their cookies must not be
    # Secure for the test's client to send them back; "false" is JSON, as Flask reads BALIZA_* values.
    return {**config, **bucket.config(), "SECRET_KEY": SECRET, "SESSION_COOKIE_SECURE": "false"}


@contextmanager
def instances(count: int, config: dict, env: dict | None = None, workers: int = 2):
    """`count` gunicorn servers of the app with the same BALIZA_* settings (and `env` as is); a list of Gunicorn."""
    with ExitStack() as stack:
        yield [stack.enter_context(gunicorn("bench.wsgi:app", {**server_env(config), **(env or {})}, workers=workers))
               for _ in range(count)]


def csrf_token(html: str) -> str:
    """The CSRF token a page's form carries."""
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html) or re.search(r'name="csrf-token" content="([^"]+)"', html)
    assert match, "no CSRF token on the page"
    return match[1]
