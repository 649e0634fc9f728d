"""What the suites' executives share: their requests in order, one result each.

Each suite's executive (skill_executive, alert_executive, proximity_executive) takes the
SuiteRequests of its own suite from suite/request, runs each in the main thread (blocking robot
calls allowed while the executor spins behind) and publishes one SuiteResult, which says how many
agent decisions the result was built from (the recorder commits the scenario once its bag holds
them; core/evidence.py). A scenario that cannot run is a result with ok false and the reason,
never a dead node.
"""

from __future__ import annotations

import json
from typing import Any

from alpha_matrix_interfaces.msg import AgentDecision, SuiteRequest, SuiteResult
from alpha_matrix_interfaces.srv import Decide
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites import registry
from alpha_matrix.ros.agent_msgs import observation_to_msg
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.request_queue import RequestQueue
from alpha_matrix.ros.services import call_service, handshake
from alpha_matrix.ros.spin import spin_behind


class SuiteExecutive(Node):
    suite = ""  # the suite whose requests this executive runs

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.requests: RequestQueue[SuiteRequest] = RequestQueue()
        self.create_subscription(SuiteRequest, "suite/request", self._on_request, EVENTS)
        self.result_pub = self.create_publisher(SuiteResult, "suite/result", EVENTS)

    def _on_request(self, msg: SuiteRequest) -> None:
        if msg.suite == self.suite:
            self.requests.put(msg)

    def serve(self) -> None:
        robot = getattr(self, "robot", None)
        if robot is not None:
            robot.handshake()
        self.requests.serve(self.execute, self.result_pub.publish)

    def execute(self, req: SuiteRequest) -> SuiteResult:
        res = SuiteResult(episode_id=req.episode_id)
        try:
            result = self.run_request(req)
            res.result_json = json.dumps(result, sort_keys=True, allow_nan=False)
            res.agent_decisions = registry.agent_decisions(self.suite, result)
            res.agent_episode_id = self.agent_episode_id(req)
            res.ok = True
        except (AlphaMatrixError, ValueError, KeyError) as err:
            res.ok, res.message = False, str(err)
            self.get_logger().error(f"{req.episode_id}: {err}")
        finally:
            self.forget(req.episode_id)
        return res

    def run_request(self, req: SuiteRequest) -> dict[str, Any]:
        """The scenario's result (JSON-able); raise AlphaMatrixError when it cannot run."""
        raise NotImplementedError

    def agent_episode_id(self, req: SuiteRequest) -> str:
        """The episode id the agent saw, when the suite hides the scenario's from it ("": the same)."""
        return ""

    def forget(self, episode_id: str) -> None:
        """Drop what was collected for a finished scenario (override when something is)."""


class DecidingExecutive(SuiteExecutive):
    """An executive whose agent under test decides on each scenario (agent/decide): its parameters
    (``params_model``, with ``agent`` and ``decide_timeout_s``) declared, the agent asked."""

    params_model: Any = None
    needs_agent = True  # the suite runs only with an agent under test

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.params = declare_params(self, self.params_model)
        if self.needs_agent and not self.params.agent:
            raise AlphaMatrixError(f"{name}: no agent (the {self.suite} suite asks one: --agent reference, ...)")
        self.decide_cli = self.create_client(Decide, "agent/decide")
        self._agent_ready = False

    def request_parts(self, req: SuiteRequest, item_of: Any) -> tuple[Any, Any]:
        """The request's item (``item_of`` its scenario JSON) and its recorded context, or one line."""
        try:
            return item_of(json.loads(req.scenario_json)), registry.parse_context(req.context_json, self.suite)
        except (TypeError, ValueError, KeyError) as err:
            raise AlphaMatrixError(f"malformed {self.suite} request: {' '.join(str(err).split())[:300]}") from None

    def decide(self, obs: Any) -> AgentDecision:
        """The agent's decision on ``obs``. The first call handshakes: an empty observation is
        answered "invalid" with no side effect, so no first reply is lost."""
        timeout = self.params.decide_timeout_s
        if not self._agent_ready:
            handshake(self.decide_cli, Decide.Request(), timeout)
            self._agent_ready = True
        return call_service(self.decide_cli, Decide.Request(observation=observation_to_msg(obs)), timeout).decision


def main_for(factory: type[SuiteExecutive], args: list[str] | None = None) -> int:
    return run_node(factory, lambda node: spin_behind(node, node.serve), args)
