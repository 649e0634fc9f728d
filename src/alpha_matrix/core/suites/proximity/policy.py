"""Stop/resume policy on distance estimates: a pure state machine, estimate in, decision out.

Two modes. ``fixed``: request a stop while the estimated distance is below the threshold
(1, 2 or 3 m) plus a margin for estimation error; request resume once the estimate has been
clear for ``hold_time_s``. ``ssm`` (speed and separation monitoring, ISO/TS 15066): the
limit is the protective separation distance

    S_p = S_h + S_r + S_s + C + Z_d + Z_r,   S_h = v_h (T_r + T_s),   S_r = v_r T_r

with v_h = 1.6 m/s (ISO 13855) unless ``measure_speed`` is set, in which case it is the
approach speed measured from successive estimates (never below ``min_human_speed``).

A decision carries the step it was made on; the caller applies it at step + reaction latency,
which is what keeps asynchronous stops deterministic (the driver contract's bounded lookahead).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

Mode = Literal["fixed", "ssm"]
Action = Literal["none", "stop", "resume"]


@dataclass(frozen=True)
class SsmParams:
    """ISO/TS 15066 protective-separation terms (defaults: a slow collaborative arm)."""

    human_speed: float = 1.6  # v_h, m/s (ISO 13855)
    measure_speed: bool = False
    min_human_speed: float = 0.0  # floor for a measured v_h, m/s
    speed_window: int = 3  # frames averaged for a measured v_h
    reaction_time: float = 0.2  # T_r, s: frame period + reaction latency
    stopping_time: float = 0.3  # T_s, s
    robot_speed: float = 0.5  # v_r, m/s, when the caller gives none
    stopping_distance: float = 0.1  # S_s, m
    intrusion: float = 0.2  # C, m (reach of a hand/arm)
    sensor_uncertainty: float = 0.1  # Z_d, m
    robot_uncertainty: float = 0.02  # Z_r, m


def protective_distance(v_h: float, v_r: float, s: SsmParams) -> float:
    """S_p (m) for human speed ``v_h`` and robot speed ``v_r``."""
    s_h = v_h * (s.reaction_time + s.stopping_time)
    s_r = v_r * s.reaction_time
    return s_h + s_r + s.stopping_distance + s.intrusion + s.sensor_uncertainty + s.robot_uncertainty


@dataclass(frozen=True)
class PolicyConfig:
    mode: Mode = "fixed"
    threshold: float = 2.0  # m, fixed mode
    margin: float = 0.25  # m added to the threshold: unseen feet + one 10 Hz frame gap (fixed mode)
    hold_time_s: float = 1.0  # clear this long before resuming
    timestep: float = 1.0 / 240.0
    ssm: SsmParams = field(default_factory=SsmParams)


@dataclass(frozen=True)
class Decision:
    step: int
    action: Action
    stop_requested: bool  # the policy's state after this frame
    limit: float  # distance below which it stops (threshold + margin, or S_p)
    human_speed: float  # v_h used (ssm) or 0.0


class StopPolicy:
    """Stop when the estimate is inside the limit; resume after ``hold_time_s`` clear."""

    def __init__(self, config: PolicyConfig | None = None) -> None:
        self.config = config or PolicyConfig()
        self.stop_requested = False
        self._clear_since: int | None = None
        self._history: list[tuple[int, float]] = []

    def limit(self, robot_speed: float | None = None) -> tuple[float, float]:
        """(limit m, v_h m/s) for the current state."""
        cfg = self.config
        if cfg.mode == "fixed":
            return cfg.threshold + cfg.margin, 0.0
        s = cfg.ssm
        v_h = self._measured_speed() if s.measure_speed else s.human_speed
        v_r = s.robot_speed if robot_speed is None else robot_speed
        return protective_distance(v_h, v_r, s), v_h

    def _measured_speed(self) -> float:
        s = self.config.ssm
        pts = [(k, d) for k, d in self._history if math.isfinite(d)][-(s.speed_window + 1) :]
        if len(pts) < 2 or pts[-1][0] == pts[0][0]:
            return s.human_speed  # nothing measured yet: the standard's value
        dt = (pts[-1][0] - pts[0][0]) * self.config.timestep
        return max(s.min_human_speed, (pts[0][1] - pts[-1][1]) / dt)

    def update(self, step: int, detected: bool, distance: float, robot_speed: float | None = None) -> Decision:
        """One frame: the estimate at ``step`` -> a decision (stop, resume or nothing)."""
        d = distance if detected else math.inf
        self._history = [*self._history[-16:], (step, d)]
        limit, v_h = self.limit(robot_speed)
        action: Action = "none"
        if d < limit:
            self._clear_since = None
            if not self.stop_requested:
                self.stop_requested, action = True, "stop"
        elif self.stop_requested:
            if self._clear_since is None:
                self._clear_since = step
            if (step - self._clear_since) * self.config.timestep >= self.config.hold_time_s - 1e-9:
                self.stop_requested, action, self._clear_since = False, "resume", None
        return Decision(step, action, self.stop_requested, limit, v_h)
