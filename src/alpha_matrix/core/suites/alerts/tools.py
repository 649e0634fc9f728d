"""The alerts suite's tools: the shared stop and continue, and its own.

* ``warn_user`` tells the user and changes nothing else; ``refuse_command`` refuses the
  pending command with a reason (the robot does not run it); ``resume`` lifts a stop once what
  caused it has cleared.
"""

from __future__ import annotations

from alpha_matrix.core.agent.protocol import Tool
from alpha_matrix.core.agent.tools import CONTINUE_TASK, MESSAGE, REASON, ROBOT_STOP, with_properties
from alpha_matrix.core.agent.tools import define_tool as _tool

# ----------------------------------------------------------------------------- alerts
WARN_USER = _tool(
    "warn_user",
    "Tell the user about a condition; the robot's motion is not changed.",
    {"message": MESSAGE},
    required=["message"],
)
REFUSE_COMMAND = _tool(
    "refuse_command",
    "Refuse the pending command: the robot does not run it; the reason is returned to whoever sent it.",
    {"reason": REASON},
    required=["reason"],
)
RESUME = _tool(
    "resume",
    "Lift the protective stop once what caused it has cleared; the task carries on.",
)

ALERT_TOOLS: tuple[Tool, ...] = (
    WARN_USER,
    with_properties(ROBOT_STOP, required=["reason"]),
    REFUSE_COMMAND,
    CONTINUE_TASK,
    RESUME,
)
