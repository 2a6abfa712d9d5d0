"""The tablet journey shared by the journey test modules: the rig (live app and faults), the camera files, and
the whole journey itself (tests/tablet/test_journey.py, test_journey_lossy_link.py, test_journey_broken_sync.py).

Three modules rather than one, so the two test workers share the journeys (a module goes to one worker).
"""
import shutil
import time

import pytest

from tests.browser_kit import shoot, sync_api
from tests.tablet_rig import Faults, tablet_rig
from tests.tablet_steps import (
    answer_everything,
    camera_jpegs,
    checked_count,
    close_inspection,
    go_offline,
    local_record,
    open_from_agenda,
    open_profile,
    plan,
    seed,
    server_state,
    sign_in_and_take_aboard,
)


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    base = tmp_path_factory.mktemp("tablet")
    with tablet_rig(base) as started:
        yield started


@pytest.fixture(autouse=True)
def working_link(rig):
    """Each journey starts on a working link: one that failed with the link cut leaves no fault to the next."""
    rig.faults = Faults()


@pytest.fixture(scope="module")
def camera_files(tmp_path_factory):
    """Three 4000 × 3000 camera JPEGs."""
    return camera_jpegs(tmp_path_factory.mktemp("camera"))


@pytest.fixture(scope="module")
def closed_offline(rig, tmp_path_factory, camera_files):
    """The journey's offline part, once for a module of faults (the sync under a fault is what they test): the
    tablet's profile and the server's files as they were then, which `offline_again` gives each test afresh."""
    with sync_api.sync_playwright() as pw:
        worked = work_offline(rig, pw, tmp_path_factory.mktemp("tablet") / "profile", camera_files, "averia")
    kept = tmp_path_factory.mktemp("server")
    rig.save_files(kept)
    return worked, kept


@pytest.fixture
def offline_again(rig, closed_offline, tmp_path):
    """The tablet and the server as the journey left them closed offline: a copy of the profile, the server's files
    put back, the link still cut; what work_offline returned, for sync_and_check."""
    worked, kept = closed_offline
    rig.restore_files(kept)
    rig.faults.down = True
    profile = tmp_path / "profile"
    shutil.copytree(worked["profile"], profile, symlinks=True)
    return {**worked, "profile": profile}


def journey(rig, tmp_path, camera_files, name: str, fault=None, sync_timeout: float = 120, shots: bool = False):
    """The whole journey; `fault(rig, context, page)` runs as the link comes back. Returns what it saw.

    With `shots`, the screen is saved at each stage (offline at work, closed offline, synced) for a person to look at
    (tests/browser_kit.shoot: when BALIZA_SCREENSHOTS names a folder).
    """
    with sync_api.sync_playwright() as pw:
        worked = work_offline(rig, pw, tmp_path / "profile", camera_files, name, shots)
        return sync_and_check(rig, pw, worked, fault, sync_timeout, shots)


def shoot_stage(page, stage: str, shots: bool) -> None:
    if shots:
        shoot(page, f"baliza_tablet_journey_{stage}.png")


def work_offline(rig, pw, profile, camera_files, name: str, shots: bool = False) -> dict:
    """The journey up to the sync: take aboard online, then offline answer every item through the screen, close,
    reload, and close the browser; what the tablet holds (`profile`) and what the server must end with."""
    seeded = seed(rig, name)
    answers = plan(seeded["items"])
    inspection_id = seeded["inspection_id"]
    context, page = open_profile(pw, profile)
    card = sign_in_and_take_aboard(rig, page, seeded)
    go_offline(rig, context)
    before_offline = time.time()
    open_from_agenda(page, card)
    photos = answer_everything(page, seeded, answers, camera_files)
    page.locator("article.item").nth(5).scroll_into_view_if_needed()
    shoot_stage(page, "1_offline_answered", shots)
    close_inspection(page)
    shoot_stage(page, "2_closed_offline", shots)
    local = local_record(page, inspection_id)
    assert len(local["answers"]) == len(seeded["items"]) and len(local["photos"]) == photos

    page.reload()  # offline: the service worker serves the screen, IndexedDB the work
    page.wait_for_selector("text=Cerrada en la tableta", timeout=20_000)
    assert checked_count(page) == len(seeded["items"])
    context.close()
    return {"profile": profile, "seeded": seeded, "answers": answers, "local": local, "photos": photos,
            "before_offline": before_offline}


def sync_and_check(rig, pw, worked: dict, fault=None, sync_timeout: float = 120, shots: bool = False) -> dict:
    """The journey's end: reopen the profile offline (the work still there, nothing sent), bring the link back
    (`fault(rig, context, page)` runs then) and, with no reload, check the server holds exactly the tablet's work."""
    seeded, answers, local = worked["seeded"], worked["answers"], worked["local"]
    inspection_id = seeded["inspection_id"]
    context, page = open_profile(pw, worked["profile"], offline=True)  # the same profile, still no signal
    page.goto(f"{rig.origin}/inspecciones/{inspection_id}")
    page.wait_for_selector("text=Cerrada en la tableta", timeout=20_000)
    assert checked_count(page) == len(seeded["items"])
    assert local_record(page, inspection_id) == local
    assert server_state(rig, inspection_id)["answer_rows"] == 0  # nothing left the tablet while offline

    rig.faults.down = False
    if fault:
        fault(rig, context, page)
    context.set_offline(False)  # no reload from here on
    page.wait_for_selector("text=Inspección cerrada y enviada", timeout=sync_timeout * 1000)
    shoot_stage(page, "3_synced", shots)
    shown = page.locator("#closed-banner .certificate strong").inner_text()
    badge = page.locator("#sync-badge").inner_text()
    final_local = local_record(page, inspection_id)
    context.close()

    server = server_state(rig, inspection_id)
    expected_current = {k: {"result": v["result"], "observed": None if v["observed"] is None else float(v["observed"]),
                            "note": v["note"], "action": v.get("action")} for k, v in answers.items()}
    assert server["status"] == "submitted"
    assert server["current"] == expected_current
    assert server["answer_rows"] == len(seeded["items"])  # one row per item: nothing twice
    assert server["photos"] == sorted((p["item_id"], p["sha256"]) for p in local["photos"])
    assert server["certificate"] and shown == server["certificate"]
    assert server["started_at"].timestamp() >= worked["before_offline"] - 1  # the tablet's clock, not the sync's
    assert server["submitted_at"].timestamp() < time.time()
    assert final_local["outbox"] == 0 and final_local["photos"] == []  # confirmed, so the bulky copy is gone
    return {"server": server, "local": local, "badge": badge, "photos": worked["photos"]}
