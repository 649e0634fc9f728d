"""Joint trajectories as joint_trajectory_controller reads them: validation, joint order, sampling.

Follows ros2_controllers' joint_trajectory_controller (validate_trajectory_msg, trajectory.cpp's
sample and its "splines" interpolation): a point with positions only is reached by a straight
line in joint space, one with velocities by a cubic, one with accelerations too by a quintic.
The segment before the first point starts from the state the controller was in when it first
sampled the trajectory (its last command, or the measured state), at that time. Times are
seconds on the arm's clock; a header stamp of 0 means "start now".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

FLOAT_EPS = 1.1920929e-07  # std::numeric_limits<float>::epsilon(), upstream's "zero" velocity


@dataclass(frozen=True)
class Point:
    """One ``trajectory_msgs/JointTrajectoryPoint``; empty velocities/accelerations = not given."""

    positions: tuple[float, ...]
    time_from_start: float
    velocities: tuple[float, ...] = ()
    accelerations: tuple[float, ...] = ()
    effort: tuple[float, ...] = ()


@dataclass(frozen=True)
class Trajectory:
    """One ``trajectory_msgs/JointTrajectory``; ``start`` is its header stamp in seconds (0 = now)."""

    joint_names: tuple[str, ...]
    points: tuple[Point, ...]
    start: float = 0.0


@dataclass(frozen=True)
class State:
    """A sampled or measured joint state, in the controller's joint order."""

    positions: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray

    @staticmethod
    def at_rest(positions: Sequence[float] | np.ndarray) -> State:
        q = np.asarray(positions, dtype=float).copy()
        return State(q, np.zeros_like(q), np.zeros_like(q))


def validate(
    traj: Trajectory,
    joints: Sequence[str],
    now: float,
    allow_partial_joints_goal: bool = False,
    allow_nonzero_velocity_at_trajectory_end: bool = False,
) -> str | None:
    """Why the controller refuses ``traj`` (upstream's validate_trajectory_msg), or None if it takes it.

    Upstream rejects an action goal that fails here at goal time (GoalResponse::REJECT, so no
    result and no error code reaches the client) and drops such a topic message with a log line.
    """
    names = traj.joint_names
    if not allow_partial_joints_goal and len(names) != len(joints):
        return f"joints on incoming trajectory ({len(names)}) don't match the controller's {len(joints)} joints"
    if not names:
        return "empty joint names on incoming trajectory"
    if not traj.points:
        return "empty trajectory received"
    if len(set(names)) != len(names):
        return "duplicate joint names on incoming trajectory"
    for n in names:
        if n not in joints:
            return f"incoming joint {n} doesn't match the controller's joints"
    last = traj.points[-1]
    if not allow_nonzero_velocity_at_trajectory_end:
        for n, v in zip(names, last.velocities, strict=False):
            if abs(v) > FLOAT_EPS:
                return f"velocity of last trajectory point of joint {n} is not zero: {v:.15f}"
    if traj.start != 0.0 and traj.start + last.time_from_start < now:
        return f"trajectory with non-zero start time ({traj.start:f}) that ends in the past"
    previous = 0.0
    for i, pt in enumerate(traj.points):
        if i > 0 and pt.time_from_start <= previous:
            return (
                f"time between points {i - 1} and {i} is not strictly increasing, "
                f"it is {previous:f} and {pt.time_from_start:f} respectively"
            )
        previous = pt.time_from_start
        if len(pt.positions) != len(names):
            return f"mismatch between joint_names size ({len(names)}) and positions ({len(pt.positions)}) at point #{i}"
        for field, values in (("velocities", pt.velocities), ("accelerations", pt.accelerations)):
            if values and len(values) != len(names):
                return f"mismatch between joint_names size ({len(names)}) and {field} ({len(values)}) at point #{i}"
        if pt.effort:
            return "trajectories with effort fields are only supported for controllers using the 'effort' command interface"
        if not all(math.isfinite(v) for v in (*pt.positions, *pt.velocities, *pt.accelerations)):
            return f"non-finite value at point #{i}"
    return None


def in_joint_order(traj: Trajectory, joints: Sequence[str], hold: Sequence[float] | np.ndarray) -> Trajectory:
    """``traj`` with every controller joint in the controller's order; a joint the trajectory
    leaves out (a partial goal) holds ``hold`` (upstream: the current position) at rest."""
    index = {n: i for i, n in enumerate(traj.joint_names)}
    cols = [index.get(j) for j in joints]

    def pick(values: tuple[float, ...], fill: Sequence[float] | np.ndarray) -> tuple[float, ...]:
        return tuple(float(values[c]) if c is not None else float(fill[k]) for k, c in enumerate(cols))

    zeros = [0.0] * len(joints)
    points = tuple(
        Point(
            pick(pt.positions, hold),
            pt.time_from_start,
            pick(pt.velocities, zeros) if pt.velocities else (),
            pick(pt.accelerations, zeros) if pt.accelerations else (),
        )
        for pt in traj.points
    )
    return Trajectory(tuple(joints), points, traj.start)


