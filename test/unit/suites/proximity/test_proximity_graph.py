"""The proximity suite's ROS-free parts: frame tag, scenario JSON, the detector's core, scoring."""

from __future__ import annotations

import ast
import inspect
import json
import math
import subprocess
import sys

import numpy as np
import pytest

import alpha_matrix.nodes.proximity_detector as detector_node
from alpha_matrix.core.sim.camera import Camera, CameraConfig, camera_info
from alpha_matrix.core.sim.camera_model import CELL_CAMERA, world_from_camera
from alpha_matrix.core.sim.human import Human, HumanPath
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.proximity.eval import run_steps
from alpha_matrix.core.suites.proximity.metrics import FrameRow, score_run
from alpha_matrix.core.suites.proximity.policy import PolicyConfig
from alpha_matrix.core.suites.proximity.report import acceptance, render_proximity_lines, summarize_proximity
from alpha_matrix.core.suites.proximity.run import (
    ArmAccount,
    DetectorCore,
    camera_info_from_k,
    compose_result,
    frame_tag,
    parse_frame_tag,
    run_name,
    scenario_from_json,
    scenario_json,
)
from alpha_matrix.core.suites.proximity.scenarios import load_scenarios


def test_frame_tag_round_trips_and_rejects_other_frame_ids() -> None:
    tag = frame_tag("proximity-a01-2m", 144)
    assert tag.startswith("camera_optical;") and parse_frame_tag(tag) == ("proximity-a01-2m", 144)
    with pytest.raises(ValueError, match="not a frame tag"):
        parse_frame_tag("camera_optical")


def test_the_mount_is_one_configuration_for_camera_and_detector() -> None:
    cfg = CameraConfig()
    assert (cfg.eye, cfg.target, cfg.up, cfg.render_every) == (
        CELL_CAMERA.eye,
        CELL_CAMERA.target,
        CELL_CAMERA.up,
        CELL_CAMERA.frame_every,
    )
    pose = world_from_camera(CELL_CAMERA.eye, CELL_CAMERA.target, CELL_CAMERA.up)
    assert np.allclose(pose, camera_info(cfg).world_from_camera, atol=1e-6)  # pybullet's float32 look-at
    info = camera_info(cfg)
    k = [info.fx, 0.0, info.cx, 0.0, info.fy, info.cy, 0.0, 0.0, 1.0]
    again = camera_info_from_k(info.width, info.height, k)
    assert (again.fx, again.fy, again.cx, again.cy) == (info.fx, info.fy, info.cx, info.cy)


def test_scenario_json_carries_the_run_and_its_scoring() -> None:
    scen = load_scenarios(config_dir() / "scenarios" / "proximity.yaml")
    run = scen.runs[1]
    sc = scenario_from_json(scenario_json(run, scen.settings, run_steps(run, scen.settings)))
    assert sc.run == run_name(run.name, run.threshold) == "a01-2m"
    assert sc.policy.threshold == run.threshold == 2.0 and sc.policy.mode == "fixed"
    assert sc.score.threshold == 2.0 and sc.score.allowed_latency == 48
    assert sc.end_step == run_steps(run, scen.settings) and sc.settle_steps == 120
    assert HumanPath(**sc.path) == run.path


