"""Several Baliza app servers as one: N gunicorn instances of the app on one database, media and key folder.

Each instance is its own gunicorn (`bench.wsgi:app`, configured only by BALIZA_* variables) on a free
loopback port, all on one PostgreSQL database, one media folder (BALIZA_MEDIA_DIR; a bucket once
BALIZA_MEDIA_URL is set) and one key folder. State is seeded with the operations in the test process.
"""
import re
from contextlib import ExitStack, contextmanager

from bench.fixtures import server_env
from bench.harness import gunicorn

SECRET = "instances-shared-secret"  # one secret for every instance, as production's BALIZA_SECRET_KEY


def instance_config(app) -> dict:
    """The settings every instance shares with the test's app: its database, media and key folders."""
    config = {key: app.config[key] for key in ("DATABASE_URL", "MEDIA_DIR", "KEYS_DIR", "PASSWORD_METHOD",
                                                 "PUBLIC_URL", "OFFICE_CODE")}
    return {**config, "SECRET_KEY": SECRET}


@contextmanager
def instances(count: int, config: dict, workers: int = 2):
    """`count` gunicorn servers of the app with the same BALIZA_* settings; a list of Gunicorn, all stopped after."""
    with ExitStack() as stack:
        yield [stack.enter_context(gunicorn("bench.wsgi:app", server_env(config), workers=workers))
               for _ in range(count)]


def csrf_token(html: str) -> str:
    """The CSRF token a page's form carries."""
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html) or re.search(r'name="csrf-token" content="([^"]+)"', html)
    assert match, "no CSRF token on the page"
    return match[1]
