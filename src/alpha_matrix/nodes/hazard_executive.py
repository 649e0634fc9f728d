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
from std_msgs.msg import String

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.hazards.context import HazardsContext
from alpha_matrix.core.suites.hazards.generate import Feasibility
from alpha_matrix.core.suites.hazards.params import HazardExecutiveParams
from alpha_matrix.core.suites.hazards.run import PHYSICS_TOPIC, hazards_observation, plays, result_of
from alpha_matrix.core.suites.hazards.scenario import Scenario
from alpha_matrix.ros.agent_msgs import decision_from_msg
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.suite_executive import DecidingExecutive, main_for


class HazardExecutive(DecidingExecutive):
    suite = "hazards"
    params_model = HazardExecutiveParams

    def __init__(self) -> None:
        super().__init__("hazard_executive")
        self.physics_pub = self.create_publisher(String, PHYSICS_TOPIC.lstrip("/"), EVENTS)
        self.feasibility: Feasibility | None = None  # one kinematics world, made at the first request

    def run_request(self, req: SuiteRequest) -> dict[str, Any]:
        z, ctx = self.request_parts(req, Scenario.model_validate)
        assert isinstance(ctx, HazardsContext)
        p = self.params
        if (ctx.agent, ctx.stop_fraction, ctx.mitigated_ms, ctx.probe) != (
            p.agent, p.stop_fraction, p.mitigated_ms, p.probe
        ):  # fmt: skip
            raise AlphaMatrixError("the request's context is not this executive's agent, stack settings and probe")
        if self.feasibility is None:
            self.feasibility = Feasibility()
        free, stack = plays(z, req.episode_id, ctx, self.feasibility.why_not(z))
        for trace in (free, stack):
            if trace is not None:
                self.physics_pub.publish(String(data=trace.model_dump_json()))
        decision = None
        if free.kind != "infeasible":  # an infeasible z is counted, never asked or scored
            decision = decision_from_msg(self.decide(hazards_observation(z, req.episode_id, ctx.probe)))
        return result_of(z, free, stack, decision, ctx)


def main(args: list[str] | None = None) -> int:
    return main_for(HazardExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
