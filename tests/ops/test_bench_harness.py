"""The benchmark harness's pure parts: wrk parsing, medians and ratios, serve() and wsgi_thread() start/stop."""
import http.client
import json

import pytest

from bench.harness import (
    Result,
    compare,
    interleaved,
    median_result,
    parse_metric,
    parse_time_ms,
    parse_wrk,
    serve,
    wsgi_thread,
)

WRK_SAMPLE = """\
Running 3s test @ http://127.0.0.1:18777/
  2 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.47ms    1.80ms    1.07s    75.44%
    Req/Sec     1.79k   586.29     2.82k    58.33%
  Latency Distribution
     50%  812.00us
     75%    6.00ms
     90%    6.55ms
     99%    1.02s
  10715 requests in 3.01s, 1.77MB read
  Socket errors: connect 0, read 2, write 0, timeout 3
  Non-2xx or 3xx responses: 7
Requests/sec:   3565.69
Transfer/sec:    602.45KB
Non-2xx responses: 9
"""


def test_parse_wrk_latency_report():
    result = parse_wrk(WRK_SAMPLE)
    assert result.req_per_s == pytest.approx(3565.69)
    assert result.p50_ms == pytest.approx(0.812)
    assert result.p99_ms == pytest.approx(1020.0)
    assert result.errors == 5 + 9  # socket errors plus the script's strict non-2xx count


def test_parse_wrk_without_script_counts_wrk_non2xx_and_falls_back_to_request_count():
    text = WRK_SAMPLE.replace("Non-2xx responses: 9\n", "").replace("Requests/sec:   3565.69\n", "")
    text = text.replace("10715 requests in 3.01s", "12.00k requests in 3.00s")
    result = parse_wrk(text)
    assert result.req_per_s == pytest.approx(4000.0)
    assert result.errors == 5 + 7


def test_parse_wrk_rejects_output_without_latency_distribution():
    with pytest.raises(ValueError, match="--latency"):
        parse_wrk("Requests/sec:   10.00\n")


@pytest.mark.parametrize("text, ms", [("250.00us", 0.25), ("3.91ms", 3.91), ("1.50s", 1500.0), ("2.00m", 120_000.0)])
def test_parse_time_units(text, ms):
    assert parse_time_ms(text) == pytest.approx(ms)


@pytest.mark.parametrize("text, value", [("586.29", 586.29), ("1.79k", 1790.0), ("2.10M", 2_100_000.0)])
def test_parse_metric_suffixes(text, value):
    assert parse_metric(text) == pytest.approx(value)


def test_interleaved_alternates_runs_in_order():
    calls = []
    runs = {name: (lambda name=name: calls.append(name) or Result(1, 1, 1, 0)) for name in ("a", "b")}
    results = interleaved(3, runs)
    assert calls == ["a", "b", "a", "b", "a", "b"]
    assert {name: len(r) for name, r in results.items()} == {"a": 3, "b": 3}


def test_medians_and_ratio_of_medians():
    results = {
        "base": [Result(1000, 4, 10, 0), Result(3000, 2, 30, 0), Result(2000, 3, 20, 1)],
        "target": [Result(500, 8, 40, 0), Result(100, 30, 90, 2), Result(400, 10, 60, 0)],
    }
    assert median_result(results["target"]) == Result(400, 10, 60, 2)
    base, target = compare(results, "base")
    assert (base["req_per_s_ratio"], base["p50_ratio"], base["p99_ratio"]) == (1.0, 1.0, 1.0)
    assert target["req_per_s"] == 400 and target["req_per_s_ratio"] == 0.2  # ratio of medians, not median of ratios
    assert target["p50_ratio"] == pytest.approx(10 / 3, abs=1e-3) and target["p99_ratio"] == 3.0
    assert target["errors"] == 2 and len(target["runs"]) == 3


def test_serve_starts_and_stops_the_hello_app():
    with serve("bench.hello:app", {}, workers=1, start_timeout=15, stop_timeout=5) as url:
        host, port = url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("GET", "/")
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read())["hello"] == "world"
        conn.close()
    assert host == "127.0.0.1"
    with pytest.raises(OSError):
        http.client.HTTPConnection(host, int(port), timeout=1).connect()


def test_wsgi_thread_serves_the_app_on_the_loopback_and_stops():
    def hello(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [environ["PATH_INFO"].encode()]

    with wsgi_thread(hello, "bench-test") as url:
        host, port = url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("GET", "/hola")
        assert conn.getresponse().read() == b"/hola"
        conn.close()
    assert host == "127.0.0.1"
    with pytest.raises(OSError):
        http.client.HTTPConnection(host, int(port), timeout=1).connect()
