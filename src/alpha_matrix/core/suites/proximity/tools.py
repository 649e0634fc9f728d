"""The proximity suite's tools: the shared stop and continue with its ``distance_m``, and ``safe_pose``.

* ``safe_pose``: stop, then move the arm to its retracted safe pose and hold it there;
  ``continue_task`` resumes the task from there.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.agent.protocol import Tool
from alpha_matrix.core.agent.tools import CONTINUE_TASK, REASON, ROBOT_STOP, with_properties
from alpha_matrix.core.agent.tools import define_tool as _tool

DISTANCE_M: dict[str, Any] = {
    "type": "number",
    "minimum": 0,
    "maximum": 50,
    "description": (
        "Optional: your estimate of the nearest person's horizontal distance from the robot base axis, "
        "in metres (scored against the true distance)."
    ),
}


# ----------------------------------------------------------------------------- proximity
SAFE_POSE = _tool(
    "safe_pose",
    "Stop the task and move the arm to its retracted safe pose, holding it there (stopped) until "
    "continue_task resumes the task.",
    {"reason": REASON},
)

PROXIMITY_TOOLS: tuple[Tool, ...] = tuple(
    with_properties(t, {"distance_m": DISTANCE_M}) for t in (ROBOT_STOP, CONTINUE_TASK, SAFE_POSE)
)
