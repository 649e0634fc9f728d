"""What a ros2_control action's end means for the command it carried, in the status's words."""

from __future__ import annotations

import pytest

from alpha_matrix.core.robot.adapter.outcomes import gripper_outcome, rejected, trajectory_outcome

FJT = "/joint_trajectory_controller/follow_joint_trajectory"
SUCCEEDED, CANCELED, ABORTED = 4, 5, 6


def test_only_a_successful_success_is_done() -> None:
    assert trajectory_outcome(FJT, SUCCEEDED, 0, "") == (True, "")
    assert not trajectory_outcome(FJT, SUCCEEDED, -5, "late")[0]


@pytest.mark.parametrize(
    ("code", "name"),
    [(-1, "INVALID_GOAL"), (-2, "INVALID_JOINTS"), (-3, "OLD_HEADER_TIMESTAMP"), (-4, "PATH_TOLERANCE_VIOLATED"),
     (-5, "GOAL_TOLERANCE_VIOLATED")],
)  # fmt: skip
def test_every_error_code_is_named_with_the_controllers_words(code, name) -> None:
    ok, why = trajectory_outcome(FJT, ABORTED, code, "joint 4 off by 0.2 rad")
    assert not ok and why == f"{FJT}: aborted, {name}: joint 4 off by 0.2 rad"


def test_a_preemption_says_so() -> None:
    # ros2_controllers' words (and the standard arm's): the old goal is aborted with INVALID_GOAL
    ok, why = trajectory_outcome(FJT, ABORTED, -1, "Current goal preempted by new incoming action.")
    assert not ok and why.startswith(f"{FJT}: preempted by another goal on the controller (INVALID_GOAL")
    ok, why = trajectory_outcome(FJT, CANCELED, -1, "Current goal cancelled due to new incoming action.")
    assert not ok and "preempted" in why


def test_a_goal_the_controller_cancelled() -> None:
    ok, why = trajectory_outcome(FJT, CANCELED, 0, "")
    assert not ok and why == f"{FJT}: cancelled by the controller, SUCCESSFUL"


def test_a_stalled_gripper_is_a_grasp() -> None:
    grip = "/gripper_controller/gripper_cmd"
    assert gripper_outcome(grip, SUCCEEDED, 0.04, False, True) == (True, "")
    assert gripper_outcome(grip, ABORTED, 0.0249, True, False) == (True, "")  # closed on a block
    ok, why = gripper_outcome(grip, ABORTED, 0.01, False, False)
    assert not ok and why == f"{grip}: aborted at finger position 0.0100 m (reached_goal False, stalled False)"
    assert rejected(grip) == f"{grip}: the controller rejected the goal"
