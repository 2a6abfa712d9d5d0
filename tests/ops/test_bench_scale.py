"""bench/scale.py at a tiny size: the bulk seed writes a coherent fleet and every routed page answers 200."""
import pytest

from bench import scale
from bench.fixtures import bench_config


@pytest.fixture
def tiny(tmp_path):
    config = bench_config(str(tmp_path))
    return config, scale.seed(config, vessels=16, inspections=160, answered=16)


def test_the_seed_writes_the_fleet_in_bulk(tiny):
    config, counts = tiny
    assert counts["vessels"] == 16 and counts["inspections"] == 160 and counts["answers"] >= 16 * len(scale.ITEMS)
    from app import create_app
    from inspection.core.extensions import db
    from inspection.core.models import Certificate
    with create_app(config).app_context():
        current = db.session.scalars(db.select(Certificate).filter_by(superseded_by_id=None)).all()
        # one certificate of each kind per vessel is the current one; every other names its successor
        assert len({(c.vessel_id, c.kind) for c in current}) == len(current)
        assert db.session.scalar(db.select(db.func.count()).select_from(Certificate)) == counts["certificates"]
        db.engine.dispose()


def test_every_routed_page_is_measured_against_the_baseline(tiny):
    config, _ = tiny
    rows = {row["name"]: row for row in scale.measure(config, requests=2)}
    assert {"hello (baseline)", "fleet API", "applications API", "dashboard", "certificate list",
            "inspection list"} <= set(rows)
    assert "planning board" not in rows or rows["planning board"]["queries"] > 0  # only what the app routes
    assert rows["hello (baseline)"]["p50_ratio"] == 1.0
    assert all(row["queries"] > 0 for name, row in rows.items() if name != "hello (baseline)")