def interpolate(t0: float, a: State, t1: float, b: Point, t: float, with_vel: bool, with_acc: bool) -> State:
    """State at ``t`` on the segment from ``a`` at ``t0`` to point ``b`` at ``t1``: linear, cubic
    (both velocities given) or quintic (accelerations too), as upstream's spline interpolation."""
    qb = np.asarray(b.positions, dtype=float)
    duration = t1 - t0
    if duration <= 0.0 or t >= t1:
        vb = np.asarray(b.velocities, dtype=float) if with_vel else np.zeros_like(qb)
        ab = np.asarray(b.accelerations, dtype=float) if with_acc else np.zeros_like(qb)
        return State(qb.copy(), vb, ab)
    s = max(0.0, t - t0)
    qa = a.positions
    if not with_vel:  # linear: constant velocity over the segment
        v = (qb - qa) / duration
        return State(qa + v * s, v, np.zeros_like(qa))
    vb = np.asarray(b.velocities, dtype=float)
    va = a.velocities
    T = duration
    if not with_acc:  # cubic Hermite
        c2 = (3.0 * (qb - qa) - (2.0 * va + vb) * T) / T**2
        c3 = (-2.0 * (qb - qa) + (va + vb) * T) / T**3
        return State(qa + va * s + c2 * s**2 + c3 * s**3, va + 2 * c2 * s + 3 * c3 * s**2, 2 * c2 + 6 * c3 * s)
    ab = np.asarray(b.accelerations, dtype=float)
    aa = a.accelerations
    h = qb - qa
    c3 = (20 * h - (8 * vb + 12 * va) * T - (3 * aa - ab) * T**2) / (2 * T**3)
    c4 = (-30 * h + (14 * vb + 16 * va) * T + (3 * aa - 2 * ab) * T**2) / (2 * T**4)
    c5 = (12 * h - 6 * (vb + va) * T - (aa - ab) * T**2) / (2 * T**5)
    pos = qa + va * s + aa / 2 * s**2 + c3 * s**3 + c4 * s**4 + c5 * s**5
    vel = va + aa * s + 3 * c3 * s**2 + 4 * c4 * s**3 + 5 * c5 * s**4
    acc = aa + 6 * c3 * s + 12 * c4 * s**2 + 20 * c5 * s**3
    return State(pos, vel, acc)


@dataclass(frozen=True)
class Sample:
    """The desired state at a time; ``index`` is the next point's index (len(points) once past the
    last: upstream's feedback index), ``before_last_point`` False from the last point's time on."""

    state: State
    index: int
    before_last_point: bool
    since_segment_start: float  # seconds since the current segment's start point's time


class ActiveTrajectory:
    """A trajectory (in the controller's joint order) being executed, anchored when first sampled."""

    def __init__(self, traj: Trajectory, before: State, time_before: float) -> None:
        self.traj = traj
        self.before, self.time_before = before, time_before
        self.start = traj.start if traj.start != 0.0 else time_before
        pts = traj.points
        self.with_vel = all(p.velocities for p in pts)
        self.with_acc = self.with_vel and all(p.accelerations for p in pts)

    def point_time(self, i: int) -> float:
        return self.start + self.traj.points[i].time_from_start

    @property
    def end_time(self) -> float:
        return self.point_time(len(self.traj.points) - 1)

    def sample(self, t: float) -> Sample:
        pts = self.traj.points
        n = len(pts)
        if t < self.time_before:  # before the anchor (a sample in the past): the state it started from
            return Sample(self.before, 0, True, t - self.time_before)
        first = self.point_time(0)
        if t < first:
            s = interpolate(self.time_before, self.before, first, pts[0], t, self.with_vel, self.with_acc)
            return Sample(s, 0, True, t - self.time_before)
        for i in range(n - 1):
            t0, t1 = self.point_time(i), self.point_time(i + 1)
            if t < t1:
                a = State(
                    np.asarray(pts[i].positions, dtype=float),
                    np.asarray(pts[i].velocities, dtype=float) if self.with_vel else np.zeros(len(pts[i].positions)),
                    np.asarray(pts[i].accelerations, dtype=float) if self.with_acc else np.zeros(len(pts[i].positions)),
                )
                return Sample(interpolate(t0, a, t1, pts[i + 1], t, self.with_vel, self.with_acc), i + 1, True, t - t0)
        last = pts[-1]
        q = np.asarray(last.positions, dtype=float)
        v = np.asarray(last.velocities, dtype=float) if self.with_vel else np.zeros_like(q)
        acc = np.asarray(last.accelerations, dtype=float) if self.with_acc else np.zeros_like(q)
        return Sample(State(q, v, acc), n, False, t - self.end_time)
