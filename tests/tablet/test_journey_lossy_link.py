"""The tablet journey on a bad link, in Debian's Chromium: every third request dropped, then a throttled link; each
must end in the same server state as the journey on a working link (tests/tablet/test_journey.py; the journey itself
is tests/tablet_journey.py). The server-side faults are in test_journey_broken_sync.py: two modules, so the two test
workers can share the four long journeys.
"""
from tests.browser_kit import BROWSER_MARKS
from tests.tablet_journey import camera_files, journey, rig, working_link  # noqa: F401 (fixtures)

pytestmark = BROWSER_MARKS


def test_every_third_request_dropped(rig, tmp_path, camera_files):
    def drop(rig, context, page):
        rig.faults.drop_every = 3
    try:
        journey(rig, tmp_path, camera_files, "tercero", drop, sync_timeout=240)
        assert rig.faults.dropped >= 3
    finally:
        rig.faults.drop_every = 0


def test_a_throttled_link(rig, tmp_path, camera_files):
    def throttle(rig, context, page):
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 400,
                                                      "downloadThroughput": 50_000, "uploadThroughput": 50_000})
    journey(rig, tmp_path, camera_files, "lento", throttle, sync_timeout=400)
