"""Camera, depth-only detector, stop/resume policy, metrics, and one short end-to-end run."""

from __future__ import annotations

import ast
import inspect
import math
from pathlib import Path

import numpy as np
import pybullet as p
import pytest

import alpha_matrix.core.suites.proximity.detector as proximity
from alpha_matrix.core.sim.camera import LIGHTING, Camera, static_bodies
from alpha_matrix.core.sim.camera_model import DepthNoise, add_depth_noise, backproject, metric_depth, project
from alpha_matrix.core.sim.human import Human, HumanPath
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.proximity.detector import ProximityDetector
from alpha_matrix.core.suites.proximity.eval import ApproachRun, EvalSettings, run_approach
from alpha_matrix.core.suites.proximity.metrics import FrameRow, ScoreConfig, score_run
from alpha_matrix.core.suites.proximity.policy import PolicyConfig, SsmParams, StopPolicy, protective_distance


@pytest.fixture(scope="module")
def scene():
    """A settled world, the camera, and a detector calibrated on the empty scene."""
    w = World()
    w.reset(2)
    w.start_hold(120)
    while w.busy:
        w.step()
    cam = Camera(w.client_id, static=static_bodies(w.body_names))
    det = ProximityDetector(cam.info)
    det.calibrate([cam.render(0, np.random.default_rng(i)).depth for i in range(5)])
    yield w, cam, det
    cam.close()
    w.close()


def test_intrinsics_and_backprojection_put_the_floor_at_zero(scene) -> None:
    _, cam, _ = scene
    info = cam.info
    assert info.fx == pytest.approx(info.fy)  # square pixels
    assert (info.cx, info.cy) == (159.5, 119.5)
    assert cam.render(0, None).rgb is None  # colour only when asked for
    f = cam.render(0, None, rgb=True)
    assert f.rgb is not None and f.rgb.dtype == np.uint8 and f.rgb.shape == (240, 320, 3)
    assert f.depth.dtype == np.float32 and f.depth.shape == (240, 320)
    pts, _ = backproject(f.depth, info)
    floor = pts[np.abs(pts[:, 2]) < 0.05]
    assert len(floor) > 0.8 * len(pts)  # most of the view is floor, and it lands at z = 0
    uvz = project(info, floor[:50])
    idx = np.flatnonzero(f.depth > 0)
    assert np.allclose(np.round(uvz[:, 1]) * 320 + np.round(uvz[:, 0]), idx[np.abs(pts[:, 2]) < 0.05][:50])


def test_metric_depth_maps_the_buffer_ends_to_near_and_far() -> None:
    out = metric_depth(np.array([0.0, 1.0]), 0.1, 10.0)
    assert out[0] == pytest.approx(0.1) and out[1] == pytest.approx(10.0, rel=1e-5)


def test_depth_noise_is_seeded_and_grows_with_range() -> None:
    depth = np.concatenate([np.full((100, 100), 1.0), np.full((100, 100), 6.0)]).astype(np.float32)
    noise = DepthNoise(dropout=0.0, patches=0.0)
    a = add_depth_noise(depth, noise, np.random.default_rng(3))
    assert np.array_equal(a, add_depth_noise(depth, noise, np.random.default_rng(3)))
    assert not np.array_equal(a, add_depth_noise(depth, noise, np.random.default_rng(4)))
    assert np.std(a[100:] - 6.0) > 5 * np.std(a[:100] - 1.0)
    holes = add_depth_noise(depth, DepthNoise(dropout=0.05, patches=3.0), np.random.default_rng(3))
    assert 0.04 < np.mean(holes == 0.0) < 0.2


def test_lighting_changes_rgb_but_not_depth(scene) -> None:
    _, cam, _ = scene
    a, b = cam.render(0, None, LIGHTING["default"], rgb=True), cam.render(0, None, LIGHTING["dim"], rgb=True)
    assert not np.array_equal(a.rgb, b.rgb)
    assert np.array_equal(a.depth, b.depth)


def test_detector_api_takes_only_images_and_imports_no_simulator() -> None:
    tree = ast.parse(Path(proximity.__file__).read_text(encoding="utf-8"))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert (
        not {"pybullet", "alpha_matrix.core.sim.world", "alpha_matrix.core.sim.human", "alpha_matrix.core.sim.camera"}
        & names
    )
    assert list(inspect.signature(ProximityDetector.detect).parameters) == ["self", "depth"]
    assert list(inspect.signature(ProximityDetector.__init__).parameters) == ["self", "info", "config"]


def test_detector_never_reads_the_simulator(scene, monkeypatch) -> None:
    w, cam, det = scene
    h = Human(w, HumanPath(angle_deg=150.0, start_distance=2.5, stop_distance=1.5, start_delay_s=0.0))
    try:
        h.set_step(480)
        gt = h.ground_truth_distance()
        depth = cam.render(480, np.random.default_rng(9)).depth
    finally:
        h.close()

    def forbidden(*_a, **_k):
        raise AssertionError("the detector called pybullet")

    for name in dir(p):
        if callable(getattr(p, name)) and not name.startswith("_"):
            monkeypatch.setattr(p, name, forbidden)
    d = det.detect(depth)  # the person is gone from the world by now: only the image knows
    assert d.detected and abs(d.distance - gt) < 0.15
    assert 0.0 < d.confidence <= 1.0 and d.blob_count == 1


