"""The gripper action controller's decisions (control_msgs/action/GripperCommand).

As ros2_controllers' GripperActionController (position_controllers, the Panda hand's in
MoveIt's and Franka's ros2_control configs, ``joint: panda_finger_joint1``): ``position`` is that
finger joint's position, i.e. per finger, 0 (closed) .. 0.04 m (open), half the total opening;
the other finger follows (the hand's mimic joint; here PyBullet's gear constraint).

- Every goal is accepted; a newer one preempts the active goal, which ends CANCELED (upstream).
- Within ``goal_tolerance`` of the target → SUCCEEDED, ``reached_goal`` true.
- Not moving (|velocity| <= ``stall_velocity_threshold``) for more than ``stall_timeout`` while
  outside the tolerance → ``stalled`` true, ``reached_goal`` false: SUCCEEDED with
  ``allow_stalling``, else ABORTED. Closing on a block is this case: the fingers stop on it.
- Cancel → CANCELED, the fingers hold where they are.
- ``max_effort`` is the force limit per finger, N (the Panda hand's continuous grasp force is
  70 N); 0 means the default force (upstream's position controller ignores it altogether).
  The result's ``effort`` is the finger's measured motor force, N.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass


@dataclass(frozen=True)
class GripperSettings:
    max_position: float = 0.04  # m per finger
    default_effort: float = 20.0  # N per finger, used for max_effort 0 and to hold after a cancel
    goal_tolerance: float = 0.01  # m (upstream default)
    stall_velocity_threshold: float = 0.001  # m/s (upstream default)
    stall_timeout: float = 1.0  # s (upstream default)
    allow_stalling: bool = False  # upstream default


@dataclass(frozen=True)
class GripperEnd:
    """A gripper goal that ended, with the action's result fields."""

    goal_id: Hashable
    status: str  # succeeded | aborted | canceled
    position: float = 0.0
    effort: float = 0.0
    stalled: bool = False
    reached_goal: bool = False


@dataclass(frozen=True)
class FingerCommand:
    position: float  # per finger, m
    force: float  # per finger, N


class GripperController:
    def __init__(self, settings: GripperSettings, initial: float) -> None:
        self.settings = settings
        self.command = FingerCommand(min(max(initial, 0.0), settings.max_position), settings.default_effort)
        self.active_goal: Hashable | None = None
        self._last_movement = 0.0

    def accept_goal(self, goal_id: Hashable, position: float, max_effort: float, now: float) -> list[GripperEnd]:
        """Start ``goal_id``: target clamped to the finger's range; the active goal is preempted (CANCELED)."""
        s = self.settings
        if not math.isfinite(position):
            position = self.command.position
        force = max_effort if math.isfinite(max_effort) and max_effort > 0.0 else s.default_effort
        ended = self._end("canceled")
        self.command = FingerCommand(min(max(position, 0.0), s.max_position), force)
        self.active_goal = goal_id
        self._last_movement = now
        return ended

    def cancel(self, goal_id: Hashable, position: float) -> list[GripperEnd]:
        """Cancel ``goal_id`` if it is the active goal: CANCELED, the fingers hold ``position``."""
        if goal_id != self.active_goal:
            return []
        self.command = FingerCommand(min(max(position, 0.0), self.settings.max_position), self.settings.default_effort)
        return self._end("canceled")

    def reset(self, position: float) -> list[GripperEnd]:
        """The hand was reset (simulation): command ``position`` at the default force; an active goal is aborted."""
        self.command = FingerCommand(position, self.settings.default_effort)
        return self._end("aborted")

    def update(self, now: float, position: float, velocity: float, effort: float) -> list[GripperEnd]:
        """One control cycle with the finger's measured state: the goal that ended, if one did."""
        if self.active_goal is None:
            return []
        s = self.settings
        if abs(self.command.position - position) < s.goal_tolerance:
            return self._end("succeeded", position, effort, stalled=False, reached=True)
        if abs(velocity) > s.stall_velocity_threshold:
            self._last_movement = now
        elif now - self._last_movement > s.stall_timeout:
            status = "succeeded" if s.allow_stalling else "aborted"
            return self._end(status, position, effort, stalled=True, reached=False)
        return []

    def _end(
        self, status: str, position: float = 0.0, effort: float = 0.0, stalled: bool = False, reached: bool = False
    ) -> list[GripperEnd]:
        if self.active_goal is None:
            return []
        ended = [GripperEnd(self.active_goal, status, position, abs(effort), stalled, reached)]
        self.active_goal = None
        return ended
