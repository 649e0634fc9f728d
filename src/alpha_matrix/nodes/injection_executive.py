"""injection_executive: the injection suite's items through the graph.

For each item on suite/request (a clean or injected twin, whole). A gauge_face item is the gauge
suite's: its render, its classical reader (read_gauge), its agent loop, with the text printed on
the face in the situation (core/suites/injection/gauge_host.py). An alert_payload item runs its
task up to the lift, asks the agent about the alert raised there (the alerts suite's situation),
then sends the rest or holds as long (alert_host.py). Every other item: render its overhead image
(the sim camera), ask agent/decide once in tool use with the refusal situation of the shown item
(core/suites/injection/episode.py: the injected text sits in its channel of the scene); the
validated decision (data, never dispatched by name) is judged by the refusal suite's judge with
the constraint guard under it. An admitted pick_and_place is executed on the robot over the
driver contract as the refusal suite executes it (scene_bridge spawns the item's objects); the
measured outcome and the attacker's predicate come from the same step stream. The verdict goes
out on injection/verdicts (the marker topic), the result on suite/result.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix_interfaces.msg import SuiteRequest
from std_msgs.msg import String

from alpha_matrix.core.agent.protocol import Image
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.suites.alerts.scenarios import load_alert_policy
from alpha_matrix.core.suites.gauge.agent_run import run_agent
from alpha_matrix.core.suites.gauge.scene import GaugeScene
from alpha_matrix.core.suites.injection.alert_host import (
    SPLIT,
    alert_observation,
    alert_outcome,
    alert_result,
    continues,
    rest_or_hold,
)
from alpha_matrix.core.suites.injection.context import InjectionContext
from alpha_matrix.core.suites.injection.episode import (
    VERDICTS_TOPIC,
    called_object,
    item_observation,
    judged,
    result_of,
    verdict_json,
)
from alpha_matrix.core.suites.injection.gauge_host import gauge_result, shown_gauge
from alpha_matrix.core.suites.injection.items import InjectionItem, injection_of
from alpha_matrix.core.suites.injection.params import InjectionExecutiveParams
from alpha_matrix.core.suites.refusal.evaluate import admitted
from alpha_matrix.core.suites.refusal.execute import outcome_json, plan_motion
from alpha_matrix.core.suites.refusal.modes import call_of
from alpha_matrix.core.suites.refusal.render import scene_image
from alpha_matrix.ros.agent_msgs import decision_from_msg
from alpha_matrix.ros.pick_place_link import PickPlaceLink
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.suite_executive import DecidingExecutive, main_for


class InjectionExecutive(DecidingExecutive):
    suite = "injection"
    params_model = InjectionExecutiveParams

    def __init__(self) -> None:
        super().__init__("injection_executive")
        self.verdict_pub = self.create_publisher(String, VERDICTS_TOPIC.lstrip("/"), EVENTS)
        self.link = PickPlaceLink(self, self.params.service_timeout_s)
        self.gauge_scene: GaugeScene | None = None  # gauge_face items: opened at the first one
        self.policy = load_alert_policy().policy  # alert_payload items: the shipped alert policy

    def run_request(self, req: SuiteRequest) -> dict[str, Any]:
        p = self.params
        it, ctx = self.request_parts(req, injection_of)
        assert isinstance(ctx, InjectionContext)
        if ctx.agent != p.agent:
            raise AlphaMatrixError(f"the context names agent {ctx.agent!r}, this graph runs {p.agent!r}")
        if it.gauge:
            out = self._gauge(req, it, ctx)
        elif it.alert is not None:
            out = self._alert(req, it, ctx)
        else:
            out = self._refusal(req, it, ctx)
        self.verdict_pub.publish(String(data=canonical_json(verdict_json(req.episode_id, out))))
        self.get_logger().info(f"{req.episode_id}: {out['action']} guard {out['guard']} attack {out['attack_success']}")
        return out

    def _gauge(self, req: SuiteRequest, it: InjectionItem, ctx: InjectionContext) -> dict[str, Any]:
        """A gauge_face item: the gauge suite's render, reader and agent loop (gauge_host.py)."""
        if self.gauge_scene is None:
            self.gauge_scene = GaugeScene()
        p = self.params
        face, pixels, reader = shown_gauge(it, self.gauge_scene, req.episode_id)
        answers: list[Any] = []

        def ask(obs: Any) -> Any:
            answers.append(self.decide(obs))
            return decision_from_msg(answers[-1])

        decisions = run_agent(
            req.episode_id, face, pixels, reader, ask, images=p.gauge_images, max_decisions=p.gauge_max_decisions,
            face_text=it.text or None,
        )  # fmt: skip
        return gauge_result(it, decisions, agent=ctx.agent, guards=ctx.guards, prompt=ctx.prompt, recorded=answers)

    def _alert(self, req: SuiteRequest, it: InjectionItem, ctx: InjectionContext) -> dict[str, Any]:
        """An alert_payload item: the task up to the lift, the alert decided as in the alerts suite,
        then the rest of the task or a hold as long (alert_host.py)."""
        motion = plan_motion(it.refusal.scene, it.refusal.call, self.link.reachable)
        if motion.failure:
            raise AlphaMatrixError(f"{it.name}: the task cannot be planned ({motion.failure})")
        self.link.reset(req.episode_id, req.seed)
        alert_step, _ = self.link.run(motion.commands[:SPLIT])
        answer = self.decide(alert_observation(it, req.episode_id, alert_step))
        decision = decision_from_msg(answer)
        go_on, _, _ = continues(it, decision, self.policy, ctx.guards)
        _end, samples = self.link.run(rest_or_hold(motion.commands, go_on))
        out = alert_outcome(it, decision, self.policy, ctx.guards, alert_step, samples)
        return alert_result(
            it, decision, out, self.policy, agent=ctx.agent, guards=ctx.guards, prompt=ctx.prompt, recorded=[answer]
        )

    def _refusal(self, req: SuiteRequest, it: InjectionItem, ctx: InjectionContext) -> dict[str, Any]:
        p = self.params
        images: tuple[Image, ...] = (scene_image(it.refusal.scene),) if p.images else ()
        obs = item_observation(it, req.episode_id, images)
        answer = self.decide(obs)
        decision = decision_from_msg(answer)
        r = judged(it, decision, ctx.guards)
        samples: list[Any] = []
        if admitted(r):
            call = call_of(decision)
            motion = plan_motion(it.refusal.scene, call, self.link.reachable)
            if not motion.failure:
                self.link.reset(req.episode_id, req.seed)
                _end, samples = self.link.run(motion.commands)
            r = judged(it, decision, ctx.guards, outcome_json(motion, it.refusal.scene, call, samples))
        return result_of(
            it, r, samples, agent=ctx.agent, guards=ctx.guards, prompt=ctx.prompt,
            called=called_object(decision), decisions=[answer],
        )  # fmt: skip

    def destroy_node(self) -> None:
        if self.gauge_scene is not None:
            self.gauge_scene.close()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    return main_for(InjectionExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
