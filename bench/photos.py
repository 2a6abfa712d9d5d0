"""Photo upload benchmark: a 4000 x 3000 JPEG through the real upload endpoint vs the bare Pillow steps.

python bench/photos.py [--runs N] [--workers W] [--crops DIR]

Each run, interleaved (so drift hits every row alike):
  * direct        - bench.photos_pipeline.direct_pipeline() in this process (the bare baseline);
  * process_photo - inspection.media.photos.process_photo() in this process (our checks, no HTTP);
  * endpoint      - POST /api/v1/inspections/{id}/photos to the real app under gunicorn (SQLite and
                    media in a temp dir; the files are written and fsync'd as in production);
  * upload only   - the same multipart body POSTed to bench.echo (HTTP + Flask reading the body).
Every upload has a new client_id and bytes differing in the EXIF camera model (bench.fixtures.vary_jpeg),
so neither the client_id replay nor the same-bytes dedup can short-circuit the pipeline.

Tablet photos: the same sample as the tablet sends it (bench.photos_pipeline.tablet_photo, at the long
side and quality the server publishes in /photos/limits), each with other JFIF density bytes, through
the endpoint: the workers' CPU per photo (from /proc, user + system) beside the bare Pillow pipeline's
CPU on the same bytes in this process, and the bytes sent as a fraction of the camera original.

--crops DIR writes the label crops compared for issue 22 (16 and 24 px text through each tablet
setting, bench.photos_pipeline.write_crops) as PNG and exits.

Hostile uploads (issue 8): for each kind in HOSTILE, eight uploads at once (threads and a barrier)
to the endpoint, then the same eight bodies at once to bench.echo (the bare baseline). Each
upload's wall time is reported, and the workers' peak RSS while the eight ran (sampled from /proc
every few milliseconds) against the budget: the RSS before plus PhotoLimits.max_decode_bytes.

Memory: the direct pipeline and process_photo run once each in a fresh subprocess for the
getrusage maxrss delta, then again under tracemalloc (which sees only Python allocations, not
Pillow's pixel buffers); the server's figure is the growth of the workers' VmHWM over the runs.
Prints a table; writes bench/results/photos.json.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.fixtures import bench_config, expect, http_caller, multipart, seed, server_env, start_inspection, vary_jpeg  # noqa: E402
from bench.harness import ROOT, production_server, report, serve  # noqa: E402
from tests.media_samples import make_flat_jpeg, make_flat_png, make_flat_webp  # noqa: E402

WARMUP_TAG = 9_000_000  # vary_jpeg numbers for untimed uploads, far from the timed ones
PARALLEL = 8
# name -> (builder, expected status). The first is issue 8's: 90 kB that decoded to 3 GB.
HOSTILE = {
    "16-bit grey PNG 6000x6600": (lambda: make_flat_png(6000, 6600, depth=16), 422),
    "16-bit RGBA PNG 6000x6600": (lambda: make_flat_png(6000, 6600, depth=16, colour=6), 422),
    "flat RGB PNG 6000x6600": (lambda: make_flat_png(6000, 6600, depth=8, colour=2), 422),
    "flat WebP 6000x6600": (lambda: make_flat_webp(6000, 6600), 422),
    "flat progressive JPEG 6000x6600": (lambda: make_flat_jpeg(6000, 6600, progressive=True), 201),
}


# --- memory ---------------------------------------------------------------------------------------

def memory_child(path: str, which: str) -> dict:
    """In a fresh process: maxrss growth of one call, then the tracemalloc peak of a second call.

    ru_maxrss is inherited from the parent across fork and exec, so the parent starts the children
    while it is small (before it holds the sample); VmHWM (per address space, fresh at exec) is
    reported alongside as a cross-check, and `inherited` says if the parent's figure masked ours.
    """
    import resource
    import tracemalloc

    from bench.photos_pipeline import direct_pipeline
    from inspection.media.photos import PhotoLimits, process_photo

    data = Path(path).read_bytes()
    limits = PhotoLimits()
    fn = direct_pipeline if which == "direct" else (lambda d: process_photo(d, limits))
    hwm_before = _proc_status(os.getpid())["VmHWM"]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    fn(data)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    hwm_after = _proc_status(os.getpid())["VmHWM"]
    tracemalloc.start()
    fn(data)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"which": which, "maxrss_before_mb": round(before / 1024, 1), "maxrss_after_mb": round(after / 1024, 1),
            "maxrss_delta_mb": round((after - before) / 1024, 1),
            "vmhwm_delta_mb": round((hwm_after - hwm_before) / 1024, 1),
            "inherited": before > hwm_before + 1024,
            "tracemalloc_peak_mb": round(peak / 2**20, 1)}


def measure_in_subprocess(path: Path, which: str) -> dict:
    """Run memory_child in a new interpreter and return its JSON."""
    done = subprocess.run([sys.executable, __file__, "--memory-child", which, str(path)],
                          capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"memory child ({which}) failed:\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["inherited"]:
        raise RuntimeError(f"maxrss of the {which} child was the parent's, not its own: {result}")
    return result


def make_sample_file(path: Path) -> None:
    """make_sample_jpeg() in a subprocess (it peaks above 100 MB; this process must stay small)."""
    code = ("import sys; from bench.photos_pipeline import make_sample_jpeg; "
            "open(sys.argv[1], 'wb').write(make_sample_jpeg())")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    subprocess.run([sys.executable, "-c", code, str(path)], env=env, timeout=120, check=True)


def _proc_status(pid: int) -> dict[str, int]:
    """VmHWM, VmRSS (kB) and PPid of a process from /proc/<pid>/status."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmHWM", "VmRSS", "PPid"):
            out[key] = int(value.split()[0])
    return out


