"""gauge_bridge: the gauge suite's sim side and executive (issue 15).

For each gauge scenario on suite/request: render the item (core/suites/gauge/scene.py: the
textured panel in PyBullet seen by the project's RGB camera, then the item's degradations), show
the image and the face's published layout to the reader (<reader>/decide, the agent protocol's
Decide service: an observation in, one decision out), score its answer against the item's truth
and publish the result on suite/result. The truth never leaves this node except in the result:
the reader gets the observation only (core/suites/gauge/run.gauge_observation).
"""

from __future__ import annotations

from typing import Any

from alpha_matrix_interfaces.msg import SuiteRequest
from alpha_matrix_interfaces.srv import Decide

from alpha_matrix.core.config import GaugeBridgeParams
from alpha_matrix.core.suites.gauge.faces import FACES
from alpha_matrix.core.suites.gauge.run import GaugeRequest, gauge_observation, result_of
from alpha_matrix.core.suites.gauge.scene import GaugeScene
from alpha_matrix.ros.agent_msgs import decision_from_msg, observation_to_msg
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.services import call_service, handshake
from alpha_matrix.ros.suite_executive import SuiteExecutive, main_for


class GaugeBridge(SuiteExecutive):
    suite = "gauge"

    def __init__(self) -> None:
        super().__init__("gauge_bridge")
        self.params = declare_params(self, GaugeBridgeParams)
        self.scene = GaugeScene()
        self.reader = self.create_client(Decide, f"{self.params.reader}/decide")
        self.reader_ready = False

    def run_request(self, req: SuiteRequest) -> dict[str, Any]:
        item = GaugeRequest.model_validate_json(req.scenario_json)
        if item.face not in FACES:
            raise ValueError(f"unknown gauge face {item.face!r}")
        image = self.scene.render(item.item_conditions(), item.seed).image
        obs = gauge_observation(req.episode_id, FACES[item.face], image)
        timeout = self.params.service_timeout_s
        if not self.reader_ready:  # an empty observation is answered "invalid" with no side effect
            handshake(self.reader, Decide.Request(), timeout)
            self.reader_ready = True
        reply = call_service(self.reader, Decide.Request(observation=observation_to_msg(obs)), timeout)
        return result_of(item, decision_from_msg(reply.decision))

    def destroy_node(self) -> None:
        self.scene.close()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    return main_for(GaugeBridge, args)


if __name__ == "__main__":
    raise SystemExit(main())
