"""proximity_bridge: sim_bridge with the overhead RGB-D camera and a walking person.

The driver contract is unchanged. Added, through the bridge's ``_after_step`` hook (the scene
itself is core/suites/proximity/bridge_scene.py's):

* the camera (core/sim/camera.py, mount from camera_model.CELL_CAMERA) renders every 24th step
  (10 Hz) and publishes ``camera/depth/image_raw`` (``depth_encoding``: 32FC1, metres, 0 = no
  return; or 16UC1 as realsense2_camera publishes it, millimetres rounded to the nearest, 0 = no
  return, at most 65535: core/depth_image.millimetres),
  ``camera/depth/camera_info`` and, with ``publish_rgb``, ``camera/color/image_raw`` (rgb8; the
  colour image costs a full render of the world, so it is rendered only while a subscriber is
  matched: by default nothing reads it, the recorder does not record it), stamped with the step's sim time; ``header.frame_id`` is the frame tag
  (core/proximity_graph.frame_tag: optical frame, episode, step);
* the person of the episode (``sim/set_human``, configured before its reset) enters after
  ``start_step`` and walks the path, a pure function of the step (core/sim/human.py);
* ``sim/proximity_truth`` (sim only, for scoring): per step, the true distance, whether the
  person is in view, and whether a protective stop was in effect. Published with each StepBatch.
"""

from __future__ import annotations

from alpha_matrix_interfaces.msg import ProximityTruth
from alpha_matrix_interfaces.srv import Reset, SetHuman
from sensor_msgs.msg import CameraInfo, Image

from alpha_matrix.core.depth_image import ENCODINGS, millimetres
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.sim.camera import Frame
from alpha_matrix.core.sim.camera_model import CELL_CAMERA
from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.core.suites.proximity.bridge_scene import ProximityScene
from alpha_matrix.core.suites.proximity.params import ProximityBridgeParams
from alpha_matrix.core.suites.proximity.run import frame_tag
from alpha_matrix.core.viz.frames import Transform, person_frame
from alpha_matrix.nodes.sim_bridge import SimBridge
from alpha_matrix.ros.bridge_msgs import sim_time
from alpha_matrix.ros.images import camera_info, image
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_fields
from alpha_matrix.ros.qos import EVENTS, IMAGES
from alpha_matrix.ros.spin import spin_events


class ProximityBridge(SimBridge):
    camera = CELL_CAMERA

    def __init__(self) -> None:
        super().__init__()
        extra = declare_fields(self, ProximityBridgeParams, ("publish_rgb", "depth_encoding"))
        self.publish_rgb, self.depth_encoding = bool(extra["publish_rgb"]), str(extra["depth_encoding"])
        if self.depth_encoding not in ENCODINGS:  # launched by hand: the graph's resolver checks it first
            raise AlphaMatrixError(f"parameter depth_encoding: {self.depth_encoding!r}, expected 32FC1 or 16UC1")
        self.scene = ProximityScene(self.world, rgb=False)
        self.depth_pub = self.create_publisher(Image, "camera/depth/image_raw", IMAGES)
        self.info_pub = self.create_publisher(CameraInfo, "camera/depth/camera_info", IMAGES)
        self.rgb_pub = self.create_publisher(Image, "camera/color/image_raw", IMAGES)
        self.truth_pub = self.create_publisher(ProximityTruth, "sim/proximity_truth", EVENTS)
        self.create_service(SetHuman, "sim/set_human", self.drain.counted(self._on_set_human))

    def _on_set_human(self, req: SetHuman.Request, res: SetHuman.Response) -> SetHuman.Response:
        why = self.scene.configure(req.episode_id, req)
        res.accepted, res.message = not why, why or "configured"
        return res

    def _on_reset(self, req: Reset.Request, res: Reset.Response) -> Reset.Response:
        self.scene.before_reset()
        res = super()._on_reset(req, res)
        self.scene.after_reset(req.episode_id)
        return res

    def _after_step(self, sample: StepSample) -> None:
        if self.publish_rgb and self.scene.camera.due(sample.step):
            self.scene.rgb = self.rgb_pub.get_subscription_count() > 0
        if (frame := self.scene.after_step(sample.step)) is not None:
            self._publish_frame(sample.step, frame)

    def _scene_frames(self) -> list[Transform]:
        human = self.scene.human
        state = getattr(human, "state", None)
        return [person_frame(state.x, state.y, state.heading)] if state is not None else []

    def _publish_frame(self, s: int, frame: Frame) -> None:
        stamp, tag = sim_time(s, self.dt), frame_tag(self.core.episode_id, s)
        self.info_pub.publish(camera_info(frame, stamp, tag))
        depth = millimetres(frame.depth) if self.depth_encoding == "16UC1" else frame.depth
        self.depth_pub.publish(image(depth, self.depth_encoding, stamp, tag))
        if frame.rgb is not None:
            self.rgb_pub.publish(image(frame.rgb, "rgb8", stamp, tag))

    def _flush(self) -> None:
        super()._flush()
        if rows := self.scene.take_truth():
            self.truth_pub.publish(
                ProximityTruth(
                    episode_id=self.scene.truth_episode, first_step=rows[0][0], distance=[r[1] for r in rows],
                    in_view=[r[2] for r in rows], stopped=[r[3] for r in rows],
                )
            )  # fmt: skip

    def destroy_node(self) -> None:
        self.scene.close()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    return run_node(ProximityBridge, spin_events, args)


if __name__ == "__main__":
    raise SystemExit(main())
