"""A runner's side of the plan executive: one PlanRequest out on executive/request, its
PlanExecution back on executive/result (both transient-local: a late match still delivers)."""

from __future__ import annotations

import time

from alpha_matrix_interfaces.msg import PlanExecution, PlanRequest
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.ros.mailbox import Mailbox
from alpha_matrix.ros.qos import EVENTS

CONNECT_POLL_S = 0.05


class ExecutiveLink:
    def __init__(self, node: Node, timeout_s: float) -> None:
        self.node, self.timeout_s = node, timeout_s
        self.pub = node.create_publisher(PlanRequest, "executive/request", EVENTS)
        self.results: Mailbox[str, PlanExecution] = Mailbox()
        node.create_subscription(PlanExecution, "executive/result", lambda m: self.results.put(m.episode_id, m), EVENTS)

    def wait_connected(self) -> None:
        """The executive reads the requests and publishes the results (its topics are matched)."""
        deadline = time.monotonic() + self.timeout_s
        while self.pub.get_subscription_count() == 0 or self.node.count_publishers("executive/result") == 0:
            if time.monotonic() > deadline:
                raise AlphaMatrixError(f"the executive is not connected after {self.timeout_s:.0f} s; is it running?")
            time.sleep(CONNECT_POLL_S)

    def execute(self, request: PlanRequest) -> PlanExecution:
        self.pub.publish(request)
        if (result := self.results.take(request.episode_id, self.timeout_s)) is None:
            raise AlphaMatrixError(f"no result from the executive within {self.timeout_s:.0f} s")
        return result
