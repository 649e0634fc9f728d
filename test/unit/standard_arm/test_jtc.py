"""joint_trajectory_controller semantics on a plant without physics: success, tolerances,
preemption, cancel, the topic's stop, reset."""

from __future__ import annotations

import numpy as np

from alpha_matrix.core.standard_arm.jtc import (
    GOAL_TOLERANCE_VIOLATED,
    INVALID_GOAL,
    PATH_TOLERANCE_VIOLATED,
    PREEMPTED,
    SUCCESSFUL,
    GoalEnd,
    TrajectoryController,
)
from alpha_matrix.core.standard_arm.tolerances import StateTolerance, default_tolerances
from alpha_matrix.core.standard_arm.trajectory import Point, State, Trajectory

J = tuple(f"panda_joint{i}" for i in range(1, 8))
DT = 1 / 240


class Plant:
    """Follows the command exactly one cycle late, unless ``stuck`` (an obstacle)."""

    def __init__(self, q: float = 0.0) -> None:
        self.q = np.full(7, q)
        self.v = np.zeros(7)
        self.t = 0.0
        self.stuck = False

    def state(self) -> State:
        return State(self.q.copy(), self.v.copy(), np.zeros(7))

    def run(self, ctl: TrajectoryController, seconds: float) -> list[GoalEnd]:
        ended: list[GoalEnd] = []
        for _ in range(round(seconds / DT)):
            u = ctl.update(self.t, self.state(), DT)
            ended += u.ended
            if not self.stuck:
                self.v = (u.positions - self.q) / DT
                self.q = u.positions.copy()
            else:
                self.v = np.zeros(7)
            self.t += DT
        return ended


def goal(q: float, t: float = 1.0) -> Trajectory:
    return Trajectory(J, (Point((q,) * 7, t),))


def controller(**tol) -> TrajectoryController:
    return TrajectoryController(J, [0.0] * 7, default_tolerances(7, **tol))


def test_reaches_the_goal_then_holds_the_last_point() -> None:
    ctl, plant = controller(), Plant()
    assert ctl.accept_goal("a", goal(0.4), ctl.defaults, plant.state()) == []
    ended = plant.run(ctl, 1.2)
    assert ended == [GoalEnd("a", "succeeded", SUCCESSFUL, "Goal successfully reached!")]
    assert np.allclose(plant.q, 0.4) and ctl.holding and ctl.active_goal is None
    plant.run(ctl, 0.5)
    assert np.allclose(plant.q, 0.4)


def test_success_waits_for_the_goal_tolerance() -> None:
    ctl, plant = controller(goal=[0.01] * 7), Plant()
    ctl.accept_goal("a", goal(0.4), ctl.defaults, plant.state())
    plant.run(ctl, 0.5)
    plant.stuck = True  # short of the goal: with goal_time 0 the goal waits as long as it takes
    assert plant.run(ctl, 3.0) == []
    plant.stuck = False
    assert [e.status for e in plant.run(ctl, 0.1)] == ["succeeded"]


def test_goal_time_exceeded_aborts_and_holds_where_it_is() -> None:
    ctl, plant = controller(goal=[0.01] * 7, goal_time=0.5), Plant()
    ctl.accept_goal("a", goal(0.4), ctl.defaults, plant.state())
    plant.run(ctl, 0.5)
    plant.stuck = True
    ended = plant.run(ctl, 1.2)
    assert [(e.status, e.error_code) for e in ended] == [("aborted", GOAL_TOLERANCE_VIOLATED)]
    held = plant.q.copy()
    plant.stuck = False
    plant.run(ctl, 0.5)
    assert np.allclose(plant.q, held)


