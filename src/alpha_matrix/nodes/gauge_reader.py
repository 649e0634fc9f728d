"""gauge_reader: the classical gauge reader as a service on the agent protocol.

~/decide (Decide): a gauge observation in (the image and the face's published layout), one
decision out: ``report_reading(value, unit, uncertainty)`` or ``cannot_read(reason)``
(core/suites/gauge/run.py, reader.py). It sees nothing else: no request, no truth. Every
exchange is published (gauge/observations with the image, gauge/readings), so the bag holds
what the reader saw and said, and the audit re-runs it on the recorded images.
"""

from __future__ import annotations

import time

from alpha_matrix_interfaces.msg import AgentDecision, AgentObservation
from alpha_matrix_interfaces.srv import Decide
from pydantic import ValidationError
from rclpy.node import Node

from alpha_matrix.core.suites.gauge.params import GaugeReaderParams
from alpha_matrix.core.suites.gauge.run import read_observation, reading_decision
from alpha_matrix.core.suites.gauge.settings import ReaderSettings
from alpha_matrix.ros.agent_msgs import decision_to_msg, observation_from_msg
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS


class GaugeReader(Node):
    def __init__(self) -> None:
        super().__init__("gauge_reader")
        self.params = declare_params(self, GaugeReaderParams)
        self.settings = ReaderSettings(**self.params.model_dump())
        self.obs_pub = self.create_publisher(AgentObservation, "gauge/observations", EVENTS)
        self.reading_pub = self.create_publisher(AgentDecision, "gauge/readings", EVENTS)
        self.create_service(Decide, "~/decide", self._on_decide)

    def _on_decide(self, req: Decide.Request, res: Decide.Response) -> Decide.Response:
        try:
            obs = observation_from_msg(req.observation)
            t0 = time.perf_counter()
            reading = read_observation(obs, self.settings)
        except (ValidationError, ValueError) as err:
            detail = " ".join(str(err).split())[:200]
            if req.observation.suite:  # an empty one is the bridge's start-up handshake
                self.get_logger().error(f"malformed observation: {detail}")
            res.decision = AgentDecision(
                episode_id=req.observation.episode_id, kind="invalid", invalid="no_decision",
                invalid_detail=f"malformed observation: {detail}",
            )  # fmt: skip
            return res
        res.decision = decision_to_msg(reading_decision(reading, time.perf_counter() - t0), obs)
        self.obs_pub.publish(req.observation)
        self.reading_pub.publish(res.decision)
        return res


def main(args: list[str] | None = None) -> int:
    return run_node(GaugeReader, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
