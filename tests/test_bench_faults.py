"""The fault drills of bench/faults.py, on a private PostgreSQL cluster of the test's own (never the machine's server).

A worker killed with -9 mid-upload, after storing a photo's files, or with half a sync batch applied; PostgreSQL
restarted (fast and immediate) while a batch waits half-applied, and between requests. Each drill checks the
database and the media folder afterwards and that the tablet's retry is applied once.
"""
import pytest

from bench import faults
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
def rig(cluster, tmp_path_factory):
    with faults.rig(cluster.url, tmp_path_factory.mktemp("faults")) as served:
        yield served


@pytest.mark.parametrize("drill", faults.WORKER_DRILLS, ids=lambda drill: drill.__name__)
def test_a_worker_killed_mid_request_leaves_nothing_half_done(rig, drill):
    drill(rig)


@pytest.mark.parametrize("mode", ["fast", "immediate"])
def test_postgresql_restarted_mid_request_fails_it_clearly_and_the_pool_recovers(rig, cluster, mode):
    status, content_type = faults.restart_mid_request(rig, cluster, mode)
    assert status >= 500 and content_type.startswith("application/problem+json")


def test_postgresql_restarted_between_requests_is_not_noticed(rig, cluster):
    faults.restart_between_requests(rig, cluster, "immediate")
