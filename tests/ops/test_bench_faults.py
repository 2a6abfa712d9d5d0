"""The fault drills of bench/faults.py, on a private PostgreSQL cluster of the test's own (never the machine's server)
and the session's SeaweedFS (the server stores photos in a bucket of it).

A worker killed with -9 mid-upload, after storing a photo's objects, or with half a sync batch applied; PostgreSQL
restarted (fast and immediate) while a batch waits half-applied, and between requests; the S3 server stopped with a
photo and an upload to send. Each drill checks the database and the bucket afterwards and that the tablet's retry
is applied once.
"""
import pytest

from bench import faults
from bench.seaweed import new_bucket
from tests.conftest import TEST_DATABASE_URL

pytestmark = [
    pytest.mark.db,
    pytest.mark.skipif(not (TEST_DATABASE_URL or "").startswith("postgresql"),
                       reason="needs PostgreSQL (BALIZA_TEST_DATABASE_URL): the drills run in the PostgreSQL pass"),
    pytest.mark.skipif(faults.cannot_run_private_cluster() is not None,
                       reason=f"no private PostgreSQL cluster here: {faults.cannot_run_private_cluster()}"),
]


@pytest.fixture(scope="module")
def cluster():
    with faults.private_cluster() as started:
        yield started


@pytest.fixture(scope="module")
def rig(cluster, seaweed, tmp_path_factory):
    with faults.rig(cluster.url, tmp_path_factory.mktemp("faults"), new_bucket(seaweed)) as served:
        yield served


@pytest.mark.parametrize("drill", faults.WORKER_DRILLS, ids=lambda drill: drill.__name__)
def test_a_worker_killed_mid_request_leaves_nothing_half_done(rig, drill):
    drill(rig)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_postgresql_restarted_mid_request_is_503_retry_later_and_the_pool_recovers(rig, cluster, mode):
    status, headers = faults.restart_mid_request(rig, cluster, mode)
    assert status == 503 and headers["retry-after"].isdigit()
    assert headers["content-type"].startswith("application/problem+json")


def test_postgresql_restarted_between_requests_is_not_noticed(rig, cluster):
    faults.restart_between_requests(rig, cluster, "immediate")


@pytest.mark.parametrize("drill", faults.STORAGE_DRILLS, ids=lambda drill: drill.__name__)
def test_the_s3_server_stopped_records_nothing_unstored_and_the_retry_stores_once(rig, drill):
    drill(rig)
