"""Benchmark harness: serve a WSGI app with gunicorn, load it with wrk, compare it with a baseline.

Speed is reported as ratios against a bare baseline measured in the same run (docs/baselines.md).
Nothing happens at import time.
"""
from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "bench" / "results"

# Adds the headers and counts every non-2xx response (wrk itself lets 3xx through as success).
WRK_SCRIPT = """\
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) bad = 0 end
function response(status, headers, body) if status < 200 or status > 299 then bad = bad + 1 end end
function done(summary, latency, requests)
  local n = 0
  for _, t in ipairs(threads) do n = n + t:get("bad") end
  io.write(string.format("Non-2xx responses: %d\\n", n))
end
"""

# Each request from another client address (behind one trusted proxy), as police phones across the river are:
# the production rate limit then counts every scan, yet no address reaches its limit. 2^16 addresses per thread.
SPREAD_SCRIPT = """\
local seq = 0
function init(args) bad = 0; math.randomseed(os.time() + math.floor(os.clock() * 1e6)) end
function request()
  seq = seq + 1
  wrk.headers["X-Forwarded-For"] = string.format("10.%d.%d.%d", math.random(0, 255), math.random(0, 255), seq % 254 + 1)
  return wrk.format(nil)
end
"""

TIME_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}
METRIC_SUFFIXES = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}


@dataclass(frozen=True)
class Result:
    """One load run: throughput, latency percentiles in milliseconds, failed requests."""

    req_per_s: float
    p50_ms: float
    p99_ms: float
    errors: int


def free_port() -> int:
    """A TCP port free on the loopback right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _answers(url: str) -> bool:
    """True once anything speaks HTTP at `url` (any status counts)."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=1)
    try:
        conn.request("GET", "/")
        conn.getresponse().read()
        return True
    except OSError:
        return False
    finally:
        conn.close()


@dataclass
class Gunicorn:
    """A running gunicorn: its base URL and master process; the workers are the master's children."""

    url: str
    proc: subprocess.Popen

    def workers(self) -> list[int]:
        """The pids of the master's live workers."""
        import psutil

        return [child.pid for child in psutil.Process(self.proc.pid).children()]

    def worker_serving(self, client_port: int) -> int:
        """The pid of the worker holding the connection that came from `client_port` on the loopback."""
        import psutil

        for pid in self.workers():
            with contextlib.suppress(psutil.NoSuchProcess):
                if any(c.raddr and c.raddr.port == client_port for c in psutil.Process(pid).net_connections("tcp")):
                    return pid
        raise LookupError(f"no worker of {self.url} holds a connection from port {client_port}")

    def wait_for_workers(self, count: int, timeout: float = 30.0) -> None:
        """Until `count` workers run and the server answers (after a worker was killed, the master starts another)."""
        deadline = time.monotonic() + timeout
        while len(self.workers()) < count or not _answers(self.url):
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.url} has {len(self.workers())} of {count} workers")
            time.sleep(0.05)


def production_server(workers: int) -> str:
    """How production's gunicorn serves (gunicorn.conf.py), for a bench's title: `gunicorn 4 sync`."""
    import runpy

    settings = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    threads = f" x {settings['threads']} threads" if settings["threads"] > 1 else ""
    return f"gunicorn {workers} {settings['worker_class']}{threads}"


@contextlib.contextmanager
def gunicorn(wsgi_target: str, env: dict, workers: int = 2, worker_class: str | None = None,
             start_timeout: float = 30.0, stop_timeout: float = 10.0):
    """Run gunicorn on 127.0.0.1 with a free port, yield it as a Gunicorn once it answers, always stop it.

    Production's settings (gunicorn.conf.py: its worker class and threads) unless `worker_class` is given."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    pythonpath = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    full_env = {**os.environ, **env, "PYTHONPATH": pythonpath}
    cmd = [sys.executable, "-m", "gunicorn", "--config", str(ROOT / "gunicorn.conf.py"),  # production's settings
           "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
           *(("--worker-class", worker_class) if worker_class else ()), "--graceful-timeout", "5", "--log-level", "warning",
           "--chdir", str(ROOT), wsgi_target]
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, env=full_env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + start_timeout
        while not _answers(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise RuntimeError(f"gunicorn {wsgi_target} did not start:\n{log.read().decode(errors='replace')}")
            time.sleep(0.05)
        yield Gunicorn(url, proc)
    finally:
        _stop(proc, stop_timeout)
        log.close()


@contextlib.contextmanager
def serve(wsgi_target: str, env: dict, workers: int = 2, worker_class: str | None = None,
          start_timeout: float = 30.0, stop_timeout: float = 10.0):
    """Run gunicorn on 127.0.0.1 with a free port, yield its base URL, always stop it."""
    with gunicorn(wsgi_target, env, workers, worker_class, start_timeout, stop_timeout) as server:
        yield server.url


@contextlib.contextmanager
def wsgi_thread(app, name: str):
    """Serve `app` from a quiet threaded werkzeug server in a thread on a free loopback port; yield its base URL."""
    from werkzeug.serving import WSGIRequestHandler, make_server

    class Quiet(WSGIRequestHandler):
        def log_request(self, *args, **kwargs):
            pass

    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True, request_handler=Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True, name=name)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


def _stop(proc: subprocess.Popen, timeout: float) -> None:
    """SIGTERM the gunicorn master, then SIGKILL its process group if it lingers."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)  # the group is this gunicorn's own (start_new_session)
    proc.wait(5)


