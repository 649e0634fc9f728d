"""The human-approach scenario file: pydantic at the boundary, plain ``ApproachRun`` inside.

Every problem is one ``ConfigError`` line naming the file and the key: unknown keys, bad
values (speed or threshold <= 0, negative hold time), and impossible paths, checked along the
whole path at 10 Hz: the person would stand inside the table/robot footprint (or start inside
the robot), or would leave the camera's view or depth range.

Also the request: every run as ``SuiteRequest`` JSON (``scenario_requests``, encoded by
``proximity/run.scenario_json``) and the context it carries (``graph_context``: sim_bridge's L).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.sim.camera import CameraConfig, camera_info
from alpha_matrix.core.sim.camera_model import in_view
from alpha_matrix.core.sim.human import HumanPath, path_state
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.proximity.context import ProximityContext
from alpha_matrix.core.suites.proximity.detector import DetectorConfig
from alpha_matrix.core.suites.proximity.eval import ApproachRun, EvalSettings, run_steps
from alpha_matrix.core.suites.proximity.policy import PolicyConfig, SsmParams
from alpha_matrix.core.suites.proximity.run import run_name, scenario_json
from alpha_matrix.core.suites.proximity.sorting import SortingConfig
from alpha_matrix.core.suites.suite import ScenarioRequest

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph

PostureName = Literal["upright", "crouching", "arm_raised", "reaching"]
LightingName = Literal["default", "dim", "bright", "side", "warm"]
BODY_RADIUS = {"upright": 0.3, "crouching": 0.35, "arm_raised": 0.3, "reaching": 0.8}  # m, incl. a reach
VIEW_HEIGHTS = (0.5, 1.0)  # body points that must stay in view, m above the floor


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ApproachModel(_Model):
    name: str = Field(min_length=1)
    angle_deg: float = Field(ge=-360.0, le=360.0)
    start_distance: float = Field(gt=0.0)
    stop_distance: float = Field(gt=0.0)
    speed: float = Field(gt=0.0, le=3.0)
    posture: PostureName = "upright"
    lighting: LightingName = "default"
    dwell_s: float = Field(1.0, ge=0.0)
    retreat: bool = True
    start_delay_s: float = Field(0.5, ge=0.0)

    @model_validator(mode="after")
    def _inward(self) -> ApproachModel:
        if self.start_distance <= self.stop_distance:
            raise ValueError("start_distance must be larger than stop_distance")
        return self


class PasserModel(_Model):
    name: str = Field(min_length=1)
    angle_deg: float = Field(ge=-360.0, le=360.0)
    start_distance: float = Field(gt=0.0)
    closest_distance: float = Field(gt=0.0)
    speed: float = Field(gt=0.0, le=3.0)
    posture: PostureName = "upright"
    lighting: LightingName = "default"
    start_delay_s: float = Field(0.5, ge=0.0)

    @model_validator(mode="after")
    def _passes(self) -> PasserModel:
        if self.start_distance <= self.closest_distance:
            raise ValueError("start_distance must be larger than closest_distance")
        return self


class SsmModel(_Model):
    human_speed: float = Field(default=1.6, gt=0.0)
    measure_speed: bool = False
    reaction_time: float = Field(default=0.2, ge=0.0)
    stopping_time: float = Field(default=0.3, ge=0.0)
    robot_speed: float = Field(default=0.5, ge=0.0)
    stopping_distance: float = Field(default=0.1, ge=0.0)
    intrusion: float = Field(default=0.2, ge=0.0)
    sensor_uncertainty: float = Field(default=0.1, ge=0.0)
    robot_uncertainty: float = Field(default=0.02, ge=0.0)


class PolicyModel(_Model):
    mode: Literal["fixed", "ssm"] = "fixed"
    margin: float = Field(default=0.25, ge=0.0)
    hold_time_s: float = Field(default=1.0, ge=0.0)
    reaction_steps: int = Field(default=24, ge=1)
    ssm: SsmModel = Field(default_factory=SsmModel)


XY = tuple[float, float]


class TaskModel(_Model):
    """The sorting task and the safe-pose transition (core/suites/proximity/sorting.SortingConfig)."""

    blocks: list[Literal["red", "green", "blue"]] = Field(default=["red", "green", "blue"], min_length=1)
    bins: list[XY] = Field(default=[(0.45, 0.38), (0.6, 0.38), (0.75, 0.38)], min_length=1)
    put_down_spots: list[XY] = Field(default=[(0.35, -0.38), (0.7, -0.38), (0.3, 0.15), (0.3, 0.4)])
    safe_poses: list[tuple[float, float, float]] = Field(
        default=[(0.3, 0.3, 0.95), (0.3, -0.3, 0.95), (0.55, 0.0, 0.95)], min_length=1
    )
    trigger_margin: float = Field(default=2.5, ge=0.0)  # m beyond the stop limit (threshold + margin)
    resume_s: float = Field(default=1.5, ge=0.0)
    speed: float = Field(default=0.4, gt=0.0, le=1.0)
    transition_speed: float = Field(default=0.9, gt=0.0, le=1.0)

    @model_validator(mode="after")
    def _bins(self) -> TaskModel:
        if len(self.bins) < len(self.blocks):
            raise ValueError(f"{len(self.blocks)} blocks need as many bins, got {len(self.bins)}")
        return self


class ArrivalModel(_Model):
    """A person arriving during the sorting task: when (``arrive_s`` after the robot settled), from
    where (``angle_deg``, ``start_distance``), how fast, how near, and in which phase of the task
    the file means it to land (``phase``: a label; the record says where the arm really was)."""

    name: str = Field(min_length=1)
    angle_deg: float = Field(ge=-360.0, le=360.0)
    start_distance: float = Field(gt=0.0)
    stop_distance: float = Field(gt=0.0)
    speed: float = Field(gt=0.0, le=3.0)
    arrive_s: float = Field(ge=0.0)
    dwell_s: float = Field(1.0, ge=0.0)
    posture: PostureName = "upright"
    lighting: LightingName = "default"
    phase: Literal["holding", "carrying", "between", "none"] = "between"

    @model_validator(mode="after")
    def _inward(self) -> ArrivalModel:
        if self.start_distance <= self.stop_distance:
            raise ValueError("start_distance must be larger than stop_distance")
        return self


class SortingModel(_Model):
    """Sorting runs: the task, their threshold, how long each lasts, and the arrivals."""

    threshold: float = Field(1.0, gt=0.0)
    duration_s: float = Field(30.0, gt=0.0, le=80.0)
    task: TaskModel = Field(default_factory=lambda: TaskModel())
    arrivals: list[ArrivalModel] = Field(min_length=1)


class ScenarioFileModel(_Model):
    seed: int = 42
    thresholds: list[Annotated[float, Field(gt=0.0)]] = Field(min_length=1)
    policy: PolicyModel = Field(default_factory=PolicyModel)
    approaches: list[ApproachModel] = Field(default_factory=list)
    passers: list[PasserModel] = Field(default_factory=list)
    sorting: SortingModel | None = None

    @model_validator(mode="after")
    def _something(self) -> ScenarioFileModel:
        if not self.approaches and self.sorting is None:
            raise ValueError("approaches: at least one approach (or a sorting section)")
        return self


@dataclass(frozen=True)
class ScenarioSet:
    """What the file describes: the runs (every path x every threshold) and the settings."""

    runs: list[ApproachRun]
    settings: EvalSettings
    thresholds: tuple[float, ...]


def _path(m: ApproachModel | PasserModel | ArrivalModel) -> HumanPath:
    if isinstance(m, ArrivalModel):
        return HumanPath("approach", m.angle_deg, m.start_distance, m.stop_distance, m.speed, m.dwell_s, True,
                         m.arrive_s, m.posture)  # fmt: skip
    if isinstance(m, PasserModel):
        return HumanPath("pass", m.angle_deg, m.start_distance, m.closest_distance, m.speed, 0.0, False,
                         m.start_delay_s, m.posture)  # fmt: skip
    return HumanPath("approach", m.angle_deg, m.start_distance, m.stop_distance, m.speed, m.dwell_s, m.retreat,
                     m.start_delay_s, m.posture)  # fmt: skip


def _footprint_gap(x: float, y: float, det: DetectorConfig) -> float:
    """Horizontal distance from (x, y) to the table/robot exclusion footprint (0 inside)."""
    gap = math.hypot(x - det.base_xy[0], y - det.base_xy[1]) - det.exclusion_radius
    for (x0, x1), (y0, y1), _ in det.exclusion_boxes:
        gap = min(gap, math.hypot(max(x0 - x, 0.0, x - x1), max(y0 - y, 0.0, y - y1)))
    return max(gap, 0.0)


def path_problem(path: HumanPath, camera: CameraConfig, det: DetectorConfig) -> tuple[str, str] | None:
    """(key, reason) of the first impossible point on ``path``, or None when it is feasible."""
    info = camera_info(camera)
    radius = BODY_RADIUS[path.posture]
    for t in np.arange(0.0, path.duration_s + 0.1, 0.1):
        st = path_state(path, float(t), det.base_xy)
        if _footprint_gap(st.x, st.y, det) < radius:
            key = "stop_distance" if path.kind == "approach" else "closest_distance"
            return key, f"the person ({radius} m body radius) would stand inside the table/robot at t={t:.1f} s"
        pts = np.array([[st.x, st.y, h] for h in VIEW_HEIGHTS])
        if not bool(np.all(in_view(info, pts, camera.far))):
            return "start_distance", f"the person would be outside the camera's view at t={t:.1f} s"
    return None


def load_scenarios(
    path: Path, camera: CameraConfig | None = None, detector: DetectorConfig | None = None
) -> ScenarioSet:
    """Validate ``path`` and expand it into runs; any problem is a ConfigError naming the key."""
    raw = load_yaml(path)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    try:
        model = ScenarioFileModel.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "file"
        msg = "unknown key" if first["type"] == "extra_forbidden" else first["msg"].removeprefix("Value error, ")
        raise ConfigError(f"{path}: {key}: {msg}") from None
    arrivals = model.sorting.arrivals if model.sorting is not None else []
    names = [a.name for a in model.approaches] + [p.name for p in model.passers] + [a.name for a in arrivals]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(f"{path}: name: duplicate scenario names: {', '.join(dup)}")
    cam = camera or CameraConfig()
    det = detector or DetectorConfig()
    for i, t in enumerate(model.thresholds):
        if t + model.policy.margin > det.detection_range:
            raise ConfigError(
                f"{path}: thresholds.{i}: {t} m + margin exceeds the detection range {det.detection_range} m"
            )
    items: list[tuple[str, ApproachModel | PasserModel]] = [
        *((f"approaches.{i}", a) for i, a in enumerate(model.approaches)),
        *((f"passers.{i}", p) for i, p in enumerate(model.passers)),
    ]
    runs: list[ApproachRun] = []
    for where, m in items:
        hp = _path(m)
        problem = path_problem(hp, cam, det)
        if problem is not None:
            raise ConfigError(f"{path}: {where}.{problem[0]}: {problem[1]}")
        for t in model.thresholds:
            runs.append(ApproachRun(m.name, hp, float(t), m.lighting, model.seed))
    if model.sorting is not None:
        so = model.sorting
        if so.threshold + model.policy.margin + so.task.trigger_margin > det.detection_range:
            raise ConfigError(
                f"{path}: sorting.task.trigger_margin: the trigger distance {so.threshold} m + margin + "
                f"{so.task.trigger_margin} m exceeds the detection range {det.detection_range} m"
            )
        task = SortingConfig.from_json(so.task.model_dump(mode="json")).as_json()
        for i, a in enumerate(so.arrivals):
            hp = _path(a)
            problem = path_problem(hp, cam, det)
            if problem is not None:
                raise ConfigError(f"{path}: sorting.arrivals.{i}.{problem[0]}: {problem[1]}")
            spec = {"config": task, "duration_s": so.duration_s, "phase": a.phase}
            runs.append(ApproachRun(a.name, hp, float(so.threshold), a.lighting, model.seed, spec))
    pol = model.policy
    ssm = SsmParams(**pol.ssm.model_dump())
    policy = PolicyConfig(mode=pol.mode, margin=pol.margin, hold_time_s=pol.hold_time_s, ssm=ssm)
    settings = replace(EvalSettings(camera=cam, detector=det, policy=policy), reaction_steps=pol.reaction_steps)
    return ScenarioSet(runs, settings, tuple(float(t) for t in model.thresholds))


# ----------------------------------------------------------------------------- the request
def scenario_requests(scenarios: Path | None, _config_file: Path | None = None) -> list[ScenarioRequest]:
    """Every (path, threshold) run of the file as the runner sends it (the suite reads no other file)."""
    scen = load_scenarios(scenarios or config_dir() / "scenarios" / "proximity.yaml")
    return [
        ScenarioRequest(
            run_name(r.name, r.threshold), r.seed, scenario_json(r, scen.settings, run_steps(r, scen.settings))
        )
        for r in scen.runs
    ]


def graph_context(graph: Graph) -> ProximityContext:
    """sim_bridge's L (a stop decided on the frame of step s is in effect at s + L), and the
    executive's agent, guards and decision interval (the /** values the graph shares)."""
    ex = graph.node("proximity_executive").parameters
    return ProximityContext(
        reaction_latency_steps=int(graph.node("sim_bridge").parameters["reaction_latency_steps"]),
        agent=str(ex["agent"]),
        guards=bool(ex["guards"]),
        decision_every_frames=int(ex["decision_every_frames"]),
    )
