"""The browser code's pure modules under node's own test runner (tests/js/*.test.mjs, node:test).

The tablet's outbox and sync state machine run end to end against a store in memory and a fake server,
and the verifier's decisions from constructed inputs; any failing node test fails this one with node's report.
"""
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_node_unit_tests_pass():
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))
    assert files, "no node tests found in tests/js"
    done = subprocess.run([NODE, "--test", *files], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"node --test failed:\n{done.stdout[-20000:]}\n{done.stderr[-5000:]}"
    assert "# fail 0" in done.stdout
