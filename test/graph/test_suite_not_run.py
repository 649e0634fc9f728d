"""A suite whose scenario the graph could not run exits 1 naming it, and records nothing for it.

Before, the runner appended a record with ``ok: false`` ("NOT RUN: ...") and the command exited
0 with "suite proximity: 1 records": a run that did nothing said it was done. Here the scenario's
reaction latency differs from the robot's L, which the proximity executive refuses.
"""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli

SCENARIO = """seed: 42
thresholds: [1.0]
policy: {mode: fixed, margin: 0.25, hold_time_s: 1.0, reaction_steps: 30}
approaches:
  - {name: a02, angle_deg: 180, start_distance: 4.2, stop_distance: 0.7, speed: 2.0, posture: upright, lighting: bright, dwell_s: 0.5}
passers: []
"""


def test_a_scenario_not_run_is_not_recorded_and_the_suite_exits_1_naming_it(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(SCENARIO)
    proc = run_cli(["suite", "proximity", "--scenarios", "p.yaml", "--run-id", "nr"], tmp_path, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-3000:]
    assert "a02-1m: NOT RUN: the scenario's reaction_steps 30 differ from the robot's L 24" in out, out[-3000:]
    assert "1 scenario(s) not run (a02-1m)" in out and "Traceback" not in out, out[-3000:]
    assert not (tmp_path / "runs" / "nr" / "episodes.jsonl").exists()