def test_empty_scene_with_moving_arm_is_not_a_person(scene) -> None:
    w, cam, det = scene
    w.start_move((0.3, 0.3, 0.9), 120)
    for k in range(120):
        w.step()
        if k % 24 == 0:
            d = det.detect(cam.render(k, np.random.default_rng(k)).depth)
            assert not d.detected and math.isinf(d.distance)


def test_fixed_policy_stops_inside_and_resumes_after_hold() -> None:
    pol = StopPolicy(PolicyConfig(threshold=2.0, margin=0.25, hold_time_s=1.0))
    assert pol.update(24, True, 2.4).action == "none"
    dec = pol.update(48, True, 2.2)
    assert dec.action == "stop" and dec.stop_requested and dec.limit == pytest.approx(2.25)
    assert pol.update(72, True, 1.0).action == "none"
    assert pol.update(96, False, math.inf).action == "none"  # clear, but not for long
    assert pol.update(120, True, 2.0).action == "none"  # back inside: the hold restarts
    assert pol.update(144, True, 3.0).action == "none"
    assert pol.update(144 + 216, True, 3.0).action == "none"  # 0.9 s clear
    assert pol.update(144 + 240, True, 3.0).action == "resume"
    assert not pol.stop_requested


def test_ssm_protective_distance_and_measured_speed() -> None:
    s = SsmParams()
    expected = 1.6 * (0.2 + 0.3) + 0.5 * 0.2 + 0.1 + 0.2 + 0.1 + 0.02
    assert protective_distance(1.6, 0.5, s) == pytest.approx(expected)
    pol = StopPolicy(PolicyConfig(mode="ssm", ssm=s))
    assert pol.update(24, True, expected + 0.05).action == "none"  # S_p = 1.32 m
    assert pol.update(48, True, expected - 0.05).action == "stop"
    measured = StopPolicy(PolicyConfig(mode="ssm", ssm=SsmParams(measure_speed=True)))
    for k, d in enumerate([4.0, 3.7, 3.4, 3.1]):  # 3 m/s toward the robot at 10 Hz
        dec = measured.update(24 * (k + 1), True, d)
    assert dec.human_speed == pytest.approx(3.0)
    assert dec.limit == pytest.approx(protective_distance(3.0, 0.5, s))


def _row(step: int, gt: float, det: bool, d: float, action: str = "none") -> FrameRow:
    return FrameRow(step, gt, det, d, 1.0, int(det), action, False, False, 2.0)


def test_metrics_count_missed_breaches_false_stops_and_accuracy() -> None:
    cfg = ScoreConfig(threshold=2.0, allowed_latency=48, false_stop_tolerance=0.25)
    gt = np.concatenate([np.full(100, 3.0), np.full(200, 1.5), np.full(300, 3.0)])
    stopped = np.zeros(600, dtype=bool)
    stopped[140:350] = True  # on time: 40 steps after the breach began at 100
    m = score_run(gt, stopped, [_row(96, 3.0, True, 3.0), _row(120, 1.5, True, 1.6, "stop")], cfg)
    assert (m.breaches, m.missed_breaches, m.false_stops, m.stop_requests) == (1, 0, 0, 1)
    assert m.stop_latencies == [pytest.approx(40 / 240)]
    assert m.resume_latencies == [pytest.approx(50 / 240)]
    assert m.frames_correct == m.frames_scored == 2
    late = np.zeros(600, dtype=bool)
    late[160:350] = True  # 60 steps: 12 steps past the allowed latency
    m2 = score_run(gt, late, [_row(500, 3.0, True, 3.0, "stop"), _row(524, 4.5, True, 3.0)], cfg)
    assert (m2.missed_breaches, m2.missed_steps, m2.false_stops) == (1, 12, 1)
    assert m2.frames_correct == 1  # detected at gt 4.5 m: outside the detection range


def test_run_approach_stops_resumes_and_is_deterministic() -> None:
    path = HumanPath(angle_deg=180.0, start_distance=2.4, stop_distance=0.7, speed=2.0, dwell_s=0.2, start_delay_s=0.2)
    run = ApproachRun("t", path, threshold=1.0, seed=4)
    settings = EvalSettings(policy=PolicyConfig(margin=0.25, hold_time_s=0.5), tail_s=0.3)
    with World() as w:
        a = run_approach(run, settings, w)
        b = run_approach(run, settings, w)
    assert a.rows == b.rows and np.array_equal(a.gt, b.gt) and np.array_equal(a.stopped, b.stopped)
    stop = next(r for r in a.rows if r.action == "stop")
    resume = next(r for r in a.rows if r.action == "resume")
    assert not a.stopped[stop.step + 23] and a.stopped[stop.step + 24]  # reaction latency 24 steps
    assert a.stopped[resume.step + 23] and not a.stopped[resume.step + 24]
    assert a.metrics.breaches >= 1 and a.metrics.missed_breaches == 0 and a.metrics.false_stops == 0
    assert a.metrics.errors and np.median(np.abs(a.metrics.errors)) < 0.15
