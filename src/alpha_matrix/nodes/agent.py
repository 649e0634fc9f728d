"""agent: the agent under test as a service (core/agent/agent.py), any backend.

agent/decide: one observation in, one decision out. The decision is data, judged against the
offered tools (an unknown tool, bad arguments or no JSON is a typed *invalid* decision; no answer
at all is an *abort*); this node never acts on it: the suite's link does, by the tool's name
against a fixed table. Every exchange is also published (agent/observations, agent/decisions) so
the bag holds what the agent saw and said. The backend is built at start from the ``agent`` spec
(core/agent/spec.py): a model that cannot be reached or is not there fails the start in one line.
"""

from __future__ import annotations

from alpha_matrix_interfaces.msg import AgentDecision, AgentObservation
from alpha_matrix_interfaces.srv import Decide
from pydantic import ValidationError
from rclpy.node import Node

from alpha_matrix.core.agent.agent import Agent, load_templates, ready_backend
from alpha_matrix.core.agent.params import AgentParams
from alpha_matrix.core.agent.protocol import Decision
from alpha_matrix.core.agent.spec import parse_agent_spec
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites import registry
from alpha_matrix.ros.agent_msgs import decision_to_msg, observation_from_msg
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS


class AgentNode(Node):
    def __init__(self) -> None:
        super().__init__("agent")
        self.params = declare_params(self, AgentParams)
        if not self.params.agent:
            raise ConfigError("agent: no agent given (set /**.agent, e.g. --agent reference)")
        spec = parse_agent_spec(self.params.agent, "agent")
        # Before the backend, which may take long: the publishers exist as soon as the node does,
        # which the recorder's ready check waits for (nodes/recorder.py).
        self.obs_pub = self.create_publisher(AgentObservation, "agent/observations", EVENTS)
        self.decision_pub = self.create_publisher(AgentDecision, "agent/decisions", EVENTS)
        # The suite is each observation's (the registry's lookup): the node serves the graph it is in.
        # A served model: reachable and there, before the first decision.
        backend = ready_backend(spec, self.params, registry.suite, registry.agent_baselines())
        self.agent = Agent(
            backend, registry.suite, self.params.seed, load_templates(self.params.prompts, registry.suite)
        )
        self.create_service(Decide, "agent/decide", self._on_decide)
        model = str(getattr(backend, "model", "") or "")
        about = [backend.name] * (backend.name != spec.label) + [f"model {model}"] * bool(model)  # no empty field
        self.get_logger().info(f"agent {spec.label}" + (f" ({', '.join(about)})" if about else ""))

    def _on_decide(self, req: Decide.Request, res: Decide.Response) -> Decide.Response:
        try:
            obs = observation_from_msg(req.observation)
        except (ValidationError, ValueError) as err:
            detail = " ".join(str(err).split())[:200]
            if req.observation.suite or req.observation.tools:  # an empty one is a link's start-up handshake
                self.get_logger().error(f"malformed observation: {detail}")
            res.decision = AgentDecision(
                episode_id=req.observation.episode_id,
                decision_index=req.observation.decision_index,
                step=req.observation.step,
                kind="invalid",
                invalid="no_decision",
                invalid_detail=f"malformed observation: {detail}",
            )
            return res
        decision: Decision = self.agent.decide(obs)
        res.decision = decision_to_msg(decision, obs)
        self.obs_pub.publish(req.observation)
        self.decision_pub.publish(res.decision)
        return res


def main(args: list[str] | None = None) -> int:
    return run_node(AgentNode, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
