"""The tablet journey when the sync itself breaks, in Debian's Chromium: the server killed and restarted mid-sync,
then a photo upload cut halfway; each must end in the same server state as the journey on a working link
(tests/tablet/test_journey.py; the journey itself is tests/tablet_journey.py; the bad links are in
test_journey_lossy_link.py). The offline part (every item answered through the screen, closed) is done once for
the module and each test syncs a fresh copy of it (offline_again): the broken sync is what these test.
"""
import threading
import time

from tests.browser_kit import BROWSER_MARKS, sync_api
from tests.tablet_journey import (  # noqa: F401 (fixtures)
    camera_files,
    closed_offline,
    offline_again,
    rig,
    sync_and_check,
    working_link,
)
from tests.tablet_rig import wait_until

pytestmark = BROWSER_MARKS


def test_server_killed_and_restarted_mid_sync(rig, offline_again):
    def kill(rig, context, page):
        def crash_when_busy():
            wait_until(lambda: any("/uploads" in p or "/sync" in p for p in rig.faults.paths[-50:]), 60, 0.02,
                       "the sync to begin")
            rig.kill_app()
            time.sleep(1.5)
            rig.start_app()
        rig.faults.paths.clear()
        threading.Thread(target=crash_when_busy, daemon=True).start()
    with sync_api.sync_playwright() as pw:
        sync_and_check(rig, pw, offline_again, kill, sync_timeout=240)


def test_a_photo_upload_cut_halfway_resumes(rig, offline_again):
    def cut(rig, context, page):
        rig.faults.body_bytes.clear()
        rig.faults.cut_upload_once = True
    with sync_api.sync_playwright() as pw:
        seen = sync_and_check(rig, pw, offline_again, cut)
    assert rig.faults.cuts == 1
    sent = sum(n for path, n in rig.faults.body_bytes.items() if path.startswith("PATCH"))
    photo_bytes = sum(p["size"] for p in seen["local"]["photos"])
    assert photo_bytes <= sent < photo_bytes * 1.02  # the cut photo went on from where it stopped
