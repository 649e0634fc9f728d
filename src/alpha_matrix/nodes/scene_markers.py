"""scene_markers: the scene as markers for Foxglove and RViz, beside any driver.

It reads what the graph already publishes (robot/step_batch, safety/events, suite/request,
sim/proximity_truth), decides nothing and gates nothing (not a gating consumer: the bridge never
waits for it), and publishes:

* ``scene/markers`` (visualization_msgs/MarkerArray): the table, the workspace box, the place zone,
  every object where the batch left it (a suite item's bodies with their shapes and colours), the
  person (in the ``person`` frame the simulated bridge publishes), and each safety event and stop
  where it happened (core/viz/markers.py builds them);
* ``scene/robot`` (MarkerArray, transient local, once per /robot_description): the robot's links as
  boxes and cylinders locked to their TF frames (core/viz/robot_shapes.py), for a viewer that
  cannot load the URDF's meshes (Foxglove's web app, a bag opened on another machine);
* ``scene/contact_force`` and ``scene/contact_threshold`` (std_msgs/Float64, per batch: the batch's
  largest contact force, N, and the monitor's threshold), ``scene/person_distance`` and
  ``scene/person_limit`` (m, per truth batch while a person is in the cell): what a plot needs.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from alpha_matrix_interfaces.msg import CommandStatus, ProximityTruth, SafetyEvent, StepBatch, SuiteRequest
from rclpy.node import Node
from std_msgs.msg import Float64, String
from visualization_msgs.msg import MarkerArray

from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.viz import markers as mk
from alpha_matrix.core.viz.params import SceneMarkersParams
from alpha_matrix.core.viz.robot_shapes import link_shapes, mesh_root_of
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, LATCHED, STREAM
from alpha_matrix.ros.viz_msgs import marker_array


class SceneMarkers(Node):
    def __init__(self) -> None:
        super().__init__("scene_markers")
        self.params = declare_params(self, SceneMarkersParams)
        self.config = WorldConfig()
        self.shapes = mk.SceneShapes(self.config)
        self.static = mk.static_scene(self.config)
        self.episode = ""
        self.grasp: tuple[float, float, float] = self.config.zone
        self.events: list[mk.SceneEvent] = []
        self.person = False
        self.stopped = False
        self.requests: dict[str, Any] = {}  # episode -> its suite item (JSON)
        self.limit: float | None = None
        self.scenes: dict[str, Any] = {}  # suite -> its item's bodies; loaded before the publishers exist, so the
        if self.params.item_bodies:  # graph waits for it (a first import takes seconds: markers would lag behind)
            from alpha_matrix.nodes.scene_bridge import SCENES  # noqa: PLC0415 - the simulator's modules, only here

            self.scenes = dict(SCENES)
        self.pub = self.create_publisher(MarkerArray, "scene/markers", 10)
        self.force = self.create_publisher(Float64, "scene/contact_force", 10)
        self.threshold = self.create_publisher(Float64, "scene/contact_threshold", 10)
        self.distance = self.create_publisher(Float64, "scene/person_distance", 10)
        self.distance_limit = self.create_publisher(Float64, "scene/person_limit", 10)
        self.robot = self.create_publisher(MarkerArray, "scene/robot", LATCHED)
        self.create_subscription(String, "/robot_description", self._on_description, LATCHED)
        self.create_subscription(StepBatch, "robot/step_batch", self._on_batch, STREAM)
        self.create_subscription(SafetyEvent, "safety/events", self._on_event, EVENTS)
        self.create_subscription(CommandStatus, "robot/command_status", self._on_status, EVENTS)
        self.create_subscription(SuiteRequest, "suite/request", self._on_request, EVENTS)
        self.create_subscription(ProximityTruth, "sim/proximity_truth", self._on_truth, EVENTS)

    def _on_description(self, msg: String) -> None:
        try:
            shapes, skipped = link_shapes(msg.data, mesh_root_of(self.params.mesh_root))
        except ET.ParseError as err:
            self.get_logger().warning(f"/robot_description is not XML ({err}): no robot on scene/robot")
            shapes, skipped = [], []  # an empty array says so: a recorder waiting for the robot's markers goes on
        for line in skipped:
            self.get_logger().warning(f"scene/robot leaves out {line}")
        self.robot.publish(marker_array(mk.robot(shapes), self.get_clock().now().to_msg()))

    def _on_request(self, msg: SuiteRequest) -> None:
        try:
            item = json.loads(msg.scenario_json)
        except ValueError:
            return
        self.requests[msg.episode_id] = (msg.suite, item)

    def _new_episode(self, episode: str) -> None:
        self.episode, self.events, self.person, self.stopped, self.limit = episode, [], False, False, None
        suite, item = self.requests.pop(episode, ("", {}))
        self.shapes.set_bodies(())
        if scene := self.scenes.get(suite):
            try:
                self.shapes.set_bodies(scene(item))
            except (TypeError, ValueError, KeyError):
                pass  # the executive reports a malformed item; the objects are drawn as blocks
        if isinstance(item, dict):
            self.limit = mk.proximity_limit(item)

    def _on_batch(self, msg: StepBatch) -> None:
        fresh = msg.episode_id != self.episode
        if fresh:
            self._new_episode(msg.episode_id)
        if len(msg.grasp_positions) >= 3:
            self.grasp = tuple(float(v) for v in msg.grasp_positions[-3:])  # type: ignore[assignment]
        poses = {
            o.name: (
                (o.pose.position.x, o.pose.position.y, o.pose.position.z),
                (o.pose.orientation.x, o.pose.orientation.y, o.pose.orientation.z, o.pose.orientation.w),
            )
            for o in msg.objects
        }
        specs = [mk.DELETE_ALL] * fresh + self.static + mk.objects(poses, self.shapes)
        specs += [mk.person()] * self.person + mk.event_markers(self.events)
        self.pub.publish(marker_array(specs, self.get_clock().now().to_msg()))
        self.force.publish(Float64(data=mk.max_contact_force(list(msg.contact_force))))
        self.threshold.publish(Float64(data=self.params.contact_threshold))

    def _on_event(self, msg: SafetyEvent) -> None:
        if msg.episode_id != self.episode or msg.closed:
            return
        mk.add_event(
            self.events,
            mk.SceneEvent(
                msg.kind, msg.key, int(msg.start_step), self.grasp, float(msg.peak),
                msg.severity == "critical", bool(msg.stop_requested),
            )
        )  # fmt: skip

    def _on_status(self, msg: CommandStatus) -> None:
        if msg.episode_id != self.episode or msg.state != CommandStatus.CANCELLED:
            return
        g = msg.grasp_position
        if (stop := mk.stop_event(msg.message, int(msg.end_step), (g.x, g.y, g.z))) is not None:
            mk.add_event(self.events, stop)

    def _on_truth(self, msg: ProximityTruth) -> None:
        if msg.episode_id != self.episode:
            return
        d = mk.nearest(list(msg.distance))
        self.person = d is not None
        if d is not None:
            self.distance.publish(Float64(data=d))
            if self.limit is not None:
                self.distance_limit.publish(Float64(data=self.limit))
        for i, stopped in enumerate(msg.stopped):
            if stopped and not self.stopped:
                mk.add_event(
                    self.events, mk.SceneEvent("stop", "protective", int(msg.first_step) + i, self.grasp, stop=True)
                )
            self.stopped = bool(stopped)


def main(args: list[str] | None = None) -> int:
    return run_node(SceneMarkers, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
