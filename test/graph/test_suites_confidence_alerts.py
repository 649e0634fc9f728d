"""alpha-matrix suite confidence|alerts through real node processes (one ROS_DOMAIN_ID each).

A few scenarios per suite: every skill call checked and none below threshold, the robot
stopped at the end; every refusal during an alert stop typed, every clear resuming; the same
seed twice gives identical records apart from wall-clock fields; a bad scenario file is one
line, exit 2, nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alpha_matrix.core.records import seeded_view
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.alerts.guard import alert_from_result
from alpha_matrix.core.suites.confidence.run import confidence_from_result, run_confidence_task
from alpha_matrix.core.suites.confidence.scenarios import load_confidence_scenarios, load_skills_config
from alpha_matrix.core.suites.records import SuiteStore
from conftest import run_cli

CONFIDENCE = """seed: 42
tasks:
  - name: sort_two
    goals: ["red -> zone_a", "green -> zone_b"]
  - name: far_then_alternative
    goals: ["red -> zone_far | zone_a", "green -> zone_b"]
  - name: tower_of_three
    goals: ["green -> on=blue", "red -> on=green"]
"""

ALERTS = """seed: 42
scenarios:
  - name: battery_low_hover
    alerts:
      - {id: bl1, class: battery_low, severity: warning, at_step: 250, payload: {battery_pct: 19.5}}
  - name: estop_hover
    alerts:
      - {id: es1, class: estop_button, severity: critical, at_step: 300, cleared_at_step: 500, payload: {button: pendant}}
  - name: overlapping_stops
    alerts:
      - {id: es3, class: estop_button, severity: critical, at_step: 430, cleared_at_step: 700, payload: {button: pendant}}
      - {id: af3, class: actuator_fault, severity: warning, at_step: 500, cleared_at_step: 600, payload: {joint: 2}}
  - name: status_battery_drain
    status: {battery_start_pct: 20.6}
"""


def _deterministic(run_dir: Path) -> list[str]:
    """Records minus wall-clock fields and the run id (the only fields allowed to differ)."""
    recs = SuiteStore.read_only(run_dir)
    return [json.dumps(seeded_view(r), sort_keys=True) for r in recs]


def _suite(tmp_path: Path, suite: str, text: str, run_id: str) -> Path:
    (tmp_path / f"{suite}.yaml").write_text(text)
    proc = run_cli(["suite", suite, "--scenarios", f"{suite}.yaml", "--run-id", run_id], tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.count("[suite_runner] [") == len(SuiteStore.read_only(tmp_path / "runs" / run_id))
    assert (tmp_path / "runs" / run_id / "report.md").exists()
    return tmp_path / "runs" / run_id


@pytest.mark.long
def test_confidence_suite_through_the_graph(tmp_path: Path) -> None:
    run_dir = _suite(tmp_path, "confidence", CONFIDENCE, "c1")
    results = [confidence_from_result(r.result) for r in SuiteStore.read_only(run_dir)]
    assert [r.task for r in results] == ["sort_two", "far_then_alternative", "tower_of_three"]
    for r in results:
        assert r.calls > 0 and r.check_rate == 1.0 and r.below_threshold == 0 and not r.violations
        assert r.robot_stopped and r.task_completed
    # The graph decides exactly as the bare suite; only the final stop lands L = 24 steps later.
    suite = load_skills_config()
    scenarios = {s.task.name: s for s in load_confidence_scenarios(tmp_path / "confidence.yaml", suite)}
    with World(suite.world_config()) as world:
        for r in results:
            s = scenarios[r.task]
            bare = run_confidence_task(s.task, s.seed, suite, world, s.expected)
            assert r.rows == bare.rows and r.goal_status == bare.goal_status and r.achieved == bare.achieved
            assert r.steps == bare.steps + 24
    # Same seed again, fresh run: identical records apart from wall-clock fields.
    assert _deterministic(_suite(tmp_path, "confidence", CONFIDENCE, "c2")) == _deterministic(run_dir)


@pytest.mark.long
def test_alerts_suite_through_the_graph(tmp_path: Path) -> None:
    run_dir = _suite(tmp_path, "alerts", ALERTS, "a1")
    results = {r.scenario: alert_from_result(r.result) for r in SuiteStore.read_only(run_dir)}
    for r in results.values():
        assert all(a.correct for a in r.alerts)
        assert r.refusals_typed and r.wrongly_refused == 0 and r.wrongly_admitted == 0
        assert all(ok for _, ok in r.resumes) and r.outcome.success
    assert not results["battery_low_hover"].refused  # a warning never stops
    estop = results["estop_hover"]
    assert estop.refused and {c.reason_code for c in estop.refused} == {"estop_button"}
    assert estop.resumes == ((500, True),)
    assert {a.cls for a in results["status_battery_drain"].alerts} == {"battery_low"}  # derived from status
    raw = {r.scenario: r.result for r in SuiteStore.read_only(run_dir)}
    assert [(s["engage"], s["decision_step"]) for s in raw["estop_hover"]["stop_requests"]] == [
        (True, 300),
        (False, 500),
    ]
    # Resumable: the same run again records nothing twice; a fresh run of the same seed is identical.
    again = run_cli(["suite", "alerts", "--scenarios", "alerts.yaml", "--run-id", "a1"], tmp_path, timeout=120)
    assert again.returncode == 0 and "all 4 scenarios already recorded, nothing to start" in again.stderr
    assert len((run_dir / "episodes.jsonl").read_text().splitlines()) == 4
    second = _deterministic(_suite(tmp_path, "alerts", ALERTS, "a2"))
    assert second == _deterministic(run_dir)


@pytest.mark.parametrize(
    ("suite", "text", "needle"),
    [
        ("confidence", "seed: 1\ntasks:\n  - name: x\n    goals: ['purple -> zone_a']\n", "unknown object 'purple'"),
        (
            "alerts",
            "scenarios:\n  - name: x\n    alerts: [{id: a, class: lava, severity: warning, at_step: 5}]\n",
            "class",
        ),
        ("alerts", "scenarios: [\n", "malformed YAML"),
    ],
)
def test_bad_scenario_file_is_one_line_and_writes_nothing(tmp_path: Path, suite: str, text: str, needle: str) -> None:
    (tmp_path / "bad.yaml").write_text(text)
    proc = run_cli(["suite", suite, "--scenarios", "bad.yaml"], tmp_path, timeout=60)
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("pybullet build time")]  # pybullet's banner
    assert len(lines) == 1 and lines[0].startswith("alpha-matrix: error: ") and needle in lines[0]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "runs").exists()
