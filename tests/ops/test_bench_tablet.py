"""The tablet benches' pure helpers: the photo spread, the answer plan, the floor, the proxy's byte counts, the
bare sites, and the items a bare "Cumple" answers."""
import asyncio

import pytest

from bench.tablet import (
    _Connection,
    _CountingReader,
    _CountingWriter,
    answer_plan,
    echo,
    floor_seconds,
    photo_counts,
    request_kind,
    shell_summary,
    summarize,
)
from bench.tablet_screen import BARE_PAGE, BARE_SCRIPT, bare_site, yes_no


def test_photos_spread_evenly_within_each_inspections_evidence_items():
    assert photo_counts(30, 5, [15] * 5) == [6] * 5
    assert photo_counts(7, 3, [2, 15, 15]) == [2, 3, 2]
    assert photo_counts(0, 2, [3, 3]) == [0, 0]
    with pytest.raises(ValueError):
        photo_counts(7, 2, [3, 3])


def test_answer_plan_keeps_the_first_evidence_items_and_makes_the_rest_not_applicable():
    items = [{"id": "a", "evidence_required": True}, {"id": "b", "evidence_required": False},
             {"id": "c", "evidence_required": True}, {"id": "d", "evidence_required": True}]
    base = {i["id"]: {"result": "pass", "observed": None, "note": ""} for i in items}
    answers, photographed = answer_plan(items, base, 1)
    assert photographed == ["a"]
    assert answers["a"] == answers["b"] == {"result": "pass", "observed": None, "note": ""}
    for item_id in ("c", "d"):  # closable: an evidence item needs a photo unless not applicable, which needs a note
        assert answers[item_id]["result"] == "not_applicable" and item_id in answers[item_id]["note"]
    assert base["c"]["result"] == "pass"  # the base plan is not changed


def test_floor_is_bytes_at_the_uplink_plus_one_round_trip_per_request():
    assert floor_seconds(187_500, 2, 1.5e6, 0.150) == pytest.approx(1.3)
    assert floor_seconds(0, 10, 1.5e6, 0.150) == pytest.approx(1.5)


def test_request_kinds_fold_ids():
    assert request_kind("PATCH /api/v1/inspections/7/uploads/3f2a-11") == "PATCH /api/v1/inspections/{id}/uploads/{client_id}"
    assert request_kind("POST /api/v1/inspections/12/sync") == "POST /api/v1/inspections/{id}/sync"
    assert request_kind("GET /static/js/tablet/app.js") == "GET /static/js/tablet/app.js"


def record(request, head=300, body=0, down=1000, down_head=200, encoding=None, type_="text/html", status=200):
    return {"request": request, "head": head, "body": body, "down": down, "down_head": down_head,
            "encoding": encoding, "type": type_, "status": status}


def test_summaries_count_heads_bodies_and_the_shell_apart_from_the_api():
    records = [record("GET /agenda", encoding="zstd"), record("GET /static/js/tablet/app.js", type_="text/javascript"),
               record("GET /static/js/tablet/app.js", type_="text/javascript", encoding="zstd"),
               record("GET /static/icons/icon-192.png", type_="image/png", down=5000),
               record("GET /api/v1/aboard/3", type_="application/json", down=7000),
               record("POST /api/v1/inspections/3/sync", body=900, type_="application/json")]
    total = summarize(records)
    assert (total["requests"], total["up_heads"], total["up_bodies"]) == (6, 1800, 900)
    assert total["kinds"]["POST /api/v1/inspections/{id}/sync"] == {"requests": 1, "up": 1200, "down": 1000}
    shell = shell_summary(records)
    assert (shell["responses"], shell["distinct_paths"], shell["bytes"]) == (4, 3, 8000)
    assert shell["bytes_distinct"] == 7000 and shell["twice"] == ["/static/js/tablet/app.js"]
    assert shell["body_bytes"] == 8000 - 4 * 200
    assert (shell["text_responses"], shell["compressed_text"]) == (3, 2)
    assert shell["encodings"] == {"identity": 1, "zstd": 2}
    assert shell["api_bytes"] == 8000  # what the agenda took aboard, and the sync, are not the shell


class FakeWriter:
    def __init__(self):
        self.data = b""

    def write(self, data):
        self.data += data


def test_the_proxy_taps_count_each_request_and_read_its_response_head_across_writes():
    async def scenario():
        connection, log = _Connection(), []
        stream = asyncio.StreamReader()
        head = b"PATCH /api/v1/inspections/7/uploads/x?y=1 HTTP/1.1\r\nContent-Length: 5\r\n\r\n"
        stream.feed_data(head + b"hello")
        reader = _CountingReader(stream, connection, log)
        assert await reader.readuntil(b"\r\n\r\n") == head
        assert await reader.read(5) == b"hello"
        inner = FakeWriter()
        writer = _CountingWriter(inner, connection)
        reply_head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Encoding: zstd\r\n\r\n"
        writer.write(reply_head[:20])
        writer.write(reply_head[20:] + b"{}")
        return log, inner.data, reply_head

    log, forwarded, reply_head = asyncio.run(scenario())
    assert forwarded == reply_head + b"{}"
    [entry] = log
    assert entry["request"] == "PATCH /api/v1/inspections/7/uploads/x"
    assert (entry["body"], entry["down"], entry["down_head"]) == (5, len(reply_head) + 2, len(reply_head))
    assert (entry["status"], entry["encoding"], entry["type"]) == (200, "zstd", "application/json")


def call(app, path: str, body: bytes = b"") -> tuple[str, dict, bytes]:
    """A WSGI app's status, headers and body for one request."""
    import io

    seen = {}
    environ = {"PATH_INFO": path, "REQUEST_METHOD": "POST" if body else "GET", "CONTENT_LENGTH": str(len(body)),
               "wsgi.input": io.BytesIO(body)}
    chunks = app(environ, lambda status, headers: seen.update(status=status, headers=dict(headers)))
    return seen["status"], seen["headers"], b"".join(chunks)


def test_the_bare_sites_serve_the_page_its_script_and_an_echo_of_the_length():
    assert call(bare_site, "/")[2] == BARE_PAGE and call(bare_site, "/bare.js")[2] == BARE_SCRIPT
    assert call(bare_site, "/bare.js")[1]["Content-Type"] == "text/javascript"
    status, headers, body = call(echo, "/echo", b"x" * 70_000)
    assert (status, body, headers["Access-Control-Allow-Origin"]) == ("201 Created", b"70000", "*")


def test_only_yes_no_items_are_timed_a_counted_item_needs_its_count():
    items = [{"id": "a", "required": None, "maximum": None}, {"id": "b", "required": 6, "maximum": None},
             {"id": "c", "required": None, "maximum": 40}, {"id": "d", "required": None}]
    assert [item["id"] for item in yes_no(items)] == ["a", "d"]
