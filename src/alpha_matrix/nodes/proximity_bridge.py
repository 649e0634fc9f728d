"""proximity_bridge: sim_bridge with the overhead RGB-D camera and a walking person.

The driver contract is unchanged. Added, through the bridge's ``_after_step`` hook:

* the camera (core/sim/camera.py, mount from camera_model.CELL_CAMERA) renders every 24th step
  (10 Hz) and publishes ``camera/depth/image_raw`` (32FC1, metres, 0 = no return),
  ``camera/depth/camera_info`` and, with ``publish_rgb``, ``camera/color/image_raw`` (rgb8),
  stamped with the step's sim time; ``header.frame_id`` is the frame tag
  (core/proximity_graph.frame_tag: optical frame, episode, step);
* the person of the episode (``sim/set_human``, configured before its reset) enters after
  ``start_step`` and walks the path, a pure function of the step (core/sim/human.py);
* ``sim/proximity_truth`` (sim only, for scoring): per step, the true distance, whether the
  person is in view, and whether a protective stop was in effect. Published with each StepBatch.

Images and truth are deterministic: the scene is a function of the commands and the steps,
and the sensor noise of frame k is drawn from (path name, seed, k).
"""

from __future__ import annotations

import json
import math

import numpy as np
from alpha_matrix_interfaces.msg import ProximityTruth
from alpha_matrix_interfaces.srv import Reset, SetHuman
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.qos import QoSProfile
from sensor_msgs.msg import CameraInfo, Image

from alpha_matrix.core.config import ProximityBridgeParams
from alpha_matrix.core.seeds import rng
from alpha_matrix.core.sim.camera import LIGHTING, Camera, CameraConfig, Frame
from alpha_matrix.core.sim.camera_model import in_view
from alpha_matrix.core.sim.human import Human, HumanPath
from alpha_matrix.core.sim.world import StepSample
from alpha_matrix.core.suites.proximity.run import frame_tag
from alpha_matrix.core.suites.proximity.scenarios import VIEW_HEIGHTS
from alpha_matrix.nodes.sim_bridge import SimBridge, _spin, sim_time
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.qos import EVENTS, STREAM

IMAGES = 64  # frames of history per image topic (6.4 s): the gate keeps the detector within 2


