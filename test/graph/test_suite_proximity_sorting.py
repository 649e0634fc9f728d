"""The safe-pose transition through the graph (real node processes): a person arriving faster than
the transition can complete, while the robot carries a block, yields the guard's protective stop,
not a motion toward them; the block is still set down (not dropped), the task resumes and finishes;
the bag audits clean (the transition's verdicts re-derived from the step stream)."""

from __future__ import annotations

from pathlib import Path

from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.records import SuiteStore
from conftest import run_cli

SHIPPED = (config_dir() / "scenarios" / "proximity_sorting.yaml").read_text()
HEAD = SHIPPED.split("  arrivals:")[0].replace("duration_s: 32.0", "duration_s: 30.0")
FAST = HEAD + (
    "  arrivals:\n"
    "    - {name: c4, phase: carrying, arrive_s: 3.5, angle_deg: 180, start_distance: 4.3, stop_distance: 0.7,"
    " speed: 2.0, dwell_s: 0.5}\n"
)


def test_a_person_faster_than_the_transition_meets_a_protective_stop(tmp_path: Path) -> None:
    (tmp_path / "fast.yaml").write_text(FAST)
    proc = run_cli(["suite", "proximity", "--scenarios", "fast.yaml", "--run-id", "fast"], tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (rec,) = SuiteStore.read_only(tmp_path / "runs" / "fast")
    r = rec.result
    (t,) = r["sorting"]["transitions"]
    (ev,) = r["sorting"]["events"]["transitions"]
    assert t["phase"] == "carrying" and t["holding"] and ev["source"] == "guard"
    assert not t["reliable"] and t["cause"] == "person too fast"
    assert t["protective_stop"] and ev["waited_inside_stop"] > 0  # the stop held it; no motion was sent
    assert t["max_approach_m"] <= 0.02  # never a step toward the person (tracking error aside)
    assert t["set_down"] and not t["dropped"] and t["resumed"] and r["sorting"]["task_complete"]
    stop = next(s for s, a in r["stop_requests"] if a == "stop") + 24
    assert ev["trigger_step"] < stop  # the transition had begun; the stop cut it
    audit = run_cli(["audit", "bags/fast", "--runs-dir", str(tmp_path / "runs")], tmp_path, timeout=120)
    assert audit.returncode == 0 and "1/1 episodes match" in audit.stdout, audit.stdout[-2000:]
