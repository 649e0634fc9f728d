"""Between the agent under test and the robot, in the proximity suite (no ROS, no simulator).

One episode of the ``proximity_agent_link`` node: camera frames in step order (their tags), the
detector's estimates, and the agent's decisions.

* **Decision points.** The detector's first ``reference_frames`` frames have no estimate (its
  calibration); from the first estimated frame on, the agent decides on every
  ``every``-th frame, over the current estimate and the four before it.
* **Time.** The link is a gating consumer of the step stream: after frame k it acks
  k + frame_every - 1 only once the decision on k is in and its stop requested, so the
  decision lands at k + L however long the model took (its wall clock is only recorded).
* **What the agent is shown of the robot**: whether a protective stop is in effect at the frame's
  step -- its own stops and, with guards on, the detector's (from the actions on the
  estimates, applied at frame + L), as the robot's safety controller would report them.
* **Acting.** ``robot_stop`` and ``safe_pose`` engage the agent's own stop hold, ``continue_task``
  releases it (never the guard's: each requester holds its own stop); a message, an invalid
  answer or an abort changes nothing (the robot keeps the guard's behaviour). ``safe_pose`` is
  applied as a stop, except in a sorting run (``safe_pose_m`` set: the brief says so), where the
  executive carries it out (put down, retract: core/suites/proximity/sorting.py) and
  ``continue_task`` resumes the task; there ``robot_stop`` alone engages the agent's stop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from alpha_matrix.core.agent.protocol import Decision, Observation
from alpha_matrix.core.suites.agent_common import hold_change, holds_at, tool_of
from alpha_matrix.core.suites.proximity.detector import DetectorConfig
from alpha_matrix.core.suites.proximity.situation import (
    FrameEstimate,
    ProximityRobotView,
    observation,
    proximity_situation,
)

STOP_TOOLS = frozenset({"robot_stop", "safe_pose"})
GO_TOOLS = frozenset({"continue_task"})
MOTION_STOP_TOOLS = frozenset({"robot_stop"})  # a sorting run: safe_pose moves the arm (the executive)


def sorting_brief(scenario: Any) -> tuple[float | None, float | None]:
    """(safe_pose_m, resume_after_s) of a run (run.ProximityScenario): the trigger distance and the
    resume time of a sorting run, (None, None) for any other."""
    if scenario.task is None:
        return None, None
    cfg = scenario.task["config"]
    limit = scenario.threshold + scenario.policy.margin
    return round(limit + float(cfg["trigger_margin"]), 6), float(cfg["resume_s"])


def decides_on(estimated_index: int, every: int) -> bool:
    """Whether the agent decides on the estimated frame of this index (0, 1, ... in the episode)."""
    return estimated_index % every == 0


@dataclass
class AgentLink:
    episode_id: str
    threshold_m: float
    every: int = 1  # decide on every n-th estimated frame
    latency: int = 24
    frame_every: int = 24
    reference_frames: int = field(default_factory=lambda: DetectorConfig().reference_frames)
    timestep: float = 1.0 / 240.0
    frames: int = 0  # frames seen this episode
    estimated: int = 0  # frames with an estimate
    decisions: int = 0
    history: list[FrameEstimate] = field(default_factory=list)
    agent_changes: list[tuple[int, bool]] = field(default_factory=list)  # (apply step, engage)
    guard_changes: list[tuple[int, bool]] = field(default_factory=list)
    holding: bool = False  # the agent's own stop is engaged (as requested)
    safe_pose_m: float | None = None  # a sorting run: safe_pose is a motion, not a stop
    resume_after_s: float | None = None

    def needs_estimate(self) -> bool:
        """Whether the next frame has an estimate to wait for (False: a calibration frame)."""
        return self.frames >= self.reference_frames

    def ack_step(self, frame_step: int) -> int:
        """After frame ``frame_step`` is handled: every step before the next frame is covered."""
        return frame_step + self.frame_every - 1

    def on_calibration_frame(self, step: int) -> int:
        self.frames += 1
        return self.ack_step(step)

    def on_estimate(self, est: FrameEstimate, guard_action: str = "none") -> Observation | None:
        """The frame's estimate (and the detector's action on it, when its guard acts): the
        observation to decide on, or None when this frame is not a decision point."""
        self.frames += 1
        self.history = [*self.history[-4:], est]
        if guard_action in ("stop", "resume"):
            self.guard_changes.append((est.step + self.latency, guard_action == "stop"))
        decide = decides_on(self.estimated, self.every)
        self.estimated += 1
        if not decide:
            return None
        stopped = holds_at(self.agent_changes, est.step) or holds_at(self.guard_changes, est.step)
        sit = proximity_situation(
            self.history,
            ProximityRobotView(stopped=stopped),
            self.threshold_m,
            timestep=self.timestep,
            frame_every=self.frame_every,
            reaction_steps=self.latency,
            safe_pose_m=self.safe_pose_m,
            resume_after_s=self.resume_after_s,
        )
        obs = observation(sit, self.episode_id, self.decisions)
        self.decisions += 1
        return obs

    def on_decision(self, decision: Decision, step: int) -> bool | None:
        """The stop request the decision on the frame of ``step`` calls for: True engage, False
        release, None nothing (a repeat of the current hold, a message, invalid, abort)."""
        stops = STOP_TOOLS if self.safe_pose_m is None else MOTION_STOP_TOOLS
        change = hold_change(self.holding, tool_of(decision), stops, GO_TOOLS)
        if change is not None:
            self.holding = change
            self.agent_changes.append((step + self.latency, change))
        return change
