"""Gunicorn settings for Baliza's app servers: `gunicorn -c gunicorn.conf.py 'app:create_app()'` (docs/deployment.md).

Forwarded headers: gunicorn believes none (`forwarded_allow_ips` is empty, so no `X-Forwarded-Proto`
from loopback or anywhere makes a request "secure"). The app alone believes exactly the
`BALIZA_TRUSTED_PROXIES` hops a load balancer adds (Werkzeug's ProxyFix, inspection/web/security.py):
one place of trust, nothing trusted by default.

Request lines: gunicorn's own 414 is an HTML page, so the line limit here is gunicorn's hard cap
(1 MB, `0`) and the app refuses URLs past 8 kB itself, as problem+json on the API
(inspection/web/body_limits.py). Header fields keep gunicorn's limits.
"""
import multiprocessing
import os

forwarded_allow_ips = ""
secure_scheme_headers = {}
limit_request_line = 0

bind = os.environ.get("BALIZA_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", 2 * multiprocessing.cpu_count()))
# Sync workers, not threads. With 4 threads a worker the load run (bench/load.py) served 2.1-2.6x the requests, but
# they were cheap police scans: sharing one interpreter lock, they crowded out the tablets' photos and answers, and
# 15-17 inspections were completed a minute against 44 (issue 22). A busy office adds workers.
worker_class = "sync"
threads = 1
timeout = 60  # a photo upload over river signal; the load balancer's proxy timeout matches
graceful_timeout = 30
