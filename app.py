"""Baliza: the application factory, and `python app.py` to run the demo on SQLite.

`create_app()` reads like a table of contents and does nothing at import time.
"""
import argparse
import os

from flask import Flask


class Baliza(Flask):
    """Flask, asking once per function whether a hook or view is a coroutine: Flask asks inspect on every call
    (some twenty a request, issue 22), and the answer never changes."""

    _SYNC_KEPT = 4096  # functions: every hook and view, with room; past it the memo starts again

    def ensure_sync(self, func):
        memo = self.__dict__.setdefault("_sync_memo", {})
        found = memo.get(func)
        if found is None:
            if len(memo) >= self._SYNC_KEPT:
                memo.clear()
            found = memo[func] = super().ensure_sync(func)
        return found


def create_app(test_config=None, served_at=None) -> Flask:
    """Build the app from defaults, the instance file, BALIZA_* variables, or `test_config`.

    `served_at` is the URL `python app.py` serves at: the public URL unless one is configured."""
    from inspection.core.config import load_config
    from inspection.media.configured import check_media_config

    app = Baliza(__name__, instance_relative_config=True)
    app.json.sort_keys = False  # keep the schema's field order, and skip a sort on every response
    load_config(app, test_config, served_at)
    check_media_config(app.config)
    register_logging(app)
    register_extensions(app)
    register_blueprints(app)
    register_security_headers(app)
    register_errorhandlers(app)
    register_commands(app)
    return app


def register_logging(app: Flask) -> None:
    """Request ids and one structured log line per request (refused requests too)."""
    from inspection.web.request_log import register_request_log

    register_request_log(app)


def register_extensions(app: Flask) -> None:
    """Bind every extension object to this app, and the request hooks around authorization in their order."""
    from inspection.accounts.auth import authorize_request
    from inspection.accounts.sessions import LazyCookieSessionInterface
    from inspection.core import models  # noqa: F401  (the tables must be known to Alembic)
    from inspection.core.extensions import (compress, configure_sqlite, csrf, db, login_manager, migrate,
                                             ping_when_idle)
    from inspection.core.readcache import watch_writes
    from inspection.i18n.language import remember_asked_language
    from inspection.web.hostile_input import refuse_hostile_body, refuse_hostile_url

    app.session_interface = LazyCookieSessionInterface()
    db.init_app(app)
    watch_writes()  # the caches' stamps move with every write, in its transaction
    with app.app_context():
        configure_sqlite(db.engine)
        ping_when_idle(db.engine)
    migrate.init_app(app, db, directory=str(app.root_path + "/migrations"))
    login_manager.init_app(app)
    login_manager.login_view = "pages.login"
    login_manager.login_message = None
    app.before_request(refuse_hostile_url)  # a NUL in the path or query: authorization looks records up by the path
    app.before_request(remember_asked_language)  # ?lang= sticks even when authorization or the view redirects
    app.before_request(authorize_request)  # before CSRF and argument parsing: a refused caller's form is never read
    csrf.init_app(app)
    app.before_request(refuse_hostile_body)  # after authorization and CSRF, before any view reads the body
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED_MIMETYPES)
    compress.init_app(app)


# Text worth compressing (a started inspection page is 150 kB of HTML); never JPEG, PNG, WebP or
# PDF, which are compressed already.
COMPRESSED_MIMETYPES = [
    "text/html", "text/css", "text/javascript", "text/plain", "text/csv", "application/javascript",
    "application/json", "application/problem+json", "application/manifest+json", "image/svg+xml",
]


def register_blueprints(app: Flask) -> None:
    """The JSON API and the pages (ids in paths are bounded, so a huge number is a 404, not an overflow)."""
    from werkzeug.routing import IntegerConverter, ValidationError

    from inspection.blueprints import register_api
    from inspection.web.hostile_input import MAX_DIGITS

    class BoundedInt(IntegerConverter):
        def __init__(self, map, fixed_digits=0, min=None, max=2**31 - 1, signed=False):
            super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)

        def to_python(self, value):
            if len(value) > MAX_DIGITS:  # past int()'s limit (4,300 digits) a ValueError would escape routing: a 500
                raise ValidationError()
            return super().to_python(value)

    app.url_map.converters["int"] = BoundedInt
    from inspection.blueprints import register_views
    from inspection.core.extensions import csrf

    register_api(app)
    for name, blueprint in app.blueprints.items():
        if name.startswith("api_"):
            csrf.exempt(blueprint)  # the API authenticates with bearer tokens, not cookies
    register_views(app)


def register_security_headers(app: Flask) -> None:
    """Headers every response carries (CSP, HSTS over HTTPS, no sniffing, no framing, no token in Referer),
    secure cookies and trusted proxies, per-client rate limits and per-route body limits."""
    from inspection.core.extensions import csrf
    from inspection.web import security
    from inspection.web.body_limits import init_body_limits
    from inspection.web.rate_limits import init_rate_limits

    security.configure_transport(app)
    app.register_blueprint(security.bp)
    csrf.exempt(security.bp)  # browsers post violation reports without a token
    init_rate_limits(app)
    init_body_limits(app)  # first of all hooks: nothing reads a body before its limit is set
    app.after_request(security.security_headers(security.policy_for(app.config),
                                                security.served_over_https(app.config)))


def register_errorhandlers(app: Flask) -> None:
    """Every refusal becomes problem+json or an error page, in the user's language."""
    from inspection.web.errors import register_error_handlers

    register_error_handlers(app)


def register_commands(app: Flask) -> None:
    """The `flask --app app ...` commands."""
    from inspection.ops.cli import register_commands as register
    from inspection.ops.cli_backup import backup_command, restore_command
    from inspection.ops.cli_keys import keys_cli
    from inspection.ops.cli_media import media_cli

    register(app)
    app.cli.add_command(keys_cli)
    app.cli.add_command(media_cli)
    app.cli.add_command(backup_command)
    app.cli.add_command(restore_command)


def main(argv=None) -> None:
    """Create or upgrade the database, seed the demo if empty, print the logins and serve."""
    parser = argparse.ArgumentParser(description="Baliza: servidor de demostración")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args(argv)
    os.environ.setdefault("BALIZA_AUTO_SIGNING_KEY", "true")  # the demo makes its own key; production runs `keys new`
    os.environ.setdefault("BALIZA_LOG_FORMAT", "text")  # a person reads the demo's terminal; servers log JSON
    from inspection.ops.serving import WILDCARD_HOSTS, lan_address, served_url

    url = served_url(args.host, args.port, lan_address() if args.host in WILDCARD_HOSTS else None)
    app = create_app(served_at=url)  # QR codes, PDFs and calendar links point where the demo is served
    from inspection.ops.demo import prepare_database

    with app.app_context():
        seeded = prepare_database()
    public = app.config["PUBLIC_URL"]
    print(f"\nBaliza en {url}  (base de datos: {app.config['SQLALCHEMY_DATABASE_URI']})")
    if args.host in WILDCARD_HOSTS and not url.startswith("http://127."):
        print(f"Desde un teléfono o una tableta en la misma red: {url}")
    print(f"Dirección pública (códigos QR, PDF, calendarios): {public}")
    if public == url:
        print("En producción, fije la dirección que verán los códigos QR: "
              "BALIZA_PUBLIC_URL=https://baliza.example.gov.py")
    print("Demostración recién creada." if seeded else "Base existente: no se sembró nada.")
    print("Usuarios de demostración (contraseña 'baliza-demo'): admin, inspector, owner, police\n")
    app.run(host=args.host, port=args.port, debug=False)


if __name__ == "__main__":
    main()
