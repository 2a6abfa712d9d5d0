"""`GET /healthz` for the load balancer: no sign-in, no cookie, never cached."""
from flask import Blueprint, jsonify

from inspection.ops.health import run_checks

bp = Blueprint("health", __name__)

RETRY_AFTER_SECONDS = 10  # what a load balancer or a tablet waits before asking again


@bp.route("/healthz", methods=["GET", "HEAD"])
def healthz():
    """200 with every check "ok"; 503 naming the failing ones, with Retry-After."""
    checks = run_checks()
    healthy = all(result == "ok" for result in checks.values())
    response = jsonify({"status": "ok" if healthy else "fail", "checks": checks})
    response.status_code = 200 if healthy else 503
    response.headers["Cache-Control"] = "no-store"
    if not healthy:
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
