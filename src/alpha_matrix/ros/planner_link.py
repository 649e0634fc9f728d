"""A runner's side of the planners: the arm's plan for the executive, or why there is none.

The oracle arm gets a typed plan (planner/get_plan); the text arms (TEXT_SERVICES: the oracle's
canonical text, the LLM) get raw text, passed to the executive unparsed (it validates) and kept
for the record with the planner's own publication (provenance, its text before any fault). An
``llm:<model>`` arm asks the llm planner for that model; its start-up probe names the model, so a
model the planner cannot serve stops the run before the first episode.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix_interfaces.msg import PlannerReply, PlanRequest
from alpha_matrix_interfaces.srv import GetPlan, GetPlanText
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.cells import TEXT_REPLIES, TEXT_SERVICES, arm_family, arm_model, is_text_arm, model_arm
from alpha_matrix.core.matrix.episode import Planned
from alpha_matrix.core.planning.guards import parse_plan_text
from alpha_matrix.core.planning.plan import PlanError
from alpha_matrix.ros.convert import plan_msg_to_dict
from alpha_matrix.ros.mailbox import Mailbox
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.services import call_service


class PlannerLink:
    def __init__(self, node: Node, timeout_s: float, plan_timeout_s: float) -> None:
        self.timeout_s, self.plan_timeout_s = timeout_s, plan_timeout_s
        self.plan_cli = node.create_client(GetPlan, "planner/get_plan")
        self.text_clis = {arm: node.create_client(GetPlanText, srv) for arm, srv in TEXT_SERVICES.items()}
        self.replies: Mailbox[str, PlannerReply] = Mailbox()
        for topic in TEXT_REPLIES.values():
            node.create_subscription(PlannerReply, topic, lambda m: self.replies.put(m.episode_id, m), EVENTS)

    def clients(self, arms: list[str]) -> list[Any]:
        """The services the arms need."""
        text = {arm_family(arm) for arm in arms if is_text_arm(arm)}
        return [self.text_clis[family] for family in sorted(text)] + (
            [self.plan_cli] if not all(map(is_text_arm, arms)) else []
        )

    def probes(self, arms: list[str]) -> list[tuple[Any, Any]]:
        """One harmless exchange per planner client and model (an empty request), so no first reply
        is lost; ``check_probe`` judges the replies."""
        probes: list[tuple[Any, Any]] = [
            (self.text_clis[arm_family(arm)], GetPlanText.Request(model=arm_model(arm)))
            for arm in arms
            if is_text_arm(arm)
        ]
        return probes + ([(self.plan_cli, GetPlan.Request())] if not all(map(is_text_arm, arms)) else [])

    @staticmethod
    def check_probe(request: Any, reply: Any) -> None:
        """A probe's reply: a planner that cannot serve the probed model stops the run now."""
        if isinstance(request, GetPlanText.Request) and reply.unavailable:
            raise AlphaMatrixError(f"arm {model_arm(request.model)}: {reply.message}")

    def plan(self, arm: str, request: GetPlan.Request) -> Planned:
        if not is_text_arm(arm):
            reply = call_service(self.plan_cli, request, self.timeout_s)
            if not reply.success:
                return Planned(error=reply.message)
            req = PlanRequest(episode_id=request.episode_id, plan=reply.plan, scene=request.scene)
            return Planned(req, plan_msg_to_dict(reply.plan))
        ask = GetPlanText.Request(
            episode_id=request.episode_id, task=request.task, object=request.object, scene=request.scene,
            zone=request.zone, seed=request.seed, model=arm_model(arm),
        )  # fmt: skip
        reply = call_service(self.text_clis[arm_family(arm)], ask, self.plan_timeout_s)
        if reply.unavailable:  # no model answered: stop the run rather than record a plan nobody wrote
            raise AlphaMatrixError(f"{arm} planner unavailable: {reply.message}")
        if not reply.success:
            return Planned(error=reply.message)
        try:
            data = parse_plan_text(reply.text).model_dump(mode="json")
        except PlanError:
            data = None  # the executive reports why; the record keeps the raw text
        req = PlanRequest(episode_id=request.episode_id, text_path=True, plan_text=reply.text, scene=request.scene)
        published = self.replies.take(request.episode_id, self.timeout_s)
        if published is None:
            raise AlphaMatrixError(f"{arm} planner published no reply within {self.timeout_s:.0f} s")
        return Planned(req, data, reply.text, planner=published)
