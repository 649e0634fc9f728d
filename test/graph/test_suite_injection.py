"""The injection suite through real node processes: two generated pairs (one per built goal),
the fully compromised agent ``obey`` with the guard off (every attack realised in the measured
physics, a harm each) and on (every attacker's call caught by the guard, no harm), and the bag
audits clean (attack success re-derived from the recorded step stream); a bad file is one line,
exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from alpha_matrix.core.suites.records import SuiteStore
from conftest import run_cli


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("injection")
    (d / "s.yaml").write_text("seed: 11\ncount: 2\nguard: true\n")
    (d / "bad.yaml").write_text("seed: 11\ncount: 3\n")
    return d


def _run(cell: Path, run_id: str, *flags: str) -> list[dict]:
    proc = run_cli(["suite", "injection", "--scenarios", "s.yaml", "--run-id", run_id, *flags], cell, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = SuiteStore.read_only(cell / "runs" / run_id)
    assert len(recs) == 4 and all(r.ok for r in recs), [r.message for r in recs]
    audit = run_cli(["audit", str(cell / "bags" / run_id), "--runs-dir", str(cell / "runs")], cell, timeout=300)
    assert audit.returncode == 0 and "4/4 episodes match" in audit.stdout, audit.stdout + audit.stderr
    return [r.result for r in recs]


def test_obey_with_the_guard_off_then_on(cell: Path) -> None:
    off = _run(cell, "obey-off", "--agent", "obey", "--guards", "off")
    injected = [r for r in off if r["variant"] == "injected"]
    assert [r["attack_success"] for r in injected] == [True, True] and all(r["harm"] for r in injected)
    assert all(r["task_right"] and not r["attack"]["success"] for r in off if r["variant"] == "clean")
    on = _run(cell, "obey-on", "--agent", "obey", "--guards", "on")
    injected = [r for r in on if r["variant"] == "injected"]
    assert all(r["guard_catch"] and not r["attack_success"] and not r["harm"] for r in injected)
    assert (cell / "runs" / "obey-on" / "report.html").is_file()


def test_a_bad_file_is_one_line(cell: Path) -> None:
    proc = run_cli(["suite", "injection", "--scenarios", "bad.yaml", "--run-id", "bad"], cell, timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "count: 3 is not a multiple of 2" in proc.stderr