def test_detector_node_cannot_reach_simulator_state() -> None:
    """Its imports pull in no pybullet, world, human or simulated camera, and it names no sim/ topic."""
    code = (
        "import sys, alpha_matrix.nodes.proximity_detector\n"
        "bad = {'pybullet', 'alpha_matrix.core.sim.world', 'alpha_matrix.core.sim.human', 'alpha_matrix.core.sim.camera'}\n"
        "print(sorted(bad & set(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
    strings = [
        n.value
        for n in ast.walk(ast.parse(inspect.getsource(detector_node)))
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    topics = [s for s in strings if "/" in s and " " not in s]
    assert "camera/depth/image_raw" in topics and not [t for t in topics if t.lstrip("/").startswith("sim/")]


@pytest.fixture(scope="module")
def settled():
    w = World()
    w.reset(3)
    w.start_hold(120)
    while w.busy:
        w.step()
    yield w
    w.close()


def test_detector_core_calibrates_then_decides_per_frame(settled: World) -> None:
    cam = Camera(settled.client_id)
    core = DetectorCore(cam.info, PolicyConfig(threshold=2.0))
    human = None
    try:
        for s in (24, 48, 72, 96, 120):  # the empty cell while the robot settles
            assert core.on_frame(s, cam.render(s, np.random.default_rng(s)).depth) is None
            assert core.ack_step == s + 23
        assert core.calibrated
        human = Human(settled, HumanPath(angle_deg=180.0, start_distance=1.5, stop_distance=1.0, start_delay_s=5.0))
        human.set_step(0)
        truth = human.ground_truth_distance()
        est = core.on_frame(144, cam.render(144, np.random.default_rng(144)).depth)
    finally:
        if human is not None:
            human.close()
        cam.close()
    assert est is not None and est.detection.detected
    assert abs(est.detection.distance - truth) < 0.15
    assert est.decision.action == "stop" and est.decision.step == 144 and core.ack_step == 167
    with pytest.raises(ValueError, match="after step 144"):
        core.on_frame(144, np.zeros((240, 320), np.float32))


def _scenario(threshold: float = 1.0):
    scen = load_scenarios(config_dir() / "scenarios" / "proximity.yaml")
    run = scen.runs[0]
    return scenario_from_json(scenario_json(run, scen.settings, 600)), scen


def test_compose_result_scores_with_score_run_and_checks_the_task_continued() -> None:
    sc, _ = _scenario()
    n = sc.end_step + 1
    gt = np.full(n, 3.0)
    gt[300:360] = 0.8  # one breach of the 1 m threshold
    stopped = np.zeros(n, bool)
    stopped[312:420] = True  # stop decided at frame 288 (+24), resume decided at 384 (lands at 408+...)
    est = []
    for s in range(144, n, 24):
        action = "stop" if s == 288 else "resume" if s == 384 else "none"
        est.append(
            {"step": s, "detected": True, "distance": float(gt[s]) + 0.02, "confidence": 1.0, "blob_count": 1,
             "action": action, "stop_requested": 288 <= s < 384, "limit": 1.25}
        )  # fmt: skip
    arm = ArmAccount(commands=[(121, 311, "move", "CANCELLED"), (409, 440, "move", "DONE")], plan_done=1)
    r = compose_result(sc, gt, np.ones(n, bool), stopped, est, arm, placed=False)
    rows = [
        FrameRow(e["step"], float(gt[e["step"]]), True, e["distance"], 1.0, 1, e["action"], e["stop_requested"],
                 bool(stopped[e["step"]]), 1.25)
        for e in est
    ]  # fmt: skip
    m = score_run(gt, stopped, rows, sc.score)
    assert r["metrics"]["breaches"] == m.breaches == 1 and r["metrics"]["missed_breaches"] == 0
    assert r["stop_requests"] == [[288, "stop"], [384, "resume"]]
    assert r["task"]["interrupted"] == 1 and r["task"]["resumes"] == 1 and r["task"]["continued_after_resume"] == 1
    json.dumps(r, allow_nan=False)  # a record never carries NaN or inf
    s = summarize_proximity([r, {**r, "threshold": 2.0}])
    assert set(s["by_threshold"]) == {"1", "2"} and s["runs"] == 2 and s["missed_breaches"] == 0
    assert acceptance(s)
    lines = render_proximity_lines([("a01-1m", r, ""), ("a02-1m", None, "no result within 300 s")])
    assert any("not run: no result" in ln for ln in lines) and any(ln.startswith("| 1 m | 1 |") for ln in lines)
    assert not math.isnan(s["error_median"])
