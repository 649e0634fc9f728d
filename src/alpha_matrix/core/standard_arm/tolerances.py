"""joint_trajectory_controller's tolerances: the defaults from parameters, a goal's overrides.

As upstream (ros2_controllers' tolerances.hpp): a tolerance of 0 is not enforced; in a goal's
``JointTolerance`` 0 keeps the default and -1 erases it (no check); any other negative value makes
the goal fall back to the defaults altogether (upstream logs it and carries on, so do we).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

ERASE = -1.0


@dataclass(frozen=True)
class StateTolerance:
    """Per joint; 0 = not checked."""

    position: float = 0.0
    velocity: float = 0.0
    acceleration: float = 0.0


@dataclass(frozen=True)
class SegmentTolerances:
    """``path`` while the trajectory runs, ``goal`` from its last point on, ``goal_time`` the time
    after the last point allowed to get within ``goal`` (0 = no limit: wait as long as it takes)."""

    path: tuple[StateTolerance, ...]
    goal: tuple[StateTolerance, ...]
    goal_time: float = 0.0


@dataclass(frozen=True)
class JointToleranceSpec:
    """One ``control_msgs/JointTolerance`` of a goal."""

    name: str
    position: float = 0.0
    velocity: float = 0.0
    acceleration: float = 0.0


def default_tolerances(
    n_joints: int,
    trajectory: Sequence[float] = (),
    goal: Sequence[float] = (),
    stopped_velocity_tolerance: float = 0.01,
    goal_time: float = 0.0,
) -> SegmentTolerances:
    """From the parameters (``constraints.<joint>.trajectory`` / ``.goal`` upstream: empty = 0 for
    every joint); ``stopped_velocity_tolerance`` is the goal's velocity tolerance of every joint."""
    for name, values in (("trajectory", trajectory), ("goal", goal)):
        if len(values) not in (0, n_joints):
            raise ValueError(f"{name} tolerances: {len(values)} values for {n_joints} joints (give all or none)")
        if any(not math.isfinite(v) or v < 0.0 for v in values):
            raise ValueError(f"{name} tolerances must be finite and >= 0 (0 = not enforced)")
    path = tuple(StateTolerance(position=v) for v in (trajectory or [0.0] * n_joints))
    at_goal = tuple(StateTolerance(position=v, velocity=stopped_velocity_tolerance) for v in (goal or [0.0] * n_joints))
    return SegmentTolerances(path, at_goal, goal_time)


def resolve(default: float, value: float) -> float:
    """A goal's tolerance value against the default: > 0 replaces it, 0 keeps it, -1 erases it."""
    if value > 0.0:
        return value
    if abs(value - ERASE) < 1.2e-7:  # float epsilon, as upstream
        return 0.0
    if value < 0.0 or not math.isfinite(value):
        raise ValueError(f"illegal tolerance {value}")
    return default


def _override(
    base: tuple[StateTolerance, ...], joints: Sequence[str], specs: Sequence[JointToleranceSpec], what: str
) -> tuple[StateTolerance, ...]:
    out = list(base)
    for s in specs:
        if s.name not in joints:
            raise ValueError(f"joint {s.name!r} in goal.{what} is not a joint of this controller")
        i = joints.index(s.name)
        d = base[i]
        try:
            out[i] = StateTolerance(
                resolve(d.position, s.position),
                resolve(d.velocity, s.velocity),
                resolve(d.acceleration, s.acceleration),
            )
        except ValueError as err:
            raise ValueError(f"joint {s.name!r} in goal.{what}: {err}") from None
    return tuple(out)


def goal_tolerances(
    defaults: SegmentTolerances,
    joints: Sequence[str],
    path: Sequence[JointToleranceSpec],
    goal: Sequence[JointToleranceSpec],
    goal_time_tolerance: float,
) -> tuple[SegmentTolerances, str | None]:
    """The active tolerances of a goal, and why the defaults were used instead (None if they were not)."""
    try:
        gt = resolve(defaults.goal_time, goal_time_tolerance)
        return SegmentTolerances(
            _override(defaults.path, joints, path, "path_tolerance"),
            _override(defaults.goal, joints, goal, "goal_tolerance"),
            gt,
        ), None
    except ValueError as err:
        return defaults, f"{err}; using the default tolerances"


def within(error_position: float, error_velocity: float, error_acceleration: float, tol: StateTolerance) -> bool:
    """Upstream's check_state_tolerance_per_joint: every enforced (> 0) tolerance holds."""
    return not (
        (tol.position > 0.0 and abs(error_position) > tol.position)
        or (tol.velocity > 0.0 and abs(error_velocity) > tol.velocity)
        or (tol.acceleration > 0.0 and abs(error_acceleration) > tol.acceleration)
    )