def parse_time_ms(text: str) -> float:
    """'812.00us', '3.91ms', '1.02s' -> milliseconds."""
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text.strip())
    if not match:
        raise ValueError(f"not a wrk time: {text!r}")
    return float(match[1]) * TIME_UNITS[match[2]]


def parse_metric(text: str) -> float:
    """'1.95k', '38412', '2.1M' -> a plain number."""
    match = re.fullmatch(r"([\d.]+)([kMG]?)", text.strip())
    if not match:
        raise ValueError(f"not a wrk number: {text!r}")
    return float(match[1]) * METRIC_SUFFIXES[match[2]]


def parse_wrk(output: str) -> Result:
    """A Result from wrk's `--latency` report (plus the non-2xx line of WRK_SCRIPT, if any)."""
    def find(pattern):
        match = re.search(pattern, output, re.MULTILINE)
        return match[1] if match else None

    rate = find(r"^Requests/sec:\s+(\S+)")
    requests, duration = find(r"^\s*(\S+) requests in"), find(r"requests in ([\d.]+\w+),")
    if rate is not None:
        req_per_s = parse_metric(rate)
    elif requests and duration:
        req_per_s = parse_metric(requests) / (parse_time_ms(duration) / 1000)
    else:
        raise ValueError(f"no throughput in wrk output:\n{output}")
    p50, p99 = find(r"^\s+50%\s+(\S+)"), find(r"^\s+99%\s+(\S+)")
    if p50 is None or p99 is None:
        raise ValueError(f"no latency distribution in wrk output (run with --latency):\n{output}")
    errors = 0
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    if socket_errors:
        errors += sum(int(n) for n in socket_errors.groups())
    bad = find(r"^Non-2xx responses: (\d+)") or find(r"Non-2xx or 3xx responses: (\d+)")
    errors += int(bad or 0)
    return Result(req_per_s, parse_time_ms(p50), parse_time_ms(p99), errors)


def ensure_wrk() -> str:
    """wrk's path, installing Debian's package when it is missing (as root); a bench without wrk stops here.

    The benches measure with wrk alone: a Python client tops out near 2,700 req/s on this kind of machine,
    below what a bare Flask app serves, and would flatter every ratio.
    """
    wrk = shutil.which("wrk")
    if wrk is None and shutil.which("apt-get") and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=False, capture_output=True,
                       env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        wrk = shutil.which("wrk")
    if wrk is None:
        sys.exit("the benches need wrk (Debian's package `wrk`): install it, or run this as root to have it installed")
    return wrk


def load(url: str, seconds: float = 10, connections: int = 16, threads: int = 2,
         headers: dict | None = None, spread_clients: bool = False) -> Result:
    """Load `url` with wrk; `spread_clients` sends each request from another address (X-Forwarded-For)."""
    wrk = ensure_wrk()
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(WRK_SCRIPT)
        if spread_clients:
            script.write(SPREAD_SCRIPT)  # its init() replaces the one above and also zeroes `bad`
        for name, value in (headers or {}).items():
            script.write(f"wrk.headers[{json.dumps(name)}] = {json.dumps(value)}\n")
    try:
        cmd = [wrk, f"-t{threads}", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--latency",
               "-s", script.name, url]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 30, check=True)
        return parse_wrk(done.stdout)
    finally:
        os.unlink(script.name)


def interleaved(rounds: int, runs: dict) -> dict[str, list[Result]]:
    """Call each run once per round, in order (A B A B ...), so drift hits all of them alike."""
    results = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            results[name].append(run())
    return results


def median_result(results: list[Result]) -> Result:
    """The median of each field over several runs (errors are summed)."""
    return Result(statistics.median(r.req_per_s for r in results), statistics.median(r.p50_ms for r in results),
                  statistics.median(r.p99_ms for r in results), sum(r.errors for r in results))


def compare(results: dict[str, list[Result]], baseline: str) -> list[dict]:
    """One row per run: medians, and the ratios of medians target/baseline."""
    base = median_result(results[baseline])
    rows = []
    for name, runs in results.items():
        med = median_result(runs)
        rows.append({
            "name": name, "rounds": len(runs), "req_per_s": round(med.req_per_s, 1),
            "p50_ms": round(med.p50_ms, 2), "p99_ms": round(med.p99_ms, 2), "errors": med.errors,
            "req_per_s_ratio": _ratio(med.req_per_s, base.req_per_s),
            "p50_ratio": _ratio(med.p50_ms, base.p50_ms), "p99_ratio": _ratio(med.p99_ms, base.p99_ms),
            "runs": [asdict(r) for r in runs],
        })
    return rows


def _ratio(value: float, base: float) -> float | None:
    """value/base rounded, or None when the base is zero."""
    return round(value / base, 3) if base else None


def report(title: str, rows: list[dict], name: str | None = None) -> Path:
    """Print rows as a plain table and write them as JSON to bench/results/<name>.json."""
    name = name or re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")
    columns = [c for c in (rows[0] if rows else {}) if not isinstance(rows[0][c], (list, dict))]
    cells = [[str(row.get(c, "")) for c in columns] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    print(f"\n{title}")
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths)))
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    payload = {"title": title, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "rows": rows}
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    print(f"(written to {path.relative_to(ROOT)})")
    return path
