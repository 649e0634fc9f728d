"""gauge_executive: the gauge suite's sim side and executive.

For each gauge scenario on suite/request: a user's image (``--images``: loaded from its file and
checked against the request's sha256) or render the item (core/suites/gauge/scene.py: the
textured panel in PyBullet seen by the project's RGB camera, then the item's degradations), show
the image and the face's data sheet to the reader (<reader>/decide, the agent protocol's Decide
service: an observation in, one decision out), score its answer against the item's truth and
publish the result on suite/result. With an agent under test (``agent``), the agent is then
asked on agent/decide (core/suites/gauge/agent_run.py: the image for multimodal agents, else
read_gauge, answered with the reader's reading) and scored the same way. The truth never
leaves this node except in the result: the reader and the agent get observations only.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix_interfaces.msg import SuiteRequest
from alpha_matrix_interfaces.srv import Decide

from alpha_matrix.core.agent.protocol import Decision, Observation
from alpha_matrix.core.suites.gauge.agent_run import agent_part, run_agent
from alpha_matrix.core.suites.gauge.faces import FACES
from alpha_matrix.core.suites.gauge.params import GaugeExecutiveParams
from alpha_matrix.core.suites.gauge.run import GaugeRequest, gauge_observation, request_face, result_of, user_pixels
from alpha_matrix.core.suites.gauge.scene import GaugeScene
from alpha_matrix.ros.agent_msgs import decision_from_msg, observation_to_msg
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.services import call_service, handshake
from alpha_matrix.ros.suite_executive import SuiteExecutive, main_for


class GaugeBridge(SuiteExecutive):
    suite = "gauge"

    def __init__(self) -> None:
        super().__init__("gauge_executive")
        self.params = declare_params(self, GaugeExecutiveParams)
        self.scene = GaugeScene()
        self.reader = self.create_client(Decide, f"{self.params.reader}/decide")
        self.agent = self.create_client(Decide, "agent/decide") if self.params.agent else None
        self.ready: set[str] = set()

    def _ask(self, client: Any, obs: Observation, timeout: float) -> Decision:
        if client.srv_name not in self.ready:  # an empty observation is answered "invalid", no side effect
            handshake(client, Decide.Request(), timeout)
            self.ready.add(client.srv_name)
        reply = call_service(client, Decide.Request(observation=observation_to_msg(obs)), timeout)
        return decision_from_msg(reply.decision)

    def run_request(self, req: SuiteRequest) -> dict[str, Any]:
        item = GaugeRequest.model_validate_json(req.scenario_json)
        if item.user is None and item.face not in FACES:
            raise ValueError(f"unknown gauge face {item.face!r}")
        face, p = request_face(item), self.params
        image = (
            user_pixels(item) if item.user is not None else self.scene.render(item.item_conditions(), item.seed).image
        )
        reading = self._ask(self.reader, gauge_observation(req.episode_id, face, image), p.service_timeout_s)
        result = result_of(item, reading)
        if self.agent is not None:
            decisions = run_agent(
                req.episode_id, face, image, reading, lambda obs: self._ask(self.agent, obs, p.decide_timeout_s),
                images=p.images, max_decisions=p.max_decisions,
            )  # fmt: skip
            result["agent"] = agent_part(
                decisions, p.agent, face.unit, face.span, result["truth"], item.readable,
                bool(result.get("stated_unreadable")),
            )  # fmt: skip
        return result

    def destroy_node(self) -> None:
        self.scene.close()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    return main_for(GaugeBridge, args)


if __name__ == "__main__":
    raise SystemExit(main())
