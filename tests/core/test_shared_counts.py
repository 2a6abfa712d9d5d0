"""Hit counts shared by a server's worker processes in a memory-mapped file (inspection/core/shared_counts.py)."""
import multiprocessing
from datetime import datetime, timedelta, timezone

from inspection.core.shared_counts import PROBE, SLOTS, SharedCounts, _key

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
MINUTE = timedelta(minutes=1)


def _count_in_child(path: str, times: int, out) -> None:
    counts = SharedCounts(path)
    out.put([counts.hit("verify:10.0.0.1", T0, MINUTE)[0] for _ in range(times)])


def test_four_processes_count_one_address_exactly(tmp_path):
    """What four gunicorn workers do at once: every hit counted once, each seeing a different count."""
    path, out = str(tmp_path / "counts"), multiprocessing.get_context("fork").Queue()
    SharedCounts(path).hit("verify:10.0.0.1", T0, MINUTE)  # opened before the fork, as a preloaded app's would be
    workers = [multiprocessing.get_context("fork").Process(target=_count_in_child, args=(path, 50, out))
               for _ in range(4)]
    for worker in workers:
        worker.start()
    seen = sorted(n for _ in workers for n in out.get(timeout=60))
    for worker in workers:
        worker.join(timeout=60)
    assert seen == list(range(2, 202))


def test_a_window_restarts_once_it_has_passed_or_the_clock_went_back(tmp_path):
    counts = SharedCounts(str(tmp_path / "counts"))
    assert [counts.hit("verify:a", T0 + timedelta(seconds=n), MINUTE) for n in (0, 30, 59)] == [
        (1, T0), (2, T0), (3, T0)]
    assert counts.hit("verify:a", T0 + MINUTE, MINUTE) == (1, T0 + MINUTE)
    assert counts.hit("verify:b", T0, MINUTE) == (1, T0)  # another client, its own window
    assert counts.hit("verify:a", T0, MINUTE) == (1, T0)  # a clock set back starts afresh


def test_a_full_probe_gives_the_oldest_window_away(tmp_path):
    """More live clients on one probe than it holds: the client whose window started first loses its count."""
    counts, home = SharedCounts(str(tmp_path / "counts")), None
    crowd = []
    for n in range(200_000):
        bucket = f"verify:10.{n}"
        if home is None:
            home = _key(bucket) % (SLOTS - PROBE + 1)
        if _key(bucket) % (SLOTS - PROBE + 1) == home:
            crowd.append(bucket)
        if len(crowd) > PROBE:
            break
    for second, bucket in enumerate(crowd[:PROBE]):
        counts.hit(bucket, T0 + timedelta(seconds=second), MINUTE)
        counts.hit(bucket, T0 + timedelta(seconds=second), MINUTE)
    counts.hit(crowd[PROBE], T0 + timedelta(seconds=40), MINUTE)
    assert counts.hit(crowd[1], T0 + timedelta(seconds=41), MINUTE)[0] == 3  # kept
    assert counts.hit(crowd[0], T0 + timedelta(seconds=42), MINUTE)[0] == 1  # given away, counted afresh


def test_unsent_hits_go_once_and_the_others_are_heard(tmp_path):
    counts = SharedCounts(str(tmp_path / "counts"))
    for _ in range(3):
        counts.hit("verify:a", T0, MINUTE)
    every = timedelta(seconds=1)
    assert counts.take_unsent(T0, every) == [("verify:a", T0, 3)]
    assert counts.take_unsent(T0 + timedelta(milliseconds=500), every) is None  # not due
    assert counts.take_unsent(T0 + every, every) == []  # due, nothing new
    counts.hear({"verify:a": 10})  # ten on every server, three of them here
    assert counts.hit("verify:a", T0 + every, MINUTE)[0] == 11
    counts.clear()
    assert counts.hit("verify:a", T0 + every, MINUTE)[0] == 1



def test_a_file_of_another_layout_starts_afresh(tmp_path):
    path = tmp_path / "counts"
    path.write_bytes(b"old layout" + bytes(1000))
    assert SharedCounts(str(path)).hit("verify:a", T0, MINUTE) == (1, T0)
    assert path.read_bytes().startswith(b"baliza1\0")
