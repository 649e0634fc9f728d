"""What a viewer reads (Foxglove, RViz): /robot_description, /tf, /tf_static and the scene's
MarkerArray, from core/viz's plain data; and the publisher of the robot's frames that every
simulated robot (the sim_bridge family, the standard arm) shares."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from builtin_interfaces.msg import Duration, Time
from geometry_msgs.msg import Point, TransformStamped
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage
from visualization_msgs.msg import Marker, MarkerArray

from alpha_matrix.core.sim.camera_model import CellCamera
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.viz.frames import RobotFrames, Transform, world_frames
from alpha_matrix.core.viz.markers import MarkerSpec
from alpha_matrix.ros.qos import LATCHED

TF = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)


def tf_message(transforms: Iterable[Transform], stamp: Time) -> TFMessage:
    out = []
    for t in transforms:
        m = TransformStamped()
        m.header.stamp, m.header.frame_id, m.child_frame_id = stamp, t.parent, t.child
        m.transform.translation.x, m.transform.translation.y, m.transform.translation.z = t.translation
        r = m.transform.rotation
        r.x, r.y, r.z, r.w = t.rotation
        out.append(m)
    return TFMessage(transforms=out)


def marker(spec: MarkerSpec, stamp: Time) -> Marker:
    m = Marker(ns=spec.ns, id=spec.id, type=getattr(Marker, spec.kind), action=getattr(Marker, spec.action))
    m.header.stamp, m.header.frame_id = stamp, spec.frame
    p, o = m.pose.position, m.pose.orientation
    p.x, p.y, p.z = spec.position
    o.x, o.y, o.z, o.w = spec.orientation
    m.scale.x, m.scale.y, m.scale.z = spec.scale
    m.color.r, m.color.g, m.color.b, m.color.a = spec.rgba
    m.text = spec.text
    m.points = [Point(x=x, y=y, z=z) for x, y, z in spec.points]
    m.lifetime = Duration()  # until replaced or deleted
    m.frame_locked = spec.frame_locked
    return m


def marker_array(specs: Sequence[MarkerSpec], stamp: Time) -> MarkerArray:
    return MarkerArray(markers=[marker(s, stamp) for s in specs])


class RobotFramesPublisher:
    """/robot_description and /tf_static once (transient local), /tf from joint positions, the
    latter only while someone subscribes (as the bridge's /clock and joint_states)."""

    def __init__(
        self, node: Node, urdf: str, config: WorldConfig, camera: CellCamera | None = None, description: bool = True
    ) -> None:
        """``description``: False where the node already publishes /robot_description itself."""
        self.node = node
        self.frames = RobotFrames(urdf)
        self.tf = node.create_publisher(TFMessage, "/tf", TF)
        self.static = node.create_publisher(TFMessage, "/tf_static", LATCHED)
        if description:
            self.description = node.create_publisher(String, "/robot_description", LATCHED)
            self.description.publish(String(data=urdf))
        stamp = node.get_clock().now().to_msg()
        self.static.publish(tf_message([*world_frames(config, self.frames.root, camera), *self.frames.static()], stamp))

    def publish(
        self,
        names: Sequence[str],
        positions: Sequence[float],
        extra: Sequence[Transform] = (),
        stamp: Time | None = None,
    ) -> None:
        """The moving frames at ``positions`` (and ``extra``), stamped ``stamp`` or now."""
        if not self.tf.get_subscription_count():
            return
        stamp = stamp if stamp is not None else self.node.get_clock().now().to_msg()
        self.tf.publish(tf_message([*self.frames.moving_transforms(names, positions), *extra], stamp))
