"""Cookie sessions that cost nothing when no cookie came: API calls and police scans carry none.

Flask's default interface builds an itsdangerous serializer on every request, even without a
cookie; on the public verification endpoint that was the largest single cost (bench/verify.py).
"""
from flask.sessions import SecureCookieSessionInterface


class LazyCookieSessionInterface(SecureCookieSessionInterface):
    """The standard signed-cookie session, with its serializer built once per secret key."""

    def get_signing_serializer(self, app):
        cached = getattr(self, "_serializer", None)
        key = (app.secret_key, tuple(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        if cached is None or cached[0] != key:
            cached = self._serializer = (key, super().get_signing_serializer(app))
        return cached[1]

    def open_session(self, app, request):
        if app.config["SESSION_COOKIE_NAME"] not in request.cookies:
            return self.session_class()
        return super().open_session(app, request)

    def save_session(self, app, session, response):
        if not session and not session.modified:
            return  # nothing was stored and nothing must be deleted: no cookie work at all
        super().save_session(app, session, response)
