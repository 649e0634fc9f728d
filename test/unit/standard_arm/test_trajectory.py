"""Trajectories as joint_trajectory_controller reads them: validation, joint order, interpolation."""

from __future__ import annotations

import numpy as np
import pytest

from alpha_matrix.core.standard_arm.trajectory import (
    ActiveTrajectory,
    Point,
    State,
    Trajectory,
    in_joint_order,
    validate,
)

J = tuple(f"panda_joint{i}" for i in range(1, 8))
Q0 = (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785)


def traj(*points: Point, names: tuple[str, ...] = J, start: float = 0.0) -> Trajectory:
    return Trajectory(names, tuple(points), start)


def pt(q: float, t: float, **kw) -> Point:
    return Point((q,) * 7, t, **kw)


def test_a_full_goal_validates() -> None:
    assert validate(traj(pt(0.1, 1.0)), J, now=5.0) is None


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        (traj(Point((0.1,) * 6, 1.0), names=J[:6]), "don't match"),  # a joint missing
        (traj(pt(0.1, 1.0), names=(*J[:6], "elbow")), "incoming joint elbow"),  # an unknown joint
        (traj(pt(0.1, 1.0), names=(*J[:6], J[0])), "duplicate"),
        (traj(), "empty trajectory"),
        (traj(pt(0.1, 1.0), pt(0.2, 1.0)), "not strictly increasing"),
        (traj(Point((0.1,) * 6, 1.0)), "positions"),
        (traj(pt(0.1, 1.0, velocities=(0.1,) * 7)), "not zero"),
        (traj(pt(0.1, 1.0), start=2.0), "ends in the past"),
        (traj(pt(0.1, 1.0, effort=(1.0,) * 7)), "effort"),
        (traj(pt(float("nan"), 1.0)), "non-finite"),
    ],
)
def test_what_the_controller_refuses(bad: Trajectory, why: str) -> None:
    assert why in (validate(bad, J, now=5.0) or "")


def test_partial_goals_and_end_velocities_only_when_allowed() -> None:
    partial = traj(Point((0.1, 0.2), 1.0), names=("panda_joint3", "panda_joint1"))
    assert validate(partial, J, now=0.0) is not None
    assert validate(partial, J, now=0.0, allow_partial_joints_goal=True) is None
    full = in_joint_order(partial, J, hold=Q0)
    assert full.joint_names == J
    assert full.points[0].positions == (0.2, Q0[1], 0.1, *Q0[3:])  # reordered, the rest held
    moving_end = traj(pt(0.1, 1.0, velocities=(0.1,) * 7))
    assert validate(moving_end, J, now=0.0, allow_nonzero_velocity_at_trajectory_end=True) is None


def test_single_point_is_a_straight_line_from_where_it_started() -> None:
    before = State.at_rest(Q0)
    run = ActiveTrajectory(traj(pt(0.5, 2.0)), before, time_before=10.0)
    mid = run.sample(11.0)
    assert mid.before_last_point and mid.index == 0
    assert np.allclose(mid.state.positions, (np.array(Q0) + 0.5) / 2)
    assert np.allclose(mid.state.velocities, (0.5 - np.array(Q0)) / 2.0)
    end = run.sample(12.5)
    assert not end.before_last_point and end.index == 1
    assert np.allclose(end.state.positions, 0.5) and np.allclose(end.state.velocities, 0.0)
    assert end.since_segment_start == pytest.approx(0.5)


def test_multi_point_segments_and_a_start_stamp() -> None:
    run = ActiveTrajectory(traj(pt(1.0, 1.0), pt(3.0, 2.0), start=20.0), State.at_rest([0.0] * 7), time_before=19.0)
    assert run.start == 20.0
    assert np.allclose(run.sample(19.0).state.positions, 0.0)
    assert np.allclose(run.sample(20.5).state.positions, 0.75)  # 19 -> 21: from the anchor to the first point
    s = run.sample(21.5)
    assert s.index == 1 and np.allclose(s.state.positions, 2.0) and np.allclose(s.state.velocities, 2.0)


def test_cubic_and_quintic_meet_their_points() -> None:
    v = (0.4,) * 7
    cubic = ActiveTrajectory(
        traj(pt(0.5, 1.0, velocities=v), pt(1.0, 2.0, velocities=(0.0,) * 7)), State.at_rest([0.0] * 7), 0.0
    )
    s = cubic.sample(1.0 - 1e-9)
    assert np.allclose(s.state.positions, 0.5, atol=1e-6) and np.allclose(s.state.velocities, 0.4, atol=1e-6)
    a = (0.0,) * 7
    quintic = ActiveTrajectory(
        traj(pt(0.5, 1.0, velocities=(0.0,) * 7, accelerations=a)), State.at_rest([0.0] * 7), 0.0
    )
    half = quintic.sample(0.5).state
    assert np.allclose(half.positions, 0.25)  # symmetric rest-to-rest quintic
    assert np.all(half.velocities > 0.4)  # peak speed mid-way (15/8 of the mean)
    assert np.allclose(quintic.sample(0.0).state.velocities, 0.0)
