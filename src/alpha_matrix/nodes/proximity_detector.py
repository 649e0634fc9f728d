"""proximity_detector: human proximity from the depth camera alone (the proximity suite).

Sees what a real depth camera gives: ``camera/depth/image_raw`` and ``camera/depth/camera_info``
(K), plus the camera's mount from its parameters (``camera_position``, ``camera_orientation``:
the calibration of the depth optical frame in the world; default the simulated cell's mount,
camera_model.CELL_CAMERA), and the run's threshold/mode from ``suite/request``. Never a
``sim/`` topic, the world or the person (this module imports no pybullet; a unit test checks).

Depth as REP 118 drivers publish it (core/depth_image.py): 16UC1 (uint16 mm, 0 = no return;
realsense2_camera, Orbbec, Azure Kinect, OAK) or 32FC1 (float32 m, NaN or 0 = no return), any
row padding or byte order. Any other encoding is said once, in one line, and its frames dropped
(not acked: a guard that cannot see holds the robot). realsense2_camera's topics by remapping:

    --ros-args -r camera/depth/image_raw:=/camera/camera/depth/image_rect_raw
               -r camera/depth/camera_info:=/camera/camera/depth/camera_info

(``aligned_depth_to_color/image_raw`` and its ``camera_info`` likewise; in a graph file, the
node's ``remappings:``). Its subscriptions are reliable and transient-local (ros/qos.IMAGES):
realsense's default ``SYSTEM_DEFAULT`` matches under Fast DDS, ``depth_qos:=SENSOR_DATA``
(best effort) does not. Frames are keyed by the frame tag in ``header.frame_id``
(core/suites/proximity/run.frame_tag: episode and step), which the suite's bridge writes; a
frame without one (a live driver's optical frame name) is said once and dropped.

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

import math
from collections import deque

import numpy as np
from alpha_matrix_interfaces.msg import ProximityEstimate, StepBatch, SuiteRequest
from geometry_msgs.msg import Point, PointStamped
from rclpy.node import Node
from sensor_msgs.msg import CameraInfo, Image

from alpha_matrix.core.depth_image import DepthImageError, image_metres
from alpha_matrix.core.sim.camera_model import pose_from_quaternion
from alpha_matrix.core.suites.proximity.params import ProximityDetectorParams
from alpha_matrix.core.suites.proximity.run import (
    SUITE,
    DetectorCore,
    ProximityScenario,
    camera_info_from_k,
    frame_tag,
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
        self.pose = pose_from_quaternion(self.params.camera_position, self.params.camera_orientation)
        self.said: set[str] = set()  # each unreadable-image problem is logged once, not per frame
        self.scenarios: dict[str, ProximityScenario] = {}
        self.infos: dict[str, CameraInfo] = {}  # episode -> its camera info (intrinsics)
        self.frames: deque[tuple[str, int, np.ndarray]] = deque()  # in arrival (= step) order
        self.episode = ""
        self.core: DetectorCore | None = None
        self.gating = GatingLink(self)  # hello until the first frame, then acks
        self.estimate_pub = self.create_publisher(ProximityEstimate, "proximity/estimate", EVENTS)
        # Sorting runs only: the nearest point of the person, for the safe-pose transition's "away from them".
        self.nearest_pub = self.create_publisher(PointStamped, "proximity/nearest", EVENTS)
        self.sorting = False
        self.create_subscription(SuiteRequest, "suite/request", self._on_request, EVENTS)
        self.create_subscription(CameraInfo, "camera/depth/camera_info", self._on_info, IMAGES)
        self.create_subscription(Image, "camera/depth/image_raw", self._on_depth, IMAGES)
        # The bridge checks each gating consumer's step-stream reader; the frames drive the acks.
        self.create_subscription(StepBatch, "robot/step_batch", lambda _m: None, STEP_STREAM)

    def _on_request(self, msg: SuiteRequest) -> None:
        if msg.suite == SUITE:
            self.scenarios[msg.episode_id] = scenario_from_json(msg.scenario_json)
            self._process()

    def _say_once(self, line: str) -> None:
        """A camera that sends what the node cannot use sends it every frame: one line, not one per frame."""
        if line not in self.said:
            self.said.add(line)
            self.get_logger().error(line)

    def _tag(self, msg: CameraInfo | Image, what: str) -> tuple[str, int] | None:
        try:
            return parse_frame_tag(msg.header.frame_id)
        except ValueError as err:  # a live driver's frame_id: no episode and step to key on
            self._say_once(f"{what}: {err} (expected <frame>;episode=<id>;step=<k>): dropped")
            return None

    def _on_info(self, msg: CameraInfo) -> None:
        if (tag := self._tag(msg, "camera info")) is not None:
            self.infos.setdefault(tag[0], msg)
            self._process()

    def _on_depth(self, msg: Image) -> None:
        self.gating.streaming()
        try:
            depth = image_metres(msg)
        except DepthImageError as err:
            self._say_once(f"{err}: frames dropped")
            return
        if (tag := self._tag(msg, "depth image")) is not None:
            self.frames.append((*tag, depth))
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
                self.sorting = self.scenarios[episode].task is not None
                self.core = DetectorCore(
                    camera_info_from_k(info.width, info.height, info.k, self.pose), self.scenarios[episode].policy
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
                if self.sorting:  # before the ack, like the estimate: the executive waits for both
                    x, y, z = d.nearest if d.nearest is not None else (math.nan, math.nan, math.nan)
                    msg = PointStamped(point=Point(x=float(x), y=float(y), z=float(z)))
                    msg.header.frame_id = frame_tag(episode, step)
                    self.nearest_pub.publish(msg)
            self.gating.ack(episode, self.core.ack_step)


def main(args: list[str] | None = None) -> int:
    return run_node(ProximityDetectorNode, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
