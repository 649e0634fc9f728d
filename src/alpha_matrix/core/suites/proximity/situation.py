"""The proximity suite's situation: the detector's recent estimates and the robot's state.

What the brief states (core/agent/situation.py says what no situation ever holds):

* proximity: the safety-zone radius (the user's threshold, the scenario's 1/2/3 m), the frame
  period and the robot's reaction time (facts of the cell). Not the reference's margin or
  hold time: how far inside to stop and how long to wait is the agent's judgement.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, model_serializer

from alpha_matrix.core.agent.prompts import num as _num
from alpha_matrix.core.agent.protocol import Observation, Tool
from alpha_matrix.core.agent.situation import Strict as _Strict
from alpha_matrix.core.agent.situation import observation as agent_observation
from alpha_matrix.core.agent.situation import rounded as _r
from alpha_matrix.core.suites.proximity.tools import PROXIMITY_TOOLS

WINDOW = 5  # the current estimate and the four before it
BASE_XY = (0.1, 0.0)  # the robot base axis (DetectorConfig.base_xy): bearings are measured from it


# ----------------------------------------------------------------------------- proximity
class ProximityBrief(_Strict):
    threshold_m: float = Field(gt=0.0)  # the robot must be stopped while a person is closer than this
    frame_period_s: float = Field(gt=0.0)  # one estimate this often
    reaction_s: float = Field(ge=0.0)  # a stop requested now is in effect this much later
    # Sorting runs only (absent from every other brief): a person nearer than this should find the
    # arm in its safe pose (safe_pose puts the block down and retracts, continue_task resumes), and
    # how long the cell waits clear of it before resuming.
    safe_pose_m: float | None = Field(default=None, gt=0.0)
    resume_after_s: float | None = Field(default=None, ge=0.0)

    @model_serializer(mode="wrap")
    def _without_absent(self, handler: Any) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None or k not in ("safe_pose_m", "resume_after_s")}


class EstimateView(_Strict):
    """One frame of the depth-only detector, as it reports it."""

    step: int = Field(ge=0)
    t_s: float  # sim time of the frame
    detected: bool
    distance_m: float | None  # nearest person's horizontal distance to the base axis; None: nobody seen
    confidence: float  # the detector's: of the person when detected, of a clear view when not
    people: int = Field(ge=0)  # person-sized blobs in view
    nearest_xy: tuple[float, float] | None = None  # the point that set the distance (world x, y, m)
    bearing_deg: float | None = None  # its direction from the base axis: 0 = +x, 90 = +y


class ProximityRobotView(_Strict):
    stopped: bool  # a protective stop is in effect
    at_safe_pose: bool = False
    command: str = ""  # the kind of command it is running ("move", "hold", ...); "" when idle


class ProximitySituation(_Strict):
    suite: Literal["proximity"] = "proximity"
    brief: ProximityBrief
    step: int = Field(ge=0)
    estimates: tuple[EstimateView, ...] = Field(min_length=1, max_length=WINDOW)  # oldest first
    robot: ProximityRobotView


@dataclass(frozen=True)
class FrameEstimate:
    """One detector frame as the runner has it (ProximityEstimate fields, plus the nearest point)."""

    step: int
    detected: bool
    distance: float  # inf when nothing is detected
    confidence: float
    blob_count: int
    nearest: tuple[float, float] | tuple[float, float, float] | None = None


def frame_estimate(msg: Any) -> FrameEstimate:
    """A ProximityEstimate message (or any object with its fields) as a ``FrameEstimate``."""
    nearest = getattr(msg, "nearest", None)
    return FrameEstimate(
        int(msg.step), bool(msg.detected), float(msg.distance), float(msg.confidence), int(msg.blob_count),
        (float(nearest[0]), float(nearest[1])) if nearest else None,
    )  # fmt: skip


def estimate_view(e: FrameEstimate, timestep: float, base_xy: tuple[float, float] = BASE_XY) -> EstimateView:
    seen = e.detected and math.isfinite(e.distance)
    xy = (_r(e.nearest[0]), _r(e.nearest[1])) if seen and e.nearest is not None else None
    bearing = None if xy is None else _r(math.degrees(math.atan2(xy[1] - base_xy[1], xy[0] - base_xy[0])) % 360.0, 1)
    return EstimateView(
        step=e.step,
        t_s=_r(e.step * timestep),
        detected=seen,
        distance_m=_r(e.distance) if seen else None,
        confidence=_r(e.confidence),
        people=e.blob_count,
        nearest_xy=xy,
        bearing_deg=bearing,
    )


def proximity_situation(
    history: Sequence[FrameEstimate],
    robot: ProximityRobotView,
    threshold_m: float,
    *,
    timestep: float = 1.0 / 240.0,
    frame_every: int = 24,
    reaction_steps: int = 24,
    window: int = WINDOW,
    safe_pose_m: float | None = None,
    resume_after_s: float | None = None,
) -> ProximitySituation:
    """The decision on the latest frame of ``history`` (frames in step order; only the last
    ``window`` are shown). ``threshold_m`` is the run's threshold: the brief's safety zone."""
    if not history:
        raise ValueError("a proximity decision needs at least one estimate")
    shown = list(history)[-min(window, WINDOW) :]
    if any(b.step <= a.step for a, b in zip(shown, shown[1:], strict=False)):
        raise ValueError("estimates must be in increasing step order")
    return ProximitySituation(
        brief=ProximityBrief(
            threshold_m=_r(threshold_m),
            frame_period_s=_r(frame_every * timestep),
            reaction_s=_r(reaction_steps * timestep),
            safe_pose_m=None if safe_pose_m is None else _r(safe_pose_m),
            resume_after_s=None if resume_after_s is None else _r(resume_after_s),
        ),
        step=shown[-1].step,
        estimates=tuple(estimate_view(e, timestep) for e in shown),
        robot=robot,
    )


def tools_for(situation: ProximitySituation) -> tuple[Tool, ...]:
    return PROXIMITY_TOOLS


def observation(situation: ProximitySituation, episode_id: str, decision_index: int) -> Observation:
    """One decision point: the situation with the suite's tools."""
    return agent_observation(situation, episode_id, decision_index, tools_for(situation))


def brief_values(brief: dict[str, Any]) -> dict[str, str]:
    """The brief as the prompt's placeholder values."""
    return {k: _num(brief[k]) for k in ("threshold_m", "frame_period_s", "reaction_s")}