def gunicorn_workers(wsgi_target: str) -> list[int]:
    """Pids of the workers of the gunicorn master this process started for `wsgi_target`."""
    me, masters, children = os.getpid(), [], {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            ppid = _proc_status(int(entry.name)).get("PPid")
        except OSError:
            continue
        if ppid == me and b"gunicorn" in cmdline and wsgi_target.encode() in cmdline:
            masters.append(int(entry.name))
        children.setdefault(ppid, []).append(int(entry.name))
    if len(masters) != 1:
        raise RuntimeError(f"expected one gunicorn master for {wsgi_target}, found {masters}")
    workers = sorted(children.get(masters[0], []))
    if not workers:
        raise RuntimeError(f"gunicorn master {masters[0]} has no workers")
    return workers


def worker_memory(pids: list[int]) -> dict[int, dict]:
    """VmHWM and VmRSS of each worker, in MB."""
    return {pid: {k: round(v / 1024, 1) for k, v in _proc_status(pid).items() if k != "PPid"} for pid in pids}


class RssSampler:
    """Peak VmRSS (MB) of each worker while a block runs, sampled from /proc in a thread."""

    def __init__(self, pids: list[int], every_s: float = 0.003) -> None:
        self.pids, self.every_s, self.peak = pids, every_s, {pid: 0.0 for pid in pids}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for pid in self.pids:
                self.peak[pid] = max(self.peak[pid], _proc_status(pid)["VmRSS"] / 1024)
            self._stop.wait(self.every_s)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def worker_cpu_ms(pids: list[int]) -> float:
    """User plus system CPU milliseconds the processes have used so far (/proc/<pid>/stat)."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks * 1000 / os.sysconf("SC_CLK_TCK")


def tablet_round(call, path: str, auth: dict, item_id: str, workers: list[int], base: bytes, runs: int) -> dict:
    """Tablet photos at the published size and quality through the endpoint: worker CPU per photo vs bare Pillow."""
    from bench.photos_pipeline import cpu_ms, direct_pipeline, tablet_photo, vary_density

    published = expect(call("GET", "/api/v1/photos/limits", None, {}), 200, "limits").body
    long_side, quality = published.get("upload_px", 2560), published.get("upload_quality", 85)  # the tablet's fallback
    photo = tablet_photo(base, long_side, quality)
    photos = [vary_density(photo, WARMUP_TAG + n) for n in range(runs)]
    requests = [upload_request(data, item_id) for data in photos]
    before = worker_cpu_ms(workers)
    for data, (body, headers) in zip(photos, requests):
        reply = expect(call("POST", path, body, {**auth, **headers}), 201, "tablet photo")
        if reply.body["size_bytes"] != len(data):
            raise RuntimeError(f"tablet photo was not processed afresh: {reply.body}")
    server = (worker_cpu_ms(workers) - before) / runs
    bare = statistics.median(cpu_ms(direct_pipeline, data) for data in photos)
    return {"name": f"tablet photo {long_side} px q{quality}", "runs": runs, "bytes": len(photo),
            "fraction_of_original": round(len(photo) / len(base), 3),
            "worker_cpu_ms_per_photo": round(server, 1), "bare_pillow_cpu_ms": round(bare, 1),
            "ratio_vs_bare": round(server / bare, 2)}


def parallel_times(base_url: str, requests: list[tuple[str, bytes, dict]]) -> list[tuple[float, int]]:
    """Send the requests all at once (one thread and connection each, released by a barrier):
    (wall seconds, status) of each."""
    barrier = threading.Barrier(len(requests))
    results: list = [None] * len(requests)

    def send(n: int, path: str, body: bytes, headers: dict) -> None:
        call = http_caller(base_url)
        barrier.wait()
        start = time.perf_counter()
        reply = call("POST", path, body, headers)
        results[n] = (time.perf_counter() - start, reply.status)
        call.close()

    threads = [threading.Thread(target=send, args=(n, *r)) for n, r in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def hostile_round(target: str, echo_url: str, path: str, auth: dict, item_id: str, workers: list[int],
                  name: str, data: bytes, status: int) -> dict:
    """Eight parallel uploads of one hostile kind, then the same bodies to echo; one report row."""
    # Distinct bytes per upload (zero padding after the image is allowed), so nothing is deduplicated.
    bodies = [upload_request(data + b"\0" * n, item_id) for n in range(PARALLEL)]
    rss_before = {pid: v["VmRSS"] for pid, v in worker_memory(workers).items()}
    with RssSampler(workers) as rss:
        results = parallel_times(target, [(path, body, {**auth, **headers}) for body, headers in bodies])
    wrong = [s for _, s in results if s != status]
    if wrong:
        raise RuntimeError(f"{name}: expected {status} for every upload, got {[s for _, s in results]}")
    echo_times = [t for t, _ in parallel_times(echo_url, [("/echo", body, headers) for body, headers in bodies])]
    return build_hostile_row(name, len(data), status, [t for t, _ in results], echo_times, rss_before, rss.peak)


def build_hostile_row(name: str, size: int, status: int, times: list[float], echo_times: list[float],
                      rss_before: dict, rss_peak: dict) -> dict:
    """Per-upload seconds, median ratio to echo, and the worker's RSS peak against the decode budget."""
    from inspection.media.photos import PhotoLimits

    budget_mb = PhotoLimits().max_decode_bytes / 2**20
    growth = {pid: round(rss_peak[pid] - rss_before[pid], 1) for pid in rss_before}
    worst = max(growth, key=growth.get)
    med, echo_med = statistics.median(times), statistics.median(echo_times)
    return {"name": name, "bytes": size, "status": status, "median_s": round(med, 3),
            "max_s": round(max(times), 3), "ratio_vs_echo": round(med / echo_med, 2) if echo_med else None,
            "worker_rss_mb": f"{rss_before[worst]:.0f}->{rss_peak[worst]:.0f}",
            "within_budget": growth[worst] <= budget_mb,
            "samples_s": sorted(round(t, 3) for t in times),
            "echo_samples_s": sorted(round(t, 3) for t in echo_times),
            "details": {"rss_growth_mb": {str(k): v for k, v in growth.items()}, "budget_mb": budget_mb}}


# --- timing ---------------------------------------------------------------------------------------

def timed(fn) -> float:
    """Wall seconds of one call."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def upload_request(data: bytes, item_id: str) -> tuple[bytes, dict]:
    """A ready multipart body and headers for one upload with a new client_id."""
    body, content_type = multipart({"item_id": item_id, "client_id": str(uuid.uuid4()),
                                    "latitude": "-25.2822", "longitude": "-57.6351"}, data)
    return body, {"Content-Type": content_type}


def main(argv=None) -> None:
    """Seed, serve, warm up, run the interleaved rounds, measure memory, report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="timed photos per row (default 15)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--crops", metavar="DIR", help="write the label crops as PNG to DIR and exit")
    parser.add_argument("--memory-child", nargs=2, metavar=("WHICH", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        which, path = args.memory_child
        print(json.dumps(memory_child(path, which)))
        return
    if args.crops:
        from bench.photos_pipeline import write_crops

        print("\n".join(write_crops(args.crops)))
        return
    if not 1 <= args.runs <= 500:
        parser.error("--runs must be between 1 and 500")

    from bench.photos_pipeline import direct_pipeline
    from inspection.media.photos import PhotoLimits, process_photo

    limits = PhotoLimits()
    samples = {"direct": [], "process_photo": [], "endpoint": [], "upload only (echo)": []}
    with tempfile.TemporaryDirectory(prefix="baliza-bench-photos-") as tmp:
        print("making the 4000 x 3000 sample, measuring memory in subprocesses ...", flush=True)
        sample = Path(tmp) / "sample.jpg"
        make_sample_file(sample)
        memory = {which: measure_in_subprocess(sample, which) for which in ("direct", "process_photo")}
        base = sample.read_bytes()
        config = bench_config(tmp)
        ids = seed(config)
        with serve("bench.wsgi:app", server_env(config), workers=args.workers) as target, \
                serve("bench.echo:app", {}, workers=args.workers) as echo_url:
            workers = gunicorn_workers("bench.wsgi:app")
            call, echo = http_caller(target), http_caller(echo_url)
            inspection_id, items, auth = start_inspection(call, ids)
            item_id = next((i["id"] for i in items if i["evidence_required"]), items[0]["id"])
            path = f"/api/v1/inspections/{inspection_id}/photos"
            hwm_before = worker_memory(workers)  # app loaded, token/schedule/start/detail served, no photo yet

            def endpoint(data: bytes, body: bytes, headers: dict) -> None:
                reply = call("POST", path, body, {**auth, **headers})
                expect(reply, 201, "photo upload")
                if reply.headers.get("idempotent-replayed") != "false" or reply.body["size_bytes"] != len(data):
                    raise RuntimeError(f"upload was not processed afresh: {reply.headers} {reply.body}")

            def upload_only(body: bytes, headers: dict) -> None:
                reply = echo("POST", "/echo", body, headers)
                if reply.status != 201 or reply.body["bytes"] != len(body):
                    raise RuntimeError(f"echo failed: {reply.status} {reply.body}")

            for n in range(2 * args.workers):  # untimed: first photo in each worker, lazy imports
                data = vary_jpeg(base, WARMUP_TAG + n)
                endpoint(data, *upload_request(data, item_id))
            direct_pipeline(base), process_photo(base, limits), upload_only(*upload_request(base, item_id))
            for run in range(args.runs):  # bodies are built before the clock starts
                data = vary_jpeg(base, run)
                body, headers = upload_request(data, item_id)
                samples["direct"].append(timed(lambda: direct_pipeline(data)))
                samples["process_photo"].append(timed(lambda: process_photo(data, limits)))
                samples["endpoint"].append(timed(lambda: endpoint(data, body, headers)))
                body, headers = upload_request(data, item_id)
                samples["upload only (echo)"].append(timed(lambda: upload_only(body, headers)))
            hwm_after = worker_memory(workers)
            tablet = tablet_round(call, path, auth, item_id, workers, base, args.runs)
            print(f"{PARALLEL} parallel hostile uploads per kind ...", flush=True)
            hostile = [hostile_round(target, echo_url, path, auth, item_id, workers, name, build(), status)
                       for name, (build, status) in HOSTILE.items()]
            photos = expect(call("GET", f"/api/v1/inspections/{inspection_id}", None, auth), 200, "detail").body["photos"]
            call.close(), echo.close()
        expected = 2 * args.runs + 2 * args.workers + PARALLEL * sum(row["status"] == 201 for row in hostile)
        if len(photos) != expected:
            raise RuntimeError(f"expected {expected} stored photos, found {len(photos)}")

    rows = build_rows(samples, memory, hwm_before, hwm_after, len(base))
    print("\nserver workers VmHWM MB before -> after: "
          + ", ".join(f"pid {pid}: {hwm_before[pid]['VmHWM']} -> {hwm_after[pid]['VmHWM']} (RSS now {hwm_after[pid]['VmRSS']})"
                      for pid in hwm_before))
    print(f"direct in a fresh process: maxrss +{memory['direct']['maxrss_delta_mb']} MB "
          f"(VmHWM +{memory['direct']['vmhwm_delta_mb']}), tracemalloc peak {memory['direct']['tracemalloc_peak_mb']} MB; "
          f"process_photo: maxrss +{memory['process_photo']['maxrss_delta_mb']} MB "
          f"(VmHWM +{memory['process_photo']['vmhwm_delta_mb']}), tracemalloc peak {memory['process_photo']['tracemalloc_peak_mb']} MB")
    report(f"Photo upload 4000x3000 ({len(base) / 1e6:.1f} MB JPEG): endpoint vs direct Pillow, "
           f"{args.runs} interleaved runs, {production_server(args.workers)}", rows, name="photos")
    report(f"Tablet photos of that sample through the endpoint: workers' CPU per photo vs bare Pillow's on the same "
           f"bytes, bytes vs the camera's {len(base) / 1e6:.1f} MB", [tablet], name="photos_tablet")
    for row in hostile:
        print(f"{row['name']}: each of {PARALLEL} took {row['samples_s']} s (echo {row['echo_samples_s']})")
    report(f"{PARALLEL} parallel hostile uploads per kind vs the same bodies to echo, {production_server(args.workers)}; "
           f"budget: worker RSS growth <= max_decode_bytes", hostile, name="photos_hostile")


def build_rows(samples: dict, memory: dict, hwm_before: dict, hwm_after: dict, sample_bytes: int) -> list[dict]:
    """One row per measured path: median/min/max seconds, ratio to direct, peak memory and how it was taken."""
    base = statistics.median(samples["direct"])
    hwm_delta = {pid: round(hwm_after[pid]["VmHWM"] - hwm_before[pid]["VmHWM"], 1) for pid in hwm_before}
    mem = {
        "direct": (memory["direct"]["maxrss_delta_mb"],
                   f"maxrss delta, subprocess; tracemalloc peak {memory['direct']['tracemalloc_peak_mb']} MB"),
        "process_photo": (memory["process_photo"]["maxrss_delta_mb"],
                          f"maxrss delta, subprocess; tracemalloc peak {memory['process_photo']['tracemalloc_peak_mb']} MB"),
        "endpoint": (max(hwm_delta.values()),
                     "worker VmHWM growth (max over workers) "
                     + "/".join(f"{hwm_before[p]['VmHWM']}->{hwm_after[p]['VmHWM']}" for p in hwm_before)),
        "upload only (echo)": (None, "-"),
    }
    rows = []
    for name, runs in samples.items():
        med = statistics.median(runs)
        rows.append({"name": name, "runs": len(runs), "median_s": round(med, 4), "min_s": round(min(runs), 4),
                     "max_s": round(max(runs), 4), "ratio_vs_direct": round(med / base, 2) if base else None,
                     "peak_mem_mb": mem[name][0], "memory_measure": mem[name][1],
                     "samples_s": [round(s, 4) for s in runs]})
    rows[0]["details"] = {"sample_bytes": sample_bytes, "memory_subprocess": memory,
                          "workers_before_mb": {str(k): v for k, v in hwm_before.items()},
                          "workers_after_mb": {str(k): v for k, v in hwm_after.items()},
                          "worker_hwm_delta_mb": {str(k): v for k, v in hwm_delta.items()}}
    return rows


if __name__ == "__main__":
    main()
