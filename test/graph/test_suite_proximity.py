"""alpha-matrix suite proximity through real node processes (one ROS_DOMAIN_ID each).

Two approaches and a passer-by at 1 m: no missed breach, every approach stops the robot,
resumes it, and the arm's work continues (the cut command re-issued and finished); the same
seed twice gives identical records apart from wall-clock fields; the bag holds every depth
frame and estimate; a short SSM run stops in time too. The detector's subscriptions in a
running graph exclude every sim/ topic. A bad scenario file is one line, exit 2, nothing written.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from alpha_matrix.core.records import seeded_view
from alpha_matrix.core.suites.records import SuiteStore
from conftest import run_cli, wait_until

FIXED = """seed: 42
thresholds: [1.0]
approaches:
  - {name: a02, angle_deg: 180, start_distance: 4.2, stop_distance: 0.7, speed: 2.0, posture: upright, lighting: bright, dwell_s: 0.5}
  - {name: a06, angle_deg: 150, start_distance: 4.3, stop_distance: 0.8, speed: 1.8, posture: upright, lighting: default, dwell_s: 0.5}
passers:
  - {name: p02, angle_deg: 150, start_distance: 4.4, closest_distance: 3.6, speed: 1.8, posture: upright, lighting: dim}
"""

SSM = """seed: 7
thresholds: [1.0]
policy: {mode: ssm}
approaches:
  - {name: s01, angle_deg: 90, start_distance: 4.0, stop_distance: 0.9, speed: 2.0, posture: upright, dwell_s: 0.5}
"""


def _deterministic(run_dir: Path) -> list[str]:
    recs = SuiteStore.read_only(run_dir)
    return [json.dumps(seeded_view(r), sort_keys=True) for r in recs]


def _suite(tmp_path: Path, text: str, run_id: str) -> tuple[Path, str]:
    (tmp_path / f"{run_id}.yaml").write_text(text)
    proc = run_cli(["suite", "proximity", "--scenarios", f"{run_id}.yaml", "--run-id", run_id], tmp_path, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    run_dir = tmp_path / "runs" / run_id
    assert (run_dir / "report.md").exists()
    return run_dir, proc.stdout


@pytest.mark.long
def test_proximity_suite_through_the_graph(tmp_path: Path) -> None:
    run_dir, out = _suite(tmp_path, FIXED, "p1")
    recs = {r.scenario: r for r in SuiteStore.read_only(run_dir)}
    assert list(recs) == ["a02-1m", "a06-1m", "p02-1m"] and all(r.ok for r in recs.values())
    for name in ("a02-1m", "a06-1m"):
        d = recs[name].result
        m, task = d["metrics"], d["task"]
        assert m["breaches"] >= 1 and m["missed_breaches"] == 0 and m["false_stops"] == 0
        assert [a for _, a in d["stop_requests"]] == ["stop", "resume"]
        stop, resume = (s + 24 for s, _ in d["stop_requests"])  # decided on a frame, in effect L later
        cut = [c for c in task["commands"] if c[3] == "CANCELLED"]
        assert cut and all(c[1] == stop for c in cut)  # the stop cut the running command at its step
        after = [c for c in task["commands"] if c[0] > resume]
        assert after and after[0][2] == cut[0][2] and after[0][3] == "DONE"  # re-issued and finished
        assert task["continued_after_resume"] == task["resumes"] == 1
        assert m["frames_correct"] / m["frames_scored"] >= 0.95
        assert max(abs(e) for e in m["errors"]) < 0.25
    passer = recs["p02-1m"].result
    assert passer["stop_requests"] == [] and passer["metrics"]["breaches"] == 0 and passer["task"]["plan_complete"]
    # The bag holds every depth frame and every estimate the run produced.
    counts = dict(re.findall(r"(/[\w/]+) (\d+)", out.split("recorder: bag closed: ", 1)[1].splitlines()[0]))
    frames = sum(r.result["last_step"] // 24 for r in recs.values())  # the last command may pass the end step
    assert int(counts["/camera/depth/image_raw"]) == frames
    assert int(counts["/proximity/estimate"]) == frames - 5 * len(recs)  # 5 reference frames per run
    assert "/camera/color/image_raw" not in counts
    # Resumable: nothing recorded twice; a fresh run of the same seed gives identical records.
    again = run_cli(["suite", "proximity", "--scenarios", "p1.yaml", "--run-id", "p1"], tmp_path, timeout=120)
    assert again.returncode == 0 and "all 3 scenarios already recorded, nothing to start" in again.stderr
    second, _ = _suite(tmp_path, FIXED, "p2")
    assert _deterministic(second) == _deterministic(run_dir)


def test_ssm_mode_stops_in_time(tmp_path: Path) -> None:
    run_dir, _ = _suite(tmp_path, SSM, "s1")
    (rec,) = SuiteStore.read_only(run_dir)
    d = rec.result
    assert d["mode"] == "ssm" and d["metrics"]["missed_breaches"] == 0 and d["metrics"]["breaches"] >= 1
    assert d["stop_requests"][0][1] == "stop" and d["task"]["continued_after_resume"] == d["task"]["resumes"]


def test_detector_subscribes_to_the_camera_only(start_graph) -> None:
    g = start_graph(graph_file="graph_proximity.yaml", exclude=("suite_runner",))

    def topics() -> set[str]:
        try:
            subs = g.node.get_subscriber_names_and_types_by_node("proximity_detector", "/")
        except Exception:  # noqa: BLE001 - the node is not discovered yet
            return set()
        return {name for name, _ in subs}

    expected = {"/camera/depth/image_raw", "/camera/depth/camera_info", "/suite/request", "/robot/step_batch"}
    # discovery reports a node's subscriptions one by one: wait for all it should have
    wait_until(lambda: expected <= topics(), 60, "the detector's subscriptions")
    subs = topics()
    assert subs - {"/parameter_events", "/clock"} == expected
    assert not [t for t in subs if t.startswith("/sim/")]
    clients = {name for name, _ in g.node.get_client_names_and_types_by_node("proximity_detector", "/")}
    assert not [c for c in clients if c.startswith("/sim/")] and "/robot/protective_stop" in clients


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("thresholds: [1.0]\napproaches: [{name: a, angle_deg: 0, start_distance: 4, stop_distance: 1, speed: 1, hat: 1}]\n", "unknown key"),
        ("thresholds: [0]\napproaches: [{name: a, angle_deg: 180, start_distance: 4, stop_distance: 1, speed: 1}]\n", "thresholds.0"),
        ("thresholds: [1.0]\napproaches: [{name: a, angle_deg: 0, start_distance: 4, stop_distance: 0.3, speed: 1}]\n", "inside the table"),
    ],
)  # fmt: skip
def test_bad_scenario_file_is_one_line_and_writes_nothing(tmp_path: Path, text: str, needle: str) -> None:
    (tmp_path / "bad.yaml").write_text(text)
    proc = run_cli(["suite", "proximity", "--scenarios", "bad.yaml"], tmp_path, timeout=60)
    assert proc.returncode == 2
    lines = [ln for ln in proc.stderr.splitlines() if not ln.startswith("pybullet build time")]
    assert len(lines) == 1 and lines[0].startswith("alpha-matrix: error: ") and needle in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "runs").exists() and not (tmp_path / "bags").exists()
