"""llm_planner: the language model behind the `llm` arm. Serves llm/get_plan_text.

A served model (Ollama, OpenAI-compatible) is built and checked on the runner's start-up probe
of its arm (a probe carries no episode): the configured model for ``llm``, the named one for
``llm:<model>``; one that is not served stops the run before its first episode. The embedded
model and a replay are loaded at start; a replay serves every arm from its recordings (by episode).

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

from alpha_matrix.core.backends.errors import BackendError
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.graph import default_config_dir
from alpha_matrix.core.matrix.cells import model_arm
from alpha_matrix.core.planning.llm_planner import LLMPlanner, build_backend, concrete_backend, load_template
from alpha_matrix.core.planning.params import LLMPlannerParams
from alpha_matrix.core.planning.provenance import reply_to_msg_fields
from alpha_matrix.ros.convert import poses_of, vec3
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS

LOCAL = ("llamacpp", "replay")  # loaded at start: a bad GGUF or recording fails before any probe


class LLMPlannerNode(Node):
    def __init__(self) -> None:
        super().__init__("llm_planner")
        p = self.params = declare_params(self, LLMPlannerParams)
        prompt = Path(p.prompt) if Path(p.prompt).is_absolute() else default_config_dir() / p.prompt
        self.template = load_template(prompt, p.prompt_sha256)
        self.backend_name = concrete_backend(p)
        self.planners: dict[str, LLMPlanner] = {}  # by requested model ("": the configured one)
        if self.backend_name in LOCAL:
            self._planner("")
        self.reply_pub = self.create_publisher(PlannerReply, "llm/replies", EVENTS)
        self.create_service(GetPlanText, "llm/get_plan_text", self._on_plan_text)

    def _planner(self, model: str) -> LLMPlanner:
        """The planner of ``model`` ("": the configured one), its backend built and checked once."""
        if self.backend_name == "replay":  # one recording serves every arm (loaded at start)
            model = ""
        if model not in self.planners:
            backend = build_backend(self.params, model, self.backend_name)
            described = getattr(backend, "model", "") or f"{len(backend)} recorded replies"
            self.get_logger().info(
                f"arm {model_arm(model)}: backend {backend.name}, {described} (prompt {self.template.version})"
            )
            self.planners[model] = LLMPlanner(backend, self.template, self.params.retries)
        return self.planners[model]

    def _on_plan_text(self, req: GetPlanText.Request, res: GetPlanText.Response) -> GetPlanText.Response:
        scene = {name: pos for name, (pos, _q) in poses_of(req.scene).items()}
        try:
            planner = self._planner(req.model)
        except (BackendError, ConfigError) as err:  # not served: the run stops (at its start-up probe)
            self.get_logger().error(f"arm {model_arm(req.model)}: {err}")
            res.success, res.unavailable, res.message = False, True, str(err)
            return res
        if not req.episode_id:  # a start-up probe: the model is served; nothing to plan
            res.message = "probe"
            return res
        try:
            reply = planner.plan_text(req.episode_id, req.task, scene, vec3(req.zone), int(req.seed))
        except BackendError as err:
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
