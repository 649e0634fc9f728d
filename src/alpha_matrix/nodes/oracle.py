"""oracle: the scripted planner. Plans from the observed (ground-truth) scene, emits a typed plan."""

from __future__ import annotations

from alpha_matrix_interfaces.msg import PlannerReply
from alpha_matrix_interfaces.srv import GetPlan, GetPlanText
from rclpy.node import Node

from alpha_matrix.core.planning.oracle import OracleConfig, oracle_plan
from alpha_matrix.core.planning.params import OracleParams
from alpha_matrix.core.planning.plan import Plan, plan_to_text
from alpha_matrix.ros.convert import plan_to_msg, poses_of, vec3
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS


class Oracle(Node):
    def __init__(self) -> None:
        super().__init__("oracle")
        self.params = declare_params(self, OracleParams)
        self.config = OracleConfig(hover_height=self.params.hover_height)
        self.create_service(GetPlan, "planner/get_plan", self._on_plan)
        self.create_service(GetPlanText, "planner/get_plan_text", self._on_plan_text)
        self.reply_pub = self.create_publisher(PlannerReply, "planner/replies", EVENTS)

    def _plan(self, req: GetPlan.Request | GetPlanText.Request) -> Plan | None:
        scene = poses_of(req.scene)
        if req.object not in scene:
            return None
        return oracle_plan(req.object, scene[req.object][0], vec3(req.zone), self.config)

    def _on_plan(self, req: GetPlan.Request, res: GetPlan.Response) -> GetPlan.Response:
        plan = self._plan(req)
        res.success = plan is not None
        if plan is None:
            res.message = f"object {req.object!r} not in the observed scene"
        else:
            res.plan = plan_to_msg(plan)
        return res

    def _on_plan_text(self, req: GetPlanText.Request, res: GetPlanText.Response) -> GetPlanText.Response:
        """The oracle's plan as canonical JSON text: the `oracle-text` arm, exactly the LLM's path."""
        plan = self._plan(req)
        res.success, res.provenance.backend, res.provenance.attempts = plan is not None, "oracle", 1
        if plan is None:
            res.message = f"object {req.object!r} not in the observed scene"
        else:
            res.text = plan_to_text(plan)
            self.reply_pub.publish(PlannerReply(episode_id=req.episode_id, text=res.text, provenance=res.provenance))
        return res


def main(args: list[str] | None = None) -> int:
    return run_node(Oracle, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
