"""Verification benchmark: GET /api/v1/verify/{token} as production runs it, against a bare Flask hello-world.

python bench/verify.py [--seconds N] [--rounds R] [--workers W] [--database-url URL]
Production's configuration: PostgreSQL (a scratch database, dropped after), gunicorn W workers (4) as gunicorn.conf.py sets them,
one trusted proxy and the rate limits at their defaults, each scan from another police phone's address
(X-Forwarded-For), loaded by wrk. Beside it, the same app with the limits off (what they cost) and with
the signature checked on every scan (no verdict cache). Also prints the certificate's QR version and
printed size. Writes bench/results/verify.json.
"""
import argparse
import contextlib
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.api import call, seed  # noqa: E402
from bench.fixtures import production_config, scratch_database, server_env  # noqa: E402
from bench.harness import compare, interleaved, load, production_server, report, serve  # noqa: E402


def issue_demo_certificate(config: dict) -> dict:
    """Issue a real certificate for a seeded vessel through the issuing operation; return its facts."""
    from app import create_app
    from inspection.certificates.keys import signer
    from inspection.certificates.operations import issue_certificate
    from inspection.certificates.qrcodes import make_qr
    from inspection.core.clock import office_date, office_now
    from inspection.core.extensions import db
    from inspection.core.models import Inspection, User, Vessel
    from inspection.core.office import current_office

    app = create_app(config)
    with app.app_context():
        admin = db.session.scalar(db.select(User).filter_by(username="admin"))
        inspector = db.session.scalar(db.select(User).filter_by(username="inspector"))
        vessel = db.session.scalar(db.select(Vessel).filter_by(registration="PY-1001"))
        now = office_now()
        today = office_date(now)
        inspection = Inspection(vessel=vessel, kind="seguridad", inspector_id=inspector.id, scheduled_on=today,
                                port="Asunción", status="submitted", outcome="passed", created_by_id=admin.id,
                                submitted_at=now)
        db.session.add(inspection)
        db.session.flush()
        certificate = issue_certificate(inspector, inspection, current_office(), signer(current_office(), now),
                                        today, now, today)
        db.session.commit()
        qr = make_qr(config["PUBLIC_URL"], certificate.token)
        facts = {"token": certificate.token, "number": certificate.number, "qr_version": qr.version,
                 "modules": qr.modules, "token_chars": len(certificate.token)}
        db.engine.dispose()
    return facts


def main(argv=None) -> None:
    """Seed, issue, serve the apps, check the verdict is valid, measure interleaved rounds, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--database-url", help="PostgreSQL URL (SQLAlchemy form); created and dropped if missing")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory(prefix="baliza-bench-"))
        url = stack.enter_context(scratch_database(args.database_url))
        config = {**production_config(tmp, url, {}), "PUBLIC_URL": "https://baliza.prefectura.gov.py"}
        seed(config)
        facts = issue_demo_certificate(config)
        env = server_env(config)
        apps = {"hello (baseline)": ("bench.hello:app", {}),
                "verify (production: limits on)": ("bench.wsgi:app", env),
                "verify, limits off": ("bench.wsgi:app", {**env, "BALIZA_RATE_LIMIT_VERIFY": "0"}),
                "verify, signature checked every scan": ("bench.wsgi:app", {**env, "BALIZA_VERIFY_CACHE_SIZE": "0"})}
        urls = {}
        for name, (target, app_env) in apps.items():
            base = stack.enter_context(serve(target, app_env, workers=args.workers))
            urls[name] = f"{base}/" if name.startswith("hello") else f"{base}/api/v1/verify/{facts['token']}"
        status, body = call(urls["verify (production: limits on)"], headers={"X-Forwarded-For": "10.255.0.1"})
        if status != 200 or body.get("verdict") != "valid":
            sys.exit(f"verify failed before measuring: {status} {str(body)[:500]}")
        for url in urls.values():
            load(url, seconds=1, spread_clients=True)
        runs = {name: (lambda url=url: load(url, seconds=args.seconds, spread_clients=True))
                for name, url in urls.items()}
        results = interleaved(args.rounds, runs)
    rows = compare(results, "hello (baseline)")
    # Printed at 0.57 mm per module (certificate_pdf), quiet zone of 4 modules on each side.
    printed_mm = (facts["modules"] + 8) * 0.57
    rows.append({"name": f"QR version {facts['qr_version']} ({facts['modules']} modules), token "
                         f"{facts['token_chars']} chars, printed {printed_mm:.0f} mm wide"})
    report(f"Public verification vs bare Flask: PostgreSQL, {production_server(args.workers)}, wrk 16 connections, "
           f"{args.rounds} rounds x {args.seconds:g} s", rows, name="verify")
    if any(row.get("errors") for row in rows):
        sys.exit("some requests failed: see the errors column")


if __name__ == "__main__":
    main()
