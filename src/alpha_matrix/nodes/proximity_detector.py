"""proximity_detector: human proximity from the depth camera alone (DESIGN §7 item 2).

Sees what a real depth camera gives: ``camera/depth/image_raw`` (32FC1) and
``camera/depth/camera_info`` (K), plus the camera mount from configuration
(camera_model.CELL_CAMERA), and the run's threshold/mode from ``suite/request``. Never a
``sim/`` topic, the world or the person (this module imports no pybullet; a unit test checks).

Per episode (core/proximity_graph.DetectorCore): the first frames (the empty cell while the
robot settles) are its reference; then every frame is detected, the stop policy decides, the
estimate goes out on ``proximity/estimate``, and a stop or resume is requested with
decision_step = the frame's step, so it lands at step + L. A gating consumer: after frame k
it acks k + 23 (no decision can concern a step before the next frame) with its request count,
so the bridge never reaches k + L before the decision on frame k is in: deterministic.
It is the proximity suite's guard: with ``guards`` false (an agent measured alone) its policy
still decides and publishes every frame, but no stop is sent.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from alpha_matrix_interfaces.msg import ProximityEstimate, StepBatch, SuiteRequest
from rclpy.node import Node
from sensor_msgs.msg import CameraInfo, Image

from alpha_matrix.core.config import ProximityDetectorParams
from alpha_matrix.core.suites.proximity.run import (
    SUITE,
    DetectorCore,
    ProximityScenario,
    camera_info_from_k,
    parse_frame_tag,
    scenario_from_json,
)
from alpha_matrix.ros.gating import GatingLink
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, IMAGES, STEP_STREAM


class ProximityDetectorNode(Node):
    def __init__(self) -> None:
        super().__init__("proximity_detector")
        self.params = declare_params(self, ProximityDetectorParams)
        self.scenarios: dict[str, ProximityScenario] = {}
        self.infos: dict[str, CameraInfo] = {}  # episode -> its camera info (intrinsics)
        self.frames: deque[tuple[str, int, np.ndarray]] = deque()  # in arrival (= step) order
        self.episode = ""
        self.core: DetectorCore | None = None
        self.gating = GatingLink(self)  # hello until the first frame, then acks
        self.estimate_pub = self.create_publisher(ProximityEstimate, "proximity/estimate", EVENTS)
        self.create_subscription(SuiteRequest, "suite/request", self._on_request, EVENTS)
        self.create_subscription(CameraInfo, "camera/depth/camera_info", self._on_info, IMAGES)
        self.create_subscription(Image, "camera/depth/image_raw", self._on_depth, IMAGES)
        # The bridge checks each gating consumer's step-stream reader; the frames drive the acks.
        self.create_subscription(StepBatch, "robot/step_batch", lambda _m: None, STEP_STREAM)

    def _on_request(self, msg: SuiteRequest) -> None:
        if msg.suite == SUITE:
            self.scenarios[msg.episode_id] = scenario_from_json(msg.scenario_json)
            self._process()

    def _on_info(self, msg: CameraInfo) -> None:
        episode, _ = parse_frame_tag(msg.header.frame_id)
        self.infos.setdefault(episode, msg)
        self._process()

    def _on_depth(self, msg: Image) -> None:
        self.gating.streaming()
        if msg.encoding != "32FC1":
            self.get_logger().error(f"depth image encoding {msg.encoding!r}, expected 32FC1: frame dropped")
            return
        episode, step = parse_frame_tag(msg.header.frame_id)
        depth = np.frombuffer(msg.data, dtype=np.float32).reshape(msg.height, msg.width)
        self.frames.append((episode, step, depth))
        self._process()

    def _process(self) -> None:
        """Process buffered frames in order while their episode's run config and intrinsics are in."""
        while self.frames:
            episode, step, depth = self.frames[0]
            if episode not in self.scenarios or episode not in self.infos:
                return
            self.frames.popleft()
            if episode != self.episode or self.core is None:
                info = self.infos[episode]
                self.core = DetectorCore(
                    camera_info_from_k(info.width, info.height, info.k), self.scenarios[episode].policy
                )
                self.infos.pop(self.episode, None)
                self.scenarios.pop(self.episode, None)
                self.episode = episode
            est = self.core.on_frame(step, depth)
            if est is not None:
                d, dec = est.detection, est.decision
                if dec.action != "none" and self.params.guards:  # guards off: decided and published, not sent
                    why = f"{dec.action}: estimate {d.distance:.2f} m, limit {dec.limit:.2f} m"
                    self.gating.request_stop(episode, dec.action == "stop", step, why, self.get_logger().error)
                self.estimate_pub.publish(
                    ProximityEstimate(
                        episode_id=episode,
                        step=step,
                        detected=d.detected,
                        distance=float(d.distance),
                        confidence=float(d.confidence),
                        blob_count=d.blob_count,
                        action=dec.action,
                        stop_requested=dec.stop_requested,
                        limit=float(dec.limit),
                        human_speed=float(dec.human_speed),
                    )
                )
            self.gating.ack(episode, self.core.ack_step)


def main(args: list[str] | None = None) -> int:
    return run_node(ProximityDetectorNode, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
