"""Response headers and transport settings: a Content-Security-Policy, HSTS and secure cookies over HTTPS.

The pages run no inline script or style (every script is a file under static/js, every style a
class in static/css), so the policy admits only this origin. `img-src` also admits `data:` (the
signature canvas's preview) and `blob:` (the tablet's photo previews from IndexedDB). Photos in a
bucket are streamed through the app too (media.media_response), never redirected to the bucket, so
no S3 endpoint needs admitting. JSON data blocks
(`<script type="application/json">`) are never executed, so `script-src` does not concern them.
One page, the police verifier (/verificar), adds 'wasm-unsafe-eval' to `script-src`
(`with_webassembly`): it compiles its QR reader, static/vendor/zxing_reader.wasm fetched from this
origin, and that keyword admits WebAssembly compilation and nothing else; 'unsafe-eval' (eval,
new Function, strings given to setTimeout) stays refused there and everywhere.

Behind a load balancer the app sees the balancer's address and plain HTTP; `TRUSTED_PROXIES` (how
many proxies stand in front) makes Werkzeug's ProxyFix believe that many `X-Forwarded-For` and
`X-Forwarded-Proto` hops, and no more: a client cannot forge its address or scheme through a proxy
that was not declared. The rate limits read the client address from the same corrected
`request.remote_addr`.
"""
from flask import Blueprint, Flask, current_app, request
from werkzeug.middleware.proxy_fix import ProxyFix

HSTS = "max-age=31536000; includeSubDomains"
CSP_REPORT_PATH = "/csp-report"

bp = Blueprint("security", __name__)


def content_security_policy() -> str:
    """The policy every response carries: this origin only, no inline code, no framing, no plugins."""
    return "; ".join((
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "connect-src 'self'",
        "font-src 'self'",
        "media-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "form-action 'self'",
        "worker-src 'self'",
        "manifest-src 'self'",
        f"report-uri {CSP_REPORT_PATH}",
    ))


def with_webassembly(policy: str) -> str:
    """`policy` letting the page compile WebAssembly ('wasm-unsafe-eval' in script-src), for the one page that needs it."""
    return policy.replace("script-src ", "script-src 'wasm-unsafe-eval' ", 1)


def served_over_https(config) -> bool:
    """Whether the public address is HTTPS: then cookies are Secure and browsers are told to stay on HTTPS."""
    return config["PUBLIC_URL"].startswith("https://")


def configure_transport(app: Flask) -> None:
    """Secure cookies when the public address is HTTPS, and ProxyFix for the declared proxies (config time)."""
    https = served_over_https(app.config)
    for key in ("SESSION_COOKIE_SECURE", "REMEMBER_COOKIE_SECURE"):  # Flask-WTF keeps its token in the session
        app.config.setdefault(key, https)
        if app.config[key] is None:
            app.config[key] = https
    hops = int(app.config.get("TRUSTED_PROXIES") or 0)
    if hops:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)


def policy_for(config) -> str:
    """The configured policy (`CONTENT_SECURITY_POLICY`), else ours (the same with or without a bucket)."""
    return config.get("CONTENT_SECURITY_POLICY") or content_security_policy()


def security_headers(policy: str, https: bool):
    """An after_request hook: the CSP, no sniffing, no framing, no Referer on every response; HSTS over HTTPS.

    The values are fixed per app and a response's headers are read once (Headers.setdefault scans
    them per call), so the hook costs a few microseconds. Browsers ignore HSTS received over plain
    HTTP (RFC 6797 §8.1), so sending it whenever the public address (`https`) is HTTPS is harmless
    when no proxy said the scheme.
    """
    always = (("Content-Security-Policy", policy), ("X-Content-Type-Options", "nosniff"),
              ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer"))
    with_hsts = (*always, ("Strict-Transport-Security", HSTS))

    def add(response):
        headers = response.headers
        present = {name.lower() for name in headers.keys()}
        for name, value in with_hsts if https or request.is_secure else always:
            if name.lower() not in present:
                headers.add(name, value)
        return response

    return add


@bp.post(CSP_REPORT_PATH)
def csp_report():
    """Browsers report what the policy blocked: logged, so a page that breaks under the policy is seen."""
    body = request.get_data(as_text=True)[:2000]
    current_app.logger.warning("csp violation: %s", body)
    return "", 204
