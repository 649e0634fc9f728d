"""How long a wait behind the agent under test may last: bounded per decision, not per wait.

A guard or link that asks the agent holds the robot (or the scenario) while it thinks, and one
command can sit behind several decisions (an alert, its clear, the command itself). So a wait
that can sit behind the agent is extended by ``agent_wait_s`` (the agent's deadline plus a
margin, set by the graph resolver) counted from the last decision the agent published: a
thinking agent never times a wait out, a silent one still does.
"""

from __future__ import annotations

import time

from alpha_matrix_interfaces.msg import AgentDecision
from rclpy.node import Node

from alpha_matrix.ros.qos import EVENTS


class AgentProgress:
    """The monotonic time of the agent's last published decision (this object's creation before any)."""

    def __init__(self, node: Node, agent_wait_s: float) -> None:
        self.agent_wait_s = float(agent_wait_s)
        self.last = time.monotonic()
        if self.agent_wait_s > 0:
            node.create_subscription(AgentDecision, "agent/decisions", self._on_decision, EVENTS)

    def _on_decision(self, _msg: AgentDecision) -> None:
        self.last = time.monotonic()

    def deadline(self, since: float, timeout_s: float) -> float:
        """When a wait begun at ``since`` with its own ``timeout_s`` gives up (monotonic clock)."""
        return max(since, self.last) + timeout_s + self.agent_wait_s
