"""llm_planner: the language model behind the `llm` arm. Serves llm/get_plan_text.

Returns the model's raw text with its provenance and publishes the same on llm/replies (for
the bag, and for a later replay); it never parses the text for the executive. A backend that
cannot answer (daemon down, timeout, replay miss) is reported as ``unavailable``, which stops
the run: no episode is recorded with a plan that no model wrote.
"""

from __future__ import annotations

from pathlib import Path

from alpha_matrix_interfaces.msg import PlannerProvenance, PlannerReply
from alpha_matrix_interfaces.srv import GetPlanText
from rclpy.node import Node

from alpha_matrix.core.config import LLMPlannerParams
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.graph import default_config_dir
from alpha_matrix.core.planning.llm import LLMError
from alpha_matrix.core.planning.llm_planner import LLMPlanner, build_backend, load_template
from alpha_matrix.core.planning.provenance import reply_to_msg_fields
from alpha_matrix.ros.convert import poses_of, vec3
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS


class LLMPlannerNode(Node):
    def __init__(self) -> None:
        super().__init__("llm_planner")
        p = self.params = declare_params(self, LLMPlannerParams)
        prompt = Path(p.prompt) if Path(p.prompt).is_absolute() else default_config_dir() / p.prompt
        template = load_template(prompt, p.prompt_sha256)
        backend = build_backend(p)
        self.planner = LLMPlanner(backend, template, p.retries)
        described = getattr(backend, "model", "") or f"{len(backend)} recorded replies"
        self.get_logger().info(f"backend {backend.name}: {described} (prompt {template.version})")
        self.reply_pub = self.create_publisher(PlannerReply, "llm/replies", EVENTS)
        self.create_service(GetPlanText, "llm/get_plan_text", self._on_plan_text)

    def _on_plan_text(self, req: GetPlanText.Request, res: GetPlanText.Response) -> GetPlanText.Response:
        scene = {name: pos for name, (pos, _q) in poses_of(req.scene).items()}
        try:
            reply = self.planner.plan_text(req.episode_id, req.task, scene, vec3(req.zone), int(req.seed))
        except LLMError as err:
            self.get_logger().error(f"{req.episode_id}: {err}")
            res.success, res.unavailable, res.message = False, True, str(err)
            return res
        except ConfigError as err:  # this request cannot be prompted (e.g. an object name unfit for a prompt)
            res.success, res.message = False, str(err)
            return res
        res.success, res.text, res.provenance = True, reply.text, PlannerProvenance(**reply_to_msg_fields(reply))
        self.reply_pub.publish(PlannerReply(episode_id=req.episode_id, text=reply.text, provenance=res.provenance))
        return res


def main(args: list[str] | None = None) -> int:
    return run_node(LLMPlannerNode, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
