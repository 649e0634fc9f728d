"""The human-proximity suite through the ROS graph: the ROS-free parts.

No pybullet, world or human here (the detector node imports this module, and must not be able
to reach simulator state): scenario <-> JSON for ``SuiteRequest``, the frame tag that carries
the episode and step of a camera image, the detector's per-episode state machine
(``DetectorCore``: calibrate on the first frames, then detect + decide per frame, and the ack
it may send), and the scoring of one run from the sim-only truth and the detector's
estimates with ``metrics.score_run`` (summaries and the report: proximity/report.py).

Frame tag: ``sensor_msgs/Image`` and ``CameraInfo`` carry ``header.stamp`` = sim time of the
frame's step and ``header.frame_id`` = ``camera_optical;episode=<id>;step=<k>``: the optical
frame's name, then the episode and step the graph's determinism keys on (a frame of a finished
episode must never count in the next one, whose steps restart at 1).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from alpha_matrix.core.sim.camera_model import CELL_CAMERA, CameraInfo, world_from_camera
from alpha_matrix.core.suites.proximity.detector import Detection, DetectorConfig, ProximityDetector
from alpha_matrix.core.suites.proximity.metrics import FrameRow, ScoreConfig, score_run
from alpha_matrix.core.suites.proximity.policy import Decision, PolicyConfig, SsmParams, StopPolicy

SUITE = "proximity"


# ----------------------------------------------------------------------------- frame tag
def frame_tag(episode_id: str, step: int, frame: str = CELL_CAMERA.optical_frame) -> str:
    return f"{frame};episode={episode_id};step={step}"


def parse_frame_tag(tag: str) -> tuple[str, int]:
    """(episode_id, step) of a frame tag; ValueError when it is not one."""
    parts = dict(p.split("=", 1) for p in tag.split(";")[1:] if "=" in p)
    if "episode" not in parts or "step" not in parts:
        raise ValueError(f"not a frame tag: {tag!r}")
    return parts["episode"], int(parts["step"])


def run_name(name: str, threshold: float) -> str:
    """Scenario name of one (path, threshold) run, e.g. ``a01-2m``."""
    return f"{name}-{threshold:g}m"


# ----------------------------------------------------------------------------- scenario JSON
@dataclass(frozen=True)
class ProximityScenario:
    """One (path, threshold) run as the graph's nodes see it."""

    name: str  # the path's name (noise streams are keyed by it, as in the bare run)
    run: str  # run_name(name, threshold)
    seed: int
    threshold: float
    lighting: str
    path: dict[str, Any]  # core/human.HumanPath fields
    settle_steps: int  # the person's t = 0 is the end of settling
    end_step: int  # the run's last physics step
    reaction_steps: int
    policy: PolicyConfig
    score: ScoreConfig
    task: dict[str, Any] | None = None  # a sorting run (sorting.py): the task and the transition's settings


def scenario_json(run: Any, settings: Any, end_step: int) -> str:
    """``run``: proximity_eval.ApproachRun, ``settings``: EvalSettings (duck-typed: no pybullet here)."""
    pol = settings.policy
    score = ScoreConfig(
        threshold=run.threshold,
        detection_range=settings.detector.detection_range,
        boundary_band=settings.boundary_band,
        allowed_latency=settings.camera.render_every + settings.reaction_steps,
        false_stop_tolerance=pol.margin + settings.accepted_error,
        timestep=pol.timestep,
    )
    task = getattr(run, "task", None)
    return json.dumps(
        {
            **({"task": task} if task is not None else {}),  # only sorting runs carry it: others unchanged
            "name": run.name,
            "run": run_name(run.name, run.threshold),
            "seed": run.seed,
            "threshold": run.threshold,
            "lighting": run.lighting,
            "path": asdict(run.path),
            "settle_steps": settings.settle_steps,
            "end_step": end_step,
            "reaction_steps": settings.reaction_steps,
            "policy": asdict(pol),
            "score": asdict(score),
        },
        sort_keys=True,
    )


def scenario_from_json(text: str) -> ProximityScenario:
    d = json.loads(text)
    pol = dict(d["policy"])
    pol["ssm"] = SsmParams(**pol["ssm"])
    pol["threshold"] = float(d["threshold"])
    return ProximityScenario(
        d["name"], d["run"], int(d["seed"]), float(d["threshold"]), d["lighting"], dict(d["path"]),
        int(d["settle_steps"]), int(d["end_step"]), int(d["reaction_steps"]),
        PolicyConfig(**pol),
        ScoreConfig(**d["score"]),
        d.get("task"),
    )  # fmt: skip


# ----------------------------------------------------------------------------- the detector's core
def camera_info_from_k(width: int, height: int, k: Sequence[float], pose: np.ndarray | None = None) -> CameraInfo:
    """Intrinsics from a CameraInfo K (row-major 3x3); extrinsics ``pose`` (world from optical
    frame, the detector's calibration parameters), by default the cell's simulated mount."""
    if pose is None:
        pose = world_from_camera(CELL_CAMERA.eye, CELL_CAMERA.target, CELL_CAMERA.up)
    return CameraInfo(int(width), int(height), float(k[0]), float(k[4]), float(k[2]), float(k[5]), pose)


