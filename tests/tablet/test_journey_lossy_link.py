"""The tablet journey on a bad link, in Debian's Chromium: every third request dropped, then a throttled link; each
must end in the same server state as the journey on a working link (tests/tablet/test_journey.py; the journey itself
is tests/tablet_journey.py). The server-side faults are in test_journey_broken_sync.py: two modules, so the two test
workers can share the long journeys. The offline part (every item answered through the screen, closed) is done once
for the module and each test syncs a fresh copy of it (offline_again): the bad link is what these test.
"""
from tests.browser_kit import BROWSER_MARKS, sync_api
from tests.tablet_journey import (  # noqa: F401 (fixtures)
    camera_files,
    closed_offline,
    offline_again,
    rig,
    sync_and_check,
    working_link,
)

pytestmark = BROWSER_MARKS


def test_every_third_request_dropped(rig, offline_again):
    def drop(rig, context, page):
        rig.faults.drop_every = 3
    try:
        with sync_api.sync_playwright() as pw:
            sync_and_check(rig, pw, offline_again, drop, sync_timeout=240)
        assert rig.faults.dropped >= 3
    finally:
        rig.faults.drop_every = 0


def test_a_throttled_link(rig, offline_again):
    def throttle(rig, context, page):
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": 400,
                                                      "downloadThroughput": 50_000, "uploadThroughput": 50_000})
    with sync_api.sync_playwright() as pw:
        sync_and_check(rig, pw, offline_again, throttle, sync_timeout=400)