class ProximityBridge(SimBridge):
    def __init__(self) -> None:
        super().__init__()
        info = ProximityBridgeParams.model_fields["publish_rgb"]
        self.declare_parameter("publish_rgb", info.default, ParameterDescriptor(description=info.description or ""))
        self.publish_rgb = bool(self.get_parameter("publish_rgb").value)
        self.camera = Camera(self.world.client_id, CameraConfig())
        self.human: Human | None = None
        self.scenes: dict[str, SetHuman.Request] = {}
        self.scene: SetHuman.Request | None = None
        self._truth: list[tuple[int, float, bool, bool]] = []
        self._truth_episode = ""
        self.depth_pub = self.create_publisher(Image, "camera/depth/image_raw", _images())
        self.info_pub = self.create_publisher(CameraInfo, "camera/depth/camera_info", _images())
        self.rgb_pub = self.create_publisher(Image, "camera/color/image_raw", _images())
        self.truth_pub = self.create_publisher(ProximityTruth, "sim/proximity_truth", EVENTS)
        self.create_service(SetHuman, "sim/set_human", self._on_set_human)

    def _on_set_human(self, req: SetHuman.Request, res: SetHuman.Response) -> SetHuman.Response:
        self.handled += 1
        try:
            HumanPath(**json.loads(req.path_json))
            if req.lighting not in LIGHTING:
                raise ValueError(f"unknown lighting {req.lighting!r}")
        except (TypeError, ValueError) as err:
            res.accepted, res.message = False, f"bad person: {err}"
            return res
        self.scenes[req.episode_id] = req
        res.accepted, res.message = True, "configured"
        return res

    def _on_reset(self, req: Reset.Request, res: Reset.Response) -> Reset.Response:
        if self.human is not None:  # remove the last episode's person before the scene is rebuilt
            self.human.close()
            self.human = None
        res = super()._on_reset(req, res)
        self.scene = self.scenes.pop(req.episode_id, None)
        self._truth_episode = req.episode_id
        return res

    # -- every physics step ---------------------------------------------------------------
    def _after_step(self, sample: StepSample) -> None:
        s, sc, human = sample.step, self.scene, self.human
        gt, seen = math.inf, False
        if human is not None and sc is not None:
            st = human.pose_kinematics(s - sc.start_step)
            gt = human.ground_truth_distance()
            pts = np.array([[st.x, st.y, h] for h in VIEW_HEIGHTS])
            seen = bool(np.all(in_view(self.camera.info, pts, self.camera.config.far)))
        self._truth.append((s, gt, seen, self.world.stopped))
        if self.camera.due(s):
            self._publish_frame(s)
        if sc is not None and human is None and s >= sc.start_step:  # enters after the frame of start_step
            self.human = Human(self.world, HumanPath(**json.loads(sc.path_json)))  # posed at t = 0

    def _publish_frame(self, s: int) -> None:
        sc, human = self.scene, self.human
        if sc is None:
            noise, light = rng("proximity", "frame", "", 0, s), LIGHTING["default"]
        elif human is None:  # the empty cell while the robot settles: the detector's reference
            noise, light = rng("proximity", "reference", sc.name, sc.seed, s), LIGHTING[sc.lighting]
        else:
            k = s - sc.start_step
            human.set_step(k)
            noise, light = rng("proximity", "frame", sc.name, sc.seed, k), LIGHTING[sc.lighting]
        frame = self.camera.render(s, noise, light)
        stamp, tag = sim_time(s, self.dt), frame_tag(self.core.episode_id, s)
        self.info_pub.publish(_camera_info(frame, stamp, tag))
        self.depth_pub.publish(_image(frame.depth, "32FC1", stamp, tag))
        if self.publish_rgb:
            self.rgb_pub.publish(_image(frame.rgb, "rgb8", stamp, tag))

    def _flush(self) -> None:
        super()._flush()
        if not self._truth:
            return
        rows, self._truth = self._truth, []
        self.truth_pub.publish(
            ProximityTruth(
                episode_id=self._truth_episode,
                first_step=rows[0][0],
                distance=[r[1] for r in rows],
                in_view=[r[2] for r in rows],
                stopped=[r[3] for r in rows],
            )
        )

    def destroy_node(self) -> None:
        if self.human is not None:
            self.human.close()
        super().destroy_node()


def _images() -> QoSProfile:
    return QoSProfile(depth=IMAGES, reliability=STREAM.reliability, history=STREAM.history)


def _image(data: np.ndarray, encoding: str, stamp, tag: str) -> Image:  # noqa: ANN001
    msg = Image(height=data.shape[0], width=data.shape[1], encoding=encoding, is_bigendian=0)
    msg.header.stamp, msg.header.frame_id = stamp, tag
    arr = np.ascontiguousarray(data)
    msg.step = arr.strides[0]
    msg.data = arr.tobytes()
    return msg


def _camera_info(frame: Frame, stamp, tag: str) -> CameraInfo:  # noqa: ANN001
    i = frame.info
    msg = CameraInfo(height=i.height, width=i.width, distortion_model="plumb_bob")
    msg.header.stamp, msg.header.frame_id = stamp, tag
    msg.d = [0.0] * 5
    msg.k = [i.fx, 0.0, i.cx, 0.0, i.fy, i.cy, 0.0, 0.0, 1.0]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.p = [i.fx, 0.0, i.cx, 0.0, 0.0, i.fy, i.cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    return msg


def main(args: list[str] | None = None) -> int:
    return run_node(ProximityBridge, _spin, args)


if __name__ == "__main__":
    raise SystemExit(main())