@dataclass(frozen=True)
class Estimate:
    step: int
    detection: Detection
    decision: Decision


class DetectorCore:
    """One episode of the detector node: depth frames in step order -> estimates and decisions.

    The first ``reference_frames`` frames (the empty cell while the robot settles) are its
    reference; every later frame is detected and decided on. ``ack_step`` is the last step
    covered: no decision can concern a step before the next frame, so after frame k every
    step up to k + frame_every - 1 is done.
    """

    def __init__(
        self,
        info: CameraInfo,
        policy: PolicyConfig,
        detector: DetectorConfig | None = None,
        frame_every: int = CELL_CAMERA.frame_every,
    ) -> None:
        self.detector = ProximityDetector(info, detector or DetectorConfig())
        self.policy = StopPolicy(policy)
        self.frame_every = frame_every
        self._reference: list[np.ndarray] = []
        self.last_step = 0

    @property
    def calibrated(self) -> bool:
        return self.detector.reference is not None

    @property
    def ack_step(self) -> int:
        return self.last_step + self.frame_every - 1

    def on_frame(self, step: int, depth: np.ndarray) -> Estimate | None:
        """Process the frame of ``step``; None while calibrating. Frames must come in step order."""
        if step <= self.last_step:
            raise ValueError(f"frame of step {step} after step {self.last_step}")
        self.last_step = step
        if not self.calibrated:
            self._reference.append(depth)
            if len(self._reference) >= self.detector.config.reference_frames:
                self.detector.calibrate(self._reference)
                self._reference = []
            return None
        d = self.detector.detect(depth)
        return Estimate(step, d, self.policy.update(step, d.detected, d.distance))


# ----------------------------------------------------------------------------- scoring one run
def _f(x: float) -> float | None:
    return round(float(x), 6) if math.isfinite(x) else None


@dataclass
class ArmAccount:
    """What the executive saw of the task: every accepted command and how it ended."""

    commands: list[tuple[int, int, str, str]] = field(default_factory=list)  # (start, end, kind, DONE|CANCELLED)
    refused_while_stopped: int = 0
    plan_commands: int = 6
    plan_done: int = 0
    holds_while_stopped: int = 0


def compose_result(
    sc: ProximityScenario,
    gt: np.ndarray,
    in_view: np.ndarray,
    stopped: np.ndarray,
    estimates: Sequence[dict[str, Any]],
    arm: ArmAccount,
    placed: bool,
) -> dict[str, Any]:
    """Score one run. ``gt``/``in_view``/``stopped`` are indexed by physics step 0 .. end_step
    (step 0 copies step 1); ``estimates`` are the detector's per-frame messages as dicts."""
    rows = [
        FrameRow(
            e["step"], float(gt[e["step"]]), e["detected"], e["distance"], e["confidence"], e["blob_count"],
            e["action"], e["stop_requested"], bool(stopped[e["step"]]), e["limit"],
        )
        for e in estimates
        if sc.settle_steps < e["step"] <= sc.end_step
    ]  # fmt: skip
    m = score_run(gt, stopped, rows, sc.score)
    resumes = [r.step + sc.reaction_steps for r in rows if r.action == "resume"]
    starts = [c[0] for c in arm.commands]
    continued = [any(s > r for s in starts) for r in resumes if r < sc.end_step]
    return {
        "name": sc.name,
        "run": sc.run,
        "seed": sc.seed,
        "threshold": sc.threshold,
        "mode": sc.policy.mode,
        "lighting": sc.lighting,
        "end_step": sc.end_step,
        "metrics": {k: ([round(x, 6) for x in v] if isinstance(v, list) else v) for k, v in asdict(m).items()},
        "frames": len(rows),
        "frames_in_view": int(sum(bool(in_view[r.step]) for r in rows)),
        "stop_requests": [[r.step, r.action] for r in rows if r.action != "none"],
        "rows": [
            [
                r.step,
                _f(r.gt_distance),
                r.detected,
                _f(r.distance),
                round(r.confidence, 4),
                r.blob_count,
                r.action,
                r.stopped,
            ]
            for r in rows
        ],  # fmt: skip
        "task": {
            "commands": [list(c) for c in arm.commands],
            "interrupted": sum(c[3] == "CANCELLED" for c in arm.commands),
            "refused_while_stopped": arm.refused_while_stopped,
            "holds_while_stopped": arm.holds_while_stopped,
            "plan_done": arm.plan_done,
            "plan_complete": arm.plan_done >= arm.plan_commands,
            "placed": placed,
            "resumes": len(continued),
            "continued_after_resume": sum(continued),
        },
    }
