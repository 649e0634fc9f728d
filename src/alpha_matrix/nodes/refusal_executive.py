"""refusal_executive: the refusal suite's items through the graph.

For each refusal item on suite/request: render the item's overhead image once (the sim camera,
core/suites/refusal/render.py), then ask agent/decide for every output mode of the run's
context in order (one observation each: the situation of core/agent/situation.py, the mode's
tools, the image). The answer comes back as a validated decision (data, never dispatched by
name); core/suites/refusal/evaluate.item_result judges it, the constraint guard checking a
tool-use call against the item's typed predicates and observed scene before it is admitted.
Each judged decision goes out on refusal/verdicts (the marker topic; JSON), the item's result
on suite/result.

An admitted pick-and-place is not executed: the sim has no refusal scene (the item's objects
are not spawned), so tool use is decided and guarded, and nothing moves (``moved`` false).
"""

from __future__ import annotations

import json
from typing import Any

from alpha_matrix_interfaces.msg import AgentDecision, SuiteRequest
from alpha_matrix_interfaces.srv import Decide
from std_msgs.msg import String

from alpha_matrix.core.agent.protocol import Image
from alpha_matrix.core.config import RefusalExecutiveParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.suites.context import RefusalContext, parse_context
from alpha_matrix.core.suites.refusal.evaluate import item_result, observation
from alpha_matrix.core.suites.refusal.render import scene_image
from alpha_matrix.core.suites.refusal.suite import VERDICTS_TOPIC, graph_result, item_of, verdict_json
from alpha_matrix.ros.agent_msgs import decision_from_msg, observation_to_msg
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.services import call_service, handshake
from alpha_matrix.ros.suite_executive import SuiteExecutive, main_for


class RefusalExecutive(SuiteExecutive):
    suite = "refusal"

    def __init__(self) -> None:
        super().__init__("refusal_executive")
        self.params = declare_params(self, RefusalExecutiveParams)
        if not self.params.agent:
            raise AlphaMatrixError("refusal_executive: no agent (the refusal suite asks one: --agent reference, ...)")
        self.decide_cli = self.create_client(Decide, "agent/decide")
        self.verdict_pub = self.create_publisher(String, VERDICTS_TOPIC.lstrip("/"), EVENTS)
        self.agent_ready = False

    def run_request(self, req: SuiteRequest) -> dict[str, Any]:
        p = self.params
        try:
            item = item_of(json.loads(req.scenario_json))
            ctx = parse_context(req.context_json, self.suite)
        except (TypeError, ValueError, KeyError) as err:
            raise AlphaMatrixError(f"malformed refusal request: {err}") from None
        assert isinstance(ctx, RefusalContext)
        if ctx.agent != p.agent:
            raise AlphaMatrixError(f"the context names agent {ctx.agent!r}, this graph runs {p.agent!r}")
        if not self.agent_ready:  # an empty observation is answered "invalid" with no side effect
            handshake(self.decide_cli, Decide.Request(), p.decide_timeout_s)
            self.agent_ready = True
        images: tuple[Image, ...] = (scene_image(item.scene),) if p.images else ()
        replies: list[AgentDecision] = []
        results = []
        for index, mode in enumerate(ctx.modes):
            obs = observation(item, mode, episode_id=req.episode_id, decision_index=index, images=images)
            reply = call_service(
                self.decide_cli, Decide.Request(observation=observation_to_msg(obs)), p.decide_timeout_s
            )
            replies.append(reply.decision)
            r = item_result(item, mode, decision_from_msg(reply.decision), guard_on=ctx.guards)
            results.append(r)
            self.verdict_pub.publish(String(data=canonical_json(verdict_json(req.episode_id, index, r))))
        return graph_result(item, results, ctx, replies)


def main(args: list[str] | None = None) -> int:
    return main_for(RefusalExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
