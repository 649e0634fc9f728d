"""One human approach, end to end without ROS: world + human + camera + detector + policy.

The arm runs the oracle pick-and-place and then shuttles between two poses, so it moves in the
image for the whole run. The policy's decisions land at decision step + ``reaction_steps``
(``world.protective_stop()`` / ``world.resume()``), the same rule the driver uses, so the run
is deterministic: same seed and spec give identical rows. The ROS node wraps the same
``ProximityDetector`` and ``StopPolicy``; only this loop is simulation-specific.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from alpha_matrix.core.planning.oracle import oracle_plan
from alpha_matrix.core.robot.commands import Command, plan_to_commands, start_command
from alpha_matrix.core.seeds import rng
from alpha_matrix.core.sim.camera import LIGHTING, Camera, CameraConfig, static_bodies
from alpha_matrix.core.sim.human import Human, HumanConfig, HumanPath
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.proximity.detector import DetectorConfig, ProximityDetector
from alpha_matrix.core.suites.proximity.metrics import FrameRow, RunMetrics, ScoreConfig, score_run
from alpha_matrix.core.suites.proximity.policy import PolicyConfig, StopPolicy

SHUTTLE = ((0.45, -0.25, 0.85), (0.55, 0.25, 0.85))  # grasp-frame waypoints after the task


@dataclass(frozen=True)
class ApproachRun:
    """One scored run: a path, a threshold, a lighting preset, a seed."""

    name: str
    path: HumanPath
    threshold: float
    lighting: str = "default"
    seed: int = 0
    task: dict[str, Any] | None = None  # a sorting run: sorting.SortingConfig as JSON, its duration and phase


@dataclass(frozen=True)
class EvalSettings:
    camera: CameraConfig = field(default_factory=CameraConfig)
    detector: DetectorConfig = field(default_factory=DetectorConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    human: HumanConfig = field(default_factory=HumanConfig)
    reaction_steps: int = 24  # decision -> effect, 100 ms
    settle_steps: int = 120
    tail_s: float = 1.0  # extra time after the person has left the largest limit + hold
    arm_moves: bool = True
    boundary_band: float = 0.15
    accepted_error: float = 0.15  # m, false-stop tolerance beyond the margin


@dataclass(frozen=True, eq=False)
class ApproachResult:
    """Rows and per-step arrays; steps count from the end of settling (the person's t = 0)."""

    run: ApproachRun
    rows: list[FrameRow]
    gt: np.ndarray  # per step, index = step
    stopped: np.ndarray  # per step
    metrics: RunMetrics


class _ArmLoop:
    """Keeps the arm working; re-issues the interrupted command after a resume."""

    def __init__(self, world: World) -> None:
        block = world.object_poses()["red"][0]
        cmds = plan_to_commands(oracle_plan("red", block, world.config.zone))
        self._cmds: list[Command] = list(cmds)
        self._i = -1
        self._interrupted = False

    def stopped(self) -> None:
        self._interrupted = True

    def tick(self, world: World) -> None:
        if world.stopped or world.busy:
            return
        if not self._interrupted:
            self._i += 1
        self._interrupted = False
        if self._i >= len(self._cmds):
            target = SHUTTLE[(self._i - len(self._cmds)) % 2]
            cmd = Command("move", 240, target=target)
        else:
            cmd = self._cmds[self._i]
        start_command(world, cmd)


def run_steps(run: ApproachRun, settings: EvalSettings) -> int:
    """Steps to simulate: until the person is well clear of the limit, held clear, plus a tail."""
    path, pol = run.path, settings.policy
    if run.task is not None:  # a sorting run lasts as long as the file says
        return settings.settle_steps + math.ceil(float(run.task["duration_s"]) / pol.timestep)
    clear = run.threshold + pol.margin + 1.0
    if path.kind == "pass" or not path.retreat:
        t = path.duration_s
    else:
        t_back = path.start_delay_s + path.walk_s + path.dwell_s
        t = t_back + min(path.walk_s, max(clear - path.stop_distance, 0.0) / path.speed)
    return settings.settle_steps + math.ceil((t + pol.hold_time_s + settings.tail_s) / pol.timestep)


def run_approach(run: ApproachRun, settings: EvalSettings | None = None, world: World | None = None) -> ApproachResult:
    """Simulate one approach and score it. ``world`` is reused (and left open) when given."""
    s = settings or EvalSettings()
    own = world is None
    w = world or World()
    try:
        return _run(run, s, w)
    finally:
        if own:
            w.close()


def _run(run: ApproachRun, s: EvalSettings, w: World) -> ApproachResult:
    w.reset(run.seed)
    w.start_hold(s.settle_steps)
    while w.busy:
        w.step()
    cam = Camera(w.client_id, s.camera, static_bodies(w.body_names))
    try:
        return _score(run, s, w, cam)
    finally:
        cam.close()


def _score(run: ApproachRun, s: EvalSettings, w: World, cam: Camera) -> ApproachResult:
    det = ProximityDetector(cam.info, s.detector)
    light = LIGHTING[run.lighting]
    ref_rng = rng("proximity", "reference", run.name, run.seed)
    det.calibrate([cam.render(w.step_count, ref_rng, light).depth for _ in range(s.detector.reference_frames)])
    policy = StopPolicy(replace(s.policy, threshold=run.threshold))
    human = Human(w, run.path, s.human)
    arm = _ArmLoop(w) if s.arm_moves else None
    t0 = w.step_count
    n = run_steps(run, s) - t0
    gt = np.full(n + 1, np.inf)
    stopped = np.zeros(n + 1, dtype=bool)
    pending: list[tuple[int, str]] = []
    rows: list[FrameRow] = []
    try:
        for k in range(1, n + 1):
            while pending and pending[0][0] <= k:
                action = pending.pop(0)[1]
                if action == "stop":
                    w.protective_stop()
                    if arm is not None:
                        arm.stopped()
                else:
                    w.resume()
            if arm is not None:
                arm.tick(w)
            stopped[k] = w.stopped
            w.step()
            human.pose_kinematics(k)
            gt[k] = human.ground_truth_distance()
            if not cam.due(k):
                continue
            human.set_step(k)
            frame = cam.render(k, rng("proximity", "frame", run.name, run.seed, k), light)
            d = det.detect(frame.depth)
            dec = policy.update(k, d.detected, d.distance)
            if dec.action != "none":
                pending.append((k + s.reaction_steps, dec.action))
            rows.append(
                FrameRow(
                    k,
                    gt[k],
                    d.detected,
                    d.distance,
                    d.confidence,
                    d.blob_count,
                    dec.action,
                    dec.stop_requested,
                    w.stopped,
                    dec.limit,
                )  # fmt: skip
            )
    finally:
        human.close()
    gt[0] = gt[1]
    score = ScoreConfig(
        threshold=run.threshold,
        detection_range=s.detector.detection_range,
        boundary_band=s.boundary_band,
        allowed_latency=s.camera.render_every + s.reaction_steps,
        false_stop_tolerance=s.policy.margin + s.accepted_error,
        timestep=s.policy.timestep,
    )
    return ApproachResult(run, rows, gt, stopped, score_run(gt, stopped, rows, score))
