"""JointTolerance semantics: 0 keeps the default, -1 erases it, the goal's values override."""

from __future__ import annotations

import pytest

from alpha_matrix.core.standard_arm.tolerances import (
    JointToleranceSpec,
    StateTolerance,
    default_tolerances,
    goal_tolerances,
    resolve,
    within,
)

J = tuple(f"panda_joint{i}" for i in range(1, 8))


def test_resolve() -> None:
    assert resolve(0.1, 0.0) == 0.1
    assert resolve(0.1, 0.3) == 0.3
    assert resolve(0.1, -1.0) == 0.0
    with pytest.raises(ValueError):
        resolve(0.1, -0.5)


def test_defaults_from_parameters() -> None:
    d = default_tolerances(7, stopped_velocity_tolerance=0.01)
    assert all(t == StateTolerance() for t in d.path)
    assert all(t == StateTolerance(0.0, 0.01) for t in d.goal)
    d = default_tolerances(7, trajectory=[0.2] * 7, goal=[0.05] * 7, goal_time=0.5)
    assert d.path[3].position == 0.2 and d.goal[3].position == 0.05 and d.goal_time == 0.5
    with pytest.raises(ValueError):
        default_tolerances(7, trajectory=[0.2] * 6)


def test_goal_overrides_and_fallback() -> None:
    d = default_tolerances(7, trajectory=[0.2] * 7, goal=[0.05] * 7)
    tol, warning = goal_tolerances(
        d,
        J,
        [JointToleranceSpec("panda_joint2", position=0.01)],
        [JointToleranceSpec("panda_joint7", position=-1.0)],
        2.0,
    )
    assert warning is None
    assert tol.path[1].position == 0.01 and tol.path[0].position == 0.2
    assert tol.goal[6].position == 0.0 and tol.goal[6].velocity == 0.01  # erased position, velocity kept
    assert tol.goal_time == 2.0
    tol, warning = goal_tolerances(d, J, [JointToleranceSpec("wrist", position=0.01)], [], 0.0)
    assert tol == d and "wrist" in (warning or "")


def test_within() -> None:
    assert within(0.5, 0.5, 0.5, StateTolerance())  # nothing enforced
    assert within(0.05, 0.0, 0.0, StateTolerance(position=0.1))
    assert not within(-0.2, 0.0, 0.0, StateTolerance(position=0.1))
    assert not within(0.0, 0.02, 0.0, StateTolerance(velocity=0.01))
