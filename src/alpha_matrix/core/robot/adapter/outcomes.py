"""What a ros2_control action's end means for the command it carried: done, or failed and why.

The codes are control_msgs' and action_msgs' (copied: the core imports no ROS). A trajectory
goal is done only when it SUCCEEDED with SUCCESSFUL; every other end is a failure whose reason
names the code and the controller's own words, so a command's CANCELLED status says what the
arm did (a path tolerance violated, a goal preempted by another client, ...). A gripper goal
that stalled is a grasp: the fingers stopped on an object, which is what closing on a block
looks like to the gripper action controller (ABORTED unless its ``allow_stalling`` is set).
"""

from __future__ import annotations

# control_msgs/action/FollowJointTrajectory Result.error_code
SUCCESSFUL = 0
TRAJECTORY_ERRORS = {
    -1: "INVALID_GOAL",
    -2: "INVALID_JOINTS",
    -3: "OLD_HEADER_TIMESTAMP",
    -4: "PATH_TOLERANCE_VIOLATED",
    -5: "GOAL_TOLERANCE_VIOLATED",
}
# action_msgs/msg/GoalStatus
STATUS = {0: "UNKNOWN", 1: "ACCEPTED", 2: "EXECUTING", 3: "CANCELING", 4: "SUCCEEDED", 5: "CANCELED", 6: "ABORTED"}
SUCCEEDED, CANCELED, ABORTED = 4, 5, 6


def trajectory_outcome(action: str, status: int, error_code: int, error_string: str) -> tuple[bool, str]:
    """(done, why not) of a FollowJointTrajectory goal's result."""
    if status == SUCCEEDED and error_code == SUCCESSFUL:
        return True, ""
    code = TRAJECTORY_ERRORS.get(error_code, "SUCCESSFUL" if error_code == SUCCESSFUL else f"error {error_code}")
    said = f": {error_string}" if error_string else ""
    if "preempt" in error_string.lower() or (status == CANCELED and "new" in error_string.lower()):
        return False, f"{action}: preempted by another goal on the controller ({code}{said})"
    how = {CANCELED: "cancelled by the controller", ABORTED: "aborted"}.get(status, STATUS.get(status, str(status)))
    return False, f"{action}: {how}, {code}{said}"


def gripper_outcome(action: str, status: int, position: float, stalled: bool, reached_goal: bool) -> tuple[bool, str]:
    """(done, why not) of a GripperCommand goal's result."""
    if status == SUCCEEDED or (status == ABORTED and stalled):
        return True, ""
    how = {CANCELED: "cancelled by the controller", ABORTED: "aborted"}.get(status, STATUS.get(status, str(status)))
    return (
        False,
        f"{action}: {how} at finger position {position:.4f} m (reached_goal {reached_goal}, stalled {stalled})",
    )


def rejected(action: str) -> str:
    return f"{action}: the controller rejected the goal"