def test_path_tolerance_violation_aborts_and_holds_current_position() -> None:
    ctl, plant = controller(), Plant()
    tol = ctl.defaults.__class__(tuple(StateTolerance(position=0.05) for _ in J), ctl.defaults.goal, 0.0)
    ctl.accept_goal("a", goal(1.0, 2.0), tol, plant.state())
    plant.run(ctl, 0.5)
    plant.stuck = True  # a collision: the arm stops, the trajectory goes on
    ended = plant.run(ctl, 0.5)
    assert [(e.goal_id, e.status, e.error_code) for e in ended] == [("a", "aborted", PATH_TOLERANCE_VIOLATED)]
    held = plant.q.copy()
    plant.stuck = False
    plant.run(ctl, 1.0)
    assert np.allclose(plant.q, held)  # held, not resumed


def test_a_newer_goal_preempts_the_active_one() -> None:
    ctl, plant = controller(), Plant()
    ctl.accept_goal("a", goal(0.4, 2.0), ctl.defaults, plant.state())
    plant.run(ctl, 0.5)
    ended = ctl.accept_goal("b", goal(-0.2), ctl.defaults, plant.state())
    assert ended == [GoalEnd("a", "aborted", INVALID_GOAL, PREEMPTED)]
    assert [e.goal_id for e in plant.run(ctl, 1.2)] == ["b"]
    assert np.allclose(plant.q, -0.2)


def test_cancel_holds_position() -> None:
    ctl, plant = controller(), Plant()
    ctl.accept_goal("a", goal(1.0, 2.0), ctl.defaults, plant.state())
    plant.run(ctl, 1.0)
    assert ctl.cancel("other", plant.state()) == []
    assert ctl.cancel("a", plant.state()) == [GoalEnd("a", "canceled")]
    held = plant.q.copy()
    assert 0.3 < held[0] < 0.7
    plant.run(ctl, 1.5)
    assert np.allclose(plant.q, held, atol=1e-3)


def test_an_empty_topic_trajectory_stops_without_ending_the_goal() -> None:
    ctl, plant = controller(), Plant()
    ctl.accept_goal("a", goal(1.0, 2.0), ctl.defaults, plant.state())
    plant.run(ctl, 1.0)
    ctl.topic_trajectory(Trajectory(J, ()), plant.state())
    held = plant.q.copy()
    assert plant.run(ctl, 2.0) == [] and ctl.active_goal == "a"  # the goal stays, to be cancelled
    assert np.allclose(plant.q, held, atol=1e-3)
    assert ctl.cancel("a", plant.state())[0].status == "canceled"


def test_a_topic_trajectory_replaces_the_running_one() -> None:
    ctl, plant = controller(), Plant()
    ctl.topic_trajectory(goal(0.3), plant.state())
    plant.run(ctl, 1.2)
    assert np.allclose(plant.q, 0.3)
    ctl.accept_goal("a", goal(1.0, 2.0), ctl.defaults, plant.state())
    plant.run(ctl, 0.5)
    ctl.topic_trajectory(goal(0.0, 0.5), plant.state())  # fire-and-forget: the goal is judged on it
    assert [e.goal_id for e in plant.run(ctl, 1.0)] == ["a"]
    assert np.allclose(plant.q, 0.0)


def test_reset_aborts_and_holds_the_new_pose() -> None:
    ctl, plant = controller(), Plant()
    ctl.accept_goal("a", goal(1.0, 2.0), ctl.defaults, plant.state())
    plant.run(ctl, 0.5)
    ended = ctl.reset([0.2] * 7, "sim/reset")
    assert [(e.status, e.error_code, e.error_string) for e in ended] == [("aborted", INVALID_GOAL, "sim/reset")]
    plant.q = np.full(7, 0.2)
    plant.run(ctl, 0.5)
    assert np.allclose(plant.q, 0.2)


def test_feedback_carries_desired_actual_error() -> None:
    ctl, plant = controller(), Plant()
    ctl.accept_goal("a", goal(0.4), ctl.defaults, plant.state())
    u = ctl.update(0.0, plant.state(), DT)
    u = ctl.update(0.5, plant.state(), DT)
    fb = u.feedback
    assert fb is not None and fb.index == 0
    assert np.allclose(fb.desired.positions, 0.2) and np.allclose(fb.error.positions, 0.2)
    assert np.allclose(u.positions, 0.2 + 0.4 * DT)  # the command is sampled one period ahead
