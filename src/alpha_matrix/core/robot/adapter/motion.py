"""A move of the driver contract as a joint trajectory for joint_trajectory_controller.

The simulated driver's motion shape, kept: a min-jerk segment of the grasp frame over the first
``move_fraction`` of the move's steps (the rest holds), a straight line, except that a move that
descends while travelling at least ``xy_first_min`` horizontally moves xy first and starts z
after ``descend_delay`` of the moving phase (a carried block clears its neighbours); the
orientation slerps to gripper-down. The path is sampled by IK every ``knot_steps`` control
cycles (warm-started knot to knot) and sent as those knots; each knot carries the velocity of
the path there (central differences, zero at the end) so the controller's spline follows the
path rather than stopping at every knot. The home move of a reset without a scene reset is a
min-jerk segment in joint space.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from alpha_matrix.core.robot.adapter.kinematics import ArmKinematics

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class MotionShape:
    """The simulated driver's motion constants (core/sim/world.py's WorldConfig, copied: the
    adapter imports nothing of the simulator)."""

    move_fraction: float = 0.8
    descend_delay: float = 0.5
    xy_first_min: float = 0.05
    knot_steps: int = 6


@dataclass(frozen=True)
class JointPath:
    """Knots of a joint trajectory: times from its start (s), arm positions and velocities."""

    times: tuple[float, ...]
    positions: tuple[tuple[float, ...], ...]
    velocities: tuple[tuple[float, ...], ...]
    residual: float = 0.0  # m between the last knot's grasp frame and the target

    @property
    def duration(self) -> float:
        return self.times[-1]


def min_jerk(s: float) -> float:
    """Min-jerk profile on [0, 1]: zero velocity and acceleration at both ends."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


def moving_steps(steps: int, shape: MotionShape) -> int:
    return max(1, min(steps, round(shape.move_fraction * steps)))


def knots(moving: int, every: int) -> list[int]:
    """Control cycles (from the start) at which the path is sampled; the last is the end."""
    out = list(range(every, moving, every))
    return [*out, moving]


def _with_velocities(times: list[float], positions: list[np.ndarray]) -> JointPath:
    t = [0.0, *times]
    q = positions
    vel = []
    for i in range(1, len(q)):
        if i == len(q) - 1:
            vel.append(np.zeros_like(q[i]))
        else:
            vel.append((q[i + 1] - q[i - 1]) / (t[i + 1] - t[i - 1]))
    return JointPath(
        tuple(times),
        tuple(tuple(float(v) for v in p) for p in q[1:]),
        tuple(tuple(float(v) for v in v_) for v_ in vel),
    )


def plan_move(
    kin: ArmKinematics,
    start: Sequence[float],
    target: Vec3,
    steps: int,
    rate: float,
    shape: MotionShape = MotionShape(),
) -> JointPath:
    """The grasp frame from where the arm is (``start``, arm joints) to ``target`` over ``steps``
    control cycles at ``rate`` Hz (its moving phase; the caller holds for the rest)."""
    q0 = np.clip(np.asarray(start, dtype=float), kin.lower, kin.upper)
    pose0 = kin.tool_pose(q0)
    p0, p1 = pose0.translation.copy(), np.array(target, dtype=float)
    r0 = pin.Quaternion(pose0.rotation)
    r1 = pin.Quaternion(kin.grasp_rotation)
    d = p1 - p0
    xy_first = d[2] < 0.0 and math.hypot(d[0], d[1]) >= shape.xy_first_min
    delay = shape.descend_delay if xy_first else 0.0
    moving = moving_steps(steps, shape)
    qs, times, q = [q0], [], q0
    for k in knots(moving, shape.knot_steps):
        s = k / moving
        sxy, sz = min_jerk(s), min_jerk((s - delay) / (1.0 - delay))
        pos = p0 + np.array([d[0] * sxy, d[1] * sxy, d[2] * sz])
        q = kin.solve(pin.SE3(r0.slerp(sxy, r1).toRotationMatrix(), pos), q)
        qs.append(q)
        times.append(k / rate)
    path = _with_velocities(times, qs)
    residual = math.dist(kin.tool_position(q), target)
    return JointPath(path.times, path.positions, path.velocities, residual)


def plan_joint_move(
    start: Sequence[float], goal: Sequence[float], steps: int, rate: float, shape: MotionShape = MotionShape()
) -> JointPath:
    """A min-jerk segment in joint space (the home move), knots as ``plan_move``'s."""
    q0, q1 = np.asarray(start, dtype=float), np.asarray(goal, dtype=float)
    moving = moving_steps(steps, shape)
    ks = knots(moving, shape.knot_steps)
    qs = [q0, *(q0 + (q1 - q0) * min_jerk(k / moving) for k in ks)]
    return _with_velocities([k / rate for k in ks], qs)
