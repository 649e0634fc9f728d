"""refusal_executive: the refusal suite's items through the graph.

For each refusal item on suite/request: render the item's overhead image once (the sim camera,
core/suites/refusal/render.py), then ask agent/decide for every output mode of the run's
context in order (one observation each: the situation of core/suites/refusal/situation.py, the mode's
tools, the image). The answer comes back as a validated decision (data, never dispatched by
name); core/suites/refusal/evaluate.item_result judges it, the constraint guard checking a
tool-use call against the item's typed predicates and observed scene before it is admitted.

An admitted pick_and_place is executed on the robot over the driver contract
(core/suites/refusal/execute.py, ros/pick_place_link.py: reach checks, reset, moves, finger
commands; scene_bridge spawns the item's objects at the reset). The target's poses in the step stream give the
measured outcome (outcome.py), which goes into the mode's result and judges the harm. Nothing
else steps the physics: an item without an admitted call costs no episode step.

Each judged decision goes out on refusal/verdicts (the marker topic; JSON), the item's result
on suite/result.
"""

from __future__ import annotations

import time
from typing import Any

from alpha_matrix_interfaces.msg import AgentDecision, SuiteRequest
from std_msgs.msg import String

from alpha_matrix.core.agent.protocol import Image
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.suites.refusal.context import RefusalContext
from alpha_matrix.core.suites.refusal.evaluate import admitted, item_result, observation
from alpha_matrix.core.suites.refusal.execute import outcome_json, plan_motion
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.modes import call_of
from alpha_matrix.core.suites.refusal.params import RefusalExecutiveParams
from alpha_matrix.core.suites.refusal.predicates import Call
from alpha_matrix.core.suites.refusal.render import scene_image
from alpha_matrix.core.suites.refusal.suite import VERDICTS_TOPIC, graph_result, item_of, verdict_json
from alpha_matrix.ros.agent_msgs import decision_from_msg
from alpha_matrix.ros.pick_place_link import PickPlaceLink
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.suite_executive import DecidingExecutive, main_for


class RefusalExecutive(DecidingExecutive):
    suite = "refusal"
    params_model = RefusalExecutiveParams

    def __init__(self) -> None:
        super().__init__("refusal_executive")
        self.verdict_pub = self.create_publisher(String, VERDICTS_TOPIC.lstrip("/"), EVENTS)
        self.link = PickPlaceLink(self, self.params.service_timeout_s)

    def run_request(self, req: SuiteRequest) -> dict[str, Any]:
        p = self.params
        item, ctx = self.request_parts(req, item_of)
        assert isinstance(ctx, RefusalContext)
        if ctx.agent != p.agent:
            raise AlphaMatrixError(f"the context names agent {ctx.agent!r}, this graph runs {p.agent!r}")
        images: tuple[Image, ...] = (scene_image(item.scene),) if p.images else ()
        replies: list[AgentDecision] = []
        results = []
        for index, mode in enumerate(ctx.modes):
            obs = observation(item, mode, episode_id=req.episode_id, decision_index=index, images=images)
            replies.append(answer := self.decide(obs))
            decision = decision_from_msg(answer)
            r = item_result(item, mode, decision, guard_on=ctx.guards)
            if admitted(r):
                outcome = self._execute(req, item, call_of(decision))
                r = item_result(item, mode, decision, guard_on=ctx.guards, outcome=outcome)
            results.append(r)
            self.verdict_pub.publish(String(data=canonical_json(verdict_json(req.episode_id, index, r))))
        return graph_result(item, results, ctx, replies)

    def _execute(self, req: SuiteRequest, item: RefusalItem, call: Call) -> dict[str, Any]:
        """Run the admitted call on the robot; the outcome measured from the step stream."""
        t0 = time.monotonic()
        motion = plan_motion(item.scene, call, self.link.reachable)
        if motion.failure:
            self.get_logger().info(f"{req.episode_id}: not executed: {motion.failure}")
            return outcome_json(motion, item.scene, call, [])
        self.link.reset(req.episode_id, req.seed)
        end_step, samples = self.link.run(motion.commands)
        out = outcome_json(motion, item.scene, call, samples)
        m = out["measured"]
        self.get_logger().info(
            f"{req.episode_id}: executed {call.obj} in {time.monotonic() - t0:.2f} s ({end_step} steps): "
            f"moved {m['moved']}, lift {m['max_lift_m']:.3f} m of {motion.lift_requested_m:g} "
            f"(commanded {motion.lift_commanded_m:.3f}), placed {m['placed']}"
        )
        return out


def main(args: list[str] | None = None) -> int:
    return main_for(RefusalExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
