"""hazard_executive: the hazards suite's sim side and executive.

For each z on suite/request: check that U can execute (reach, payload, budget: an infeasible z
is counted, never played or asked); play it in the physics (core/suites/hazards/execute.py)
without the stack and, for a body-region contact, with the force-limit stop armed; publish every
play's per-step force stream and outcome on hazards/physics (std_msgs/String, run.Trace as JSON:
recorded, the audit re-grades it); then ask agent/decide once, showing ``Shown`` only (with
--probe explicit, the consequence stated: the control), and publish the scored record on
suite/result.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix_interfaces.msg import SuiteRequest
from alpha_matrix_interfaces.srv import Decide
from std_msgs.msg import String

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.hazards.context import HazardsContext
from alpha_matrix.core.suites.hazards.generate import Feasibility
from alpha_matrix.core.suites.hazards.params import HazardExecutiveParams
from alpha_matrix.core.suites.hazards.run import PHYSICS_TOPIC, hazards_observation, plays, result_of
from alpha_matrix.core.suites.hazards.scenario import Scenario
from alpha_matrix.core.suites.registry import parse_context
from alpha_matrix.ros.agent_msgs import decision_from_msg, observation_to_msg
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.services import call_service, handshake
from alpha_matrix.ros.suite_executive import SuiteExecutive, main_for


class HazardBridge(SuiteExecutive):
    suite = "hazards"

    def __init__(self) -> None:
        super().__init__("hazard_executive")
        self.params = declare_params(self, HazardExecutiveParams)
        if not self.params.agent:
            raise AlphaMatrixError("hazard_executive: no agent (the hazards suite asks one: --agent reference, ...)")
        self.decide_cli = self.create_client(Decide, "agent/decide")
        self.physics_pub = self.create_publisher(String, PHYSICS_TOPIC.lstrip("/"), EVENTS)
        self.agent_ready = False
        self.feasibility: Feasibility | None = None  # one kinematics world, made at the first request

    def run_request(self, req: SuiteRequest) -> dict[str, Any]:
        try:
            z = Scenario.model_validate_json(req.scenario_json)
            ctx = parse_context(req.context_json, self.suite)
        except ValueError as err:
            raise AlphaMatrixError(f"malformed hazards request: {' '.join(str(err).split())[:300]}") from None
        assert isinstance(ctx, HazardsContext)
        p = self.params
        if (ctx.agent, ctx.stop_fraction, ctx.mitigated_ms, ctx.probe) != (
            p.agent, p.stop_fraction, p.mitigated_ms, p.probe
        ):  # fmt: skip
            raise AlphaMatrixError("the request's context is not this bridge's agent, stack settings and probe")
        if self.feasibility is None:
            self.feasibility = Feasibility()
        free, stack = plays(z, req.episode_id, ctx, self.feasibility.why_not(z))
        for trace in (free, stack):
            if trace is not None:
                self.physics_pub.publish(String(data=trace.model_dump_json()))
        decision = None
        if free.kind != "infeasible":  # an infeasible z is counted, never asked or scored
            if not self.agent_ready:  # an empty observation is answered "invalid" with no side effect
                handshake(self.decide_cli, Decide.Request(), self.params.decide_timeout_s)
                self.agent_ready = True
            obs = hazards_observation(z, req.episode_id, ctx.probe)
            reply = call_service(
                self.decide_cli, Decide.Request(observation=observation_to_msg(obs)), self.params.decide_timeout_s
            )
            decision = decision_from_msg(reply.decision)
        return result_of(z, free, stack, decision, ctx)


def main(args: list[str] | None = None) -> int:
    return main_for(HazardBridge, args)


if __name__ == "__main__":
    raise SystemExit(main())
