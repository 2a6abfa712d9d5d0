"""Peak memory of an inspection report with 50 photos, against a bare fpdf2 baseline.

python bench/report_pdf.py [--photos N]

Seeds a temp SQLite app (bench.fixtures.seed), closes an inspection of the big vessel with N distinct
camera-like photos (2000 x 1500 JPEGs, each through process_photo: original, 1600 px display copy,
thumb), then, each in a fresh interpreter so the high-water marks are its own:
  * bare   - the N display copies read from storage, scaled with photos.print_copy and placed one per
             slot on blank A4 pages with FPDF.image(): what embedding the photos costs at the least;
  * report - reports.report_pdf(): the whole report (items, deficiencies, photos, signatures, fees).
Each child reports the growth of its VmHWM (peak RSS) across the call and the tracemalloc peak of a
second call (Python allocations only), plus the PDF's size. Prints a table with the ratio report/bare
and the originals' total size (what loading every original would hold at once, at the least);
writes bench/results/report_pdf.json.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.harness import RESULTS_DIR  # noqa: E402


def _hwm_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM")


def build(tmp: str, photos: int) -> dict:
    """Seed the app and close one inspection with `photos` distinct photos; returns ids and sizes."""
    import uuid
    from datetime import date, datetime, timezone

    from app import create_app
    from bench.fixtures import bench_config, seed
    from bench.photos_pipeline import make_sample_jpeg
    from inspection.certificates.keys import signer
    from inspection.core.clock import office_zone
    from inspection.core.extensions import db
    from inspection.core.models import User, Vessel
    from inspection.core.office import current_office
    from inspection.inspections.closing import close_inspection
    from inspection.inspections.operations import add_photo, record_answer, schedule_inspection, start_inspection
    from inspection.media.configured import media_storage, photo_limits
    from inspection.media.photos import process_photo
    from tests.media_samples import signature_images

    config = bench_config(tmp)
    ids = seed(config)
    app = create_app(config)
    day, now = date(2026, 11, 30), datetime(2026, 11, 30, 15, 0, tzinfo=timezone.utc)
    with app.app_context():
        admin = db.session.get(User, ids["admin_id"])
        inspector = db.session.get(User, ids["inspector_id"])
        vessel = db.session.get(Vessel, ids["vessel_id"])
        inspection = schedule_inspection(admin, vessel, "seguridad", inspector, day, "Asunción", day)
        start_inspection(inspector, inspection, now)
        for item in inspection.items:
            bound = item["required"] if item["required"] is not None else item.get("maximum")
            record_answer(inspector, inspection, item["id"], {
                "client_id": str(uuid.uuid4()), "result": "pass", "observed": bound, "note": "",
                "recorded_at": now, "photos": [], "action": None}, now)
        evidence = [item["id"] for item in inspection.items if item["evidence_required"]]
        originals = 0
        for n in range(max(photos, len(evidence))):
            jpeg = make_sample_jpeg(2000, 1500, quality=90, orientation=1, seed=n)
            originals += len(jpeg)
            add_photo(inspector, inspection, evidence[n % len(evidence)], str(uuid.uuid4()),
                      process_photo(jpeg, photo_limits()), media_storage(), now, None, None, now)
        close_inspection(inspector, inspection, {"client_id": str(uuid.uuid4()), "signature": "Insp.",
                                                 "master_name": "Cap.", "signatures": signature_images()},
                         current_office(), signer(current_office(), now), day, now, media_storage(), office_zone())
        db.session.commit()
        inspection_id = inspection.id
        db.engine.dispose()
    return {"inspection_id": inspection_id, "photos": max(photos, len(evidence)), "originals_mb": originals / 2**20}


def child(tmp: str, which: str, inspection_id: int) -> dict:
    """In a fresh interpreter: VmHWM growth across one call, then the tracemalloc peak of a second."""
    import io
    import tracemalloc

    from fpdf import FPDF

    from app import create_app
    from bench.fixtures import bench_config
    from inspection.core.clock import office_zone
    from inspection.core.extensions import db
    from inspection.core.models import Inspection, Photo
    from inspection.core.office import current_office
    from inspection.inspections.reports import PRINT_PHOTO_PX, report_pdf
    from inspection.media.configured import media_storage
    from inspection.media.photos import print_copy

    app = create_app(bench_config(tmp))
    with app.app_context(), app.test_request_context():
        inspection = db.session.get(Inspection, inspection_id)
        keys = list(db.session.scalars(db.select(Photo.display_key).filter_by(inspection_id=inspection_id)
                                       .order_by(Photo.id)))
        storage = media_storage()

        def bare() -> bytes:
            pdf = FPDF()
            for n, key in enumerate(keys):
                if n % 6 == 0:
                    pdf.add_page()
                slot = n % 6
                pdf.image(io.BytesIO(print_copy(storage.get(key), PRINT_PHOTO_PX)), x=15 + 95 * (slot % 2),
                          y=15 + 90 * (slot // 2), w=84, h=60, keep_aspect_ratio=True)
            return bytes(pdf.output())

        def report() -> bytes:
            return report_pdf(inspection, "es", storage, current_office().name, office_zone())

        call = bare if which == "bare" else report
        warm = FPDF()  # warm the library and its core fonts alike in both children, drawing nothing large
        warm.add_page()
        warm.set_font("Times", "", 10)
        warm.cell(10, 10, "Baliza")
        warm.output()
        before = _hwm_kb()
        started = time.perf_counter()
        data = call()
        seconds = time.perf_counter() - started
        grown = _hwm_kb() - before
        size = len(data)
        del data
        tracemalloc.start()
        call()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return {"which": which, "vmhwm_delta_mb": round(grown / 1024, 1), "tracemalloc_peak_mb": round(peak / 2**20, 1),
            "pdf_mb": round(size / 2**20, 2), "seconds": round(seconds, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=50)
    parser.add_argument("--child", nargs=3, metavar=("TMP", "WHICH", "INSPECTION_ID"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        tmp, which, inspection_id = args.child
        print(json.dumps(child(tmp, which, int(inspection_id))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        built = build(tmp, args.photos)
        rows = {}
        for which in ("bare", "report"):
            done = subprocess.run([sys.executable, __file__, "--child", tmp, which, str(built["inspection_id"])],
                                  capture_output=True, text=True, timeout=600, check=False)
            if done.returncode:
                raise RuntimeError(f"{which} child failed:\n{done.stderr}")
            rows[which] = json.loads(done.stdout.strip().splitlines()[-1])
    ratio = rows["report"]["vmhwm_delta_mb"] / max(rows["bare"]["vmhwm_delta_mb"], 0.1)
    result = {"photos": built["photos"], "originals_mb": round(built["originals_mb"], 1), **rows,
              "peak_ratio_report_to_bare": round(ratio, 2)}
    print(f"{built['photos']} photos; originals {result['originals_mb']} MB in all")
    print(f"{'':8} {'peak RSS +MB':>13} {'tracemalloc MB':>15} {'PDF MB':>8} {'s':>6}")
    for which, row in rows.items():
        print(f"{which:8} {row['vmhwm_delta_mb']:>13} {row['tracemalloc_peak_mb']:>15} {row['pdf_mb']:>8} "
              f"{row['seconds']:>6}")
    print(f"report / bare peak RSS growth: {result['peak_ratio_report_to_bare']}")
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / "report_pdf.json").write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
