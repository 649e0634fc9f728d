"""The proximity suite's reference decision: the scripted stop policy, with per-episode memory.

As core/agent/reference.py says of every suite's: from the observation alone, never the
scenario's truth, and as a native tool call judged like any model's.

* proximity: ``StopPolicy`` (core/suites/proximity/policy.py) fed the detector's estimates of
  the window, threshold from the brief; margin, hold time and mode are the reference's own
  policy (``PolicyConfig``, defaults = config/scenarios/proximity.yaml's). ``robot_stop`` while
  the policy wants the robot stopped, ``continue_task`` otherwise; ``distance_m`` = the current
  estimate. In a sorting run (the brief's ``safe_pose_m``): ``safe_pose`` while a person is seen
  within it (outside the stop limit) and until nobody has been within it for ``resume_after_s``,
  ``robot_stop`` while the policy wants the robot stopped, ``continue_task`` otherwise.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from alpha_matrix.core.agent.protocol import RawToolCall
from alpha_matrix.core.agent.reference import EpisodicReference
from alpha_matrix.core.agent.reference import call as _call
from alpha_matrix.core.suites.proximity.policy import PolicyConfig, StopPolicy
from alpha_matrix.core.suites.proximity.situation import ProximitySituation


# ----------------------------------------------------------------------------- proximity
class _Proximity:
    def __init__(
        self, config: PolicyConfig, threshold: float, safe_pose_m: float | None = None, resume_s: float | None = None
    ) -> None:
        self.policy = StopPolicy(replace(config, threshold=threshold))
        self.last_step = -1
        self.safe_pose_m, self.resume_s = safe_pose_m, resume_s or 0.0
        self.last_near: int | None = None

    def decide(self, sit: ProximitySituation) -> RawToolCall:
        limit = self.policy.limit()[0]
        for e in sit.estimates:  # frames not fed yet (normally only the current one)
            if e.step > self.last_step:
                d = e.distance_m if e.detected and e.distance_m is not None else math.inf
                limit = self.policy.update(e.step, e.detected, d).limit
                self.last_step = e.step
                if self.safe_pose_m is not None and d < self.safe_pose_m:
                    self.last_near = e.step
        now = sit.estimates[-1]
        extra = {"distance_m": now.distance_m} if now.detected and now.distance_m is not None else {}
        if self.safe_pose_m is not None and not self.policy.stop_requested and self.last_near is not None:
            dt = self.policy.config.timestep
            if (sit.step - self.last_near) * dt < self.resume_s - 1e-9:
                why = f"a person within {self.safe_pose_m:.2f} m in the last {self.resume_s:g} s"
                return _call("safe_pose", reason=why, **extra)
        if not self.policy.stop_requested:
            return _call("continue_task", **extra)
        seen = f"nearest person at {now.distance_m:.2f} m" if now.distance_m is not None else "nobody seen"
        why = f"{seen}; stop limit {limit:.2f} m (held until clear for {self.policy.config.hold_time_s:g} s)"
        return _call("robot_stop", reason=why, **extra)


class ProximityReference(EpisodicReference):
    """``proximity``: the reference's own policy (default: PolicyConfig's); the threshold is the brief's."""

    def __init__(self, proximity: PolicyConfig | None = None) -> None:
        self._proximity = proximity or PolicyConfig()

    def start(self, situation: Any) -> _Proximity:
        b = situation.brief
        return _Proximity(self._proximity, b.threshold_m, b.safe_pose_m, b.resume_after_s)
