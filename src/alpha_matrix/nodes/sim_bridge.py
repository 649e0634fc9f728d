"""sim_bridge: the PyBullet world behind the robot driver contract.

A real robot driver replaces this node by serving the same topics and services (README,
"Driver contract"). The loop below owns the physics: it drains requests, then steps while
a command runs and the lookahead gate allows, publishing every step in StepBatch messages.
The driver's decisions are core/robot/driver.py's, the loop's core/robot/stepping.py's. With a
screened monitor (core/robot/gate.py), it screens each step as the monitor does and waits for
the monitor only from a flagged step on.
"""

from __future__ import annotations

import math
import time

import rclpy
from alpha_matrix_interfaces.msg import StepAck
from alpha_matrix_interfaces.srv import Disturb, Gripper, Hold, MoveTo, Observe, ProtectiveStop, Reset
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.driver import CommandEvent, DriverCore
from alpha_matrix.core.robot.gate import LookaheadGate
from alpha_matrix.core.robot.loop_timing import LoopTiming
from alpha_matrix.core.robot.params import SimBridgeParams
from alpha_matrix.core.robot.stepping import StepBuffer, StepPacer, names_by_id
from alpha_matrix.core.safety.engine import SafetyConfig
from alpha_matrix.core.safety.stream import StepScreen
from alpha_matrix.core.sim.camera_model import CellCamera
from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.core.sim.timed_world import TimedWorld, timing_line
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.standard_arm.arm import panda_urdf_text
from alpha_matrix.core.viz.frames import Transform
from alpha_matrix.ros.bridge_msgs import BridgePublishers
from alpha_matrix.ros.convert import copy_fields, object_states, vec3
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import STREAM
from alpha_matrix.ros.spin import Drain, spin_events
from alpha_matrix.ros.viz_msgs import RobotFramesPublisher


class SimBridge(Node):
    camera: CellCamera | None = None  # a scene's camera, whose optical frame goes on /tf_static

    def __init__(self) -> None:
        super().__init__("sim_bridge")
        p = self.params = declare_params(self, SimBridgeParams)
        self.world = (TimedWorld if p.time_physics else World)(WorldConfig())
        self._timed = self.world if isinstance(self.world, TimedWorld) else None
        self._loop = LoopTiming(p.time_physics)
        self.dt = self.world.config.timestep
        self.core = DriverCore(self.world, p.reaction_latency_steps, p.max_episode_steps, p.reach_tolerance)
        self.gate = LookaheadGate(p.gating_consumers, p.reaction_latency_steps, p.gate_windows(), p.screened())
        self.buffer = StepBuffer(p.batch_steps, p.calm_steps())
        self._screen = (
            StepScreen(self.world.joint_names, SafetyConfig(contact_threshold=p.screen_contact_threshold))
            if self.gate.screening
            else None
        )
        self._fault = ""  # set in a callback, raised by the loop: the lookahead guarantee is broken
        self._ready = not p.gating_consumers
        self._body_names = names_by_id(self.world.body_names)
        self.pubs = BridgePublishers(self, self.dt)
        # For viewers (Foxglove, RViz): the URDF, the fixed frames, and the links at every batch's end.
        self.viz = RobotFramesPublisher(self, panda_urdf_text(), self.world.config, self.camera)
        self.drain = Drain()  # callbacks run between physics steps, without blocking
        self.create_subscription(StepAck, "robot/step_ack", self.drain.counted(self._on_ack), STREAM)
        for srv, name, callback in (
            (Reset, "robot/reset", self._on_reset), (MoveTo, "robot/move_to", self._on_move_to),
            (Gripper, "robot/gripper", self._on_gripper), (Hold, "robot/hold", self._on_hold),
            (ProtectiveStop, "robot/protective_stop", self._on_stop), (Observe, "robot/observe", self._on_observe),
            (Disturb, "sim/disturb", self._on_disturb),
        ):  # fmt: skip
            self.create_service(srv, name, self.drain.counted(callback))
        self.get_logger().info(
            f"ready: batch {p.batch_steps} steps, reaction latency {p.reaction_latency_steps} steps, "
            f"gating consumers {p.gating_consumers or 'none'}"
            + (f" ({', '.join(p.flow_consumers)} within {p.flow_window_steps} steps)" if p.flow_consumers else "")
            + (
                f"; screened for {', '.join(p.screened())} (contact threshold {p.screen_contact_threshold:g} N), "
                f"{p.calm_steps() or p.batch_steps} steps a batch while the screen flags nothing"
                if p.screened()
                else ""
            )
        )

    def _consumers_subscribed(self) -> bool:
        """Every gating consumer said hello and its own step-stream reader is in the graph: by
        name, since other nodes (the chaos node, a test probe) read the stream too."""
        if not self.gate.all_heard():
            return False
        readers = {i.node_name for i in self.get_subscriptions_info_by_topic(self.pubs.batch.topic_name)}
        return set(self.gate.consumers) <= readers

    # -- service and topic callbacks: fast, they only talk to the core ------------------
    def _on_reset(self, req: Reset.Request, res: Reset.Response) -> Reset.Response:
        self._flush()
        if self._timed is not None and self._timed.steps:
            self.get_logger().info(timing_line(self._timed.take_timing()))
            self.get_logger().info(self._loop.take_line())
        reply, events = self.core.reset(req.episode_id, req.seed, req.settle_steps)
        self.gate.new_episode()
        self.buffer.new_episode()
        self._body_names = names_by_id(self.world.body_names)  # block body ids change at every reset
        self._publish_events(events)
        return copy_fields(res, reply, "accepted", "command_id", "message")

    def _on_move_to(self, req: MoveTo.Request, res: MoveTo.Response) -> MoveTo.Response:
        r = self.core.move_to(vec3(req.target), req.steps, req.validate_only)
        return copy_fields(res, r, "accepted", "command_id", "reach_error", "message")

    def _on_gripper(self, req: Gripper.Request, res: Gripper.Response) -> Gripper.Response:
        return copy_fields(
            res, self.core.gripper(req.width, req.max_effort, req.steps), "accepted", "command_id", "message"
        )

    def _on_hold(self, req: Hold.Request, res: Hold.Response) -> Hold.Response:
        return copy_fields(res, self.core.hold(req.steps), "accepted", "command_id", "message")

    def _on_stop(self, req: ProtectiveStop.Request, res: ProtectiveStop.Response) -> ProtectiveStop.Response:
        consumer = req.requester.split(":", 1)[0]  # <consumer>:<source> counts as the consumer's
        self.gate.request_received(consumer)
        if req.episode_id == self.core.episode_id and not self.gate.decided_where_flagged(consumer, req.decision_step):
            self._fault = (
                f"{consumer} decided at step {req.decision_step}, a step this bridge's safety screen had cleared "
                f"(contact threshold {self.params.screen_contact_threshold:g} N): the screens disagree, so a stop "
                "could land late; --set sim_bridge.screened_consumers=[] waits for the monitor's ack of every batch"
            )
        r = self.core.protective_stop(req.episode_id, req.engage, req.decision_step, req.requester, req.reason)
        if not r.accepted:
            self.get_logger().warning(f"protective stop request from {req.requester!r} refused: {r.message}")
        return copy_fields(res, r, "accepted", "apply_step", "message")

    def _on_observe(self, req: Observe.Request, res: Observe.Response) -> Observe.Response:
        res.step, res.objects = self.world.step_count, object_states(self.world.object_poses())
        return res

    def _on_disturb(self, req: Disturb.Request, res: Disturb.Response) -> Disturb.Response:
        return copy_fields(res, self.core.disturb(req.object, req.dx, req.dy, req.at_step), "accepted", "message")

    def _on_ack(self, msg: StepAck) -> None:
        self.gate.hello(msg.consumer)
        if msg.episode_id == self.core.episode_id:
            self.gate.ack(msg.consumer, msg.step, msg.requests_issued)

    # -- publishing ----------------------------------------------------------------------
    def _flush(self) -> None:
        """Publish the buffered steps (the batch ends where core/robot/stepping.StepBuffer says)."""
        if samples := self.buffer.take():
            t0 = self._loop.start()
            ack = bool(self.gate.consumers)
            self.pubs.steps(self.core.episode_id, samples, self.world, self._body_names, ack)
            self.viz.publish(self.world.joint_names, samples[-1].joint_positions, self._scene_frames())
            self._loop.add("publish", t0)

    def _publish_events(self, events: list[CommandEvent]) -> None:
        self.pubs.events(self.core.episode_id, events, self.world, self.buffer.last)

    # -- the loop -----------------------------------------------------------------------
    def run(self, executor: rclpy.executors.Executor) -> None:
        pacer = StepPacer(self.dt, self.params.realtime, self.params.ack_timeout_s)
        gated = bool(self.gate.consumers)
        while rclpy.ok():  # once per batch, not per step: it takes a lock in rclpy's context
            if self._fault:
                raise AlphaMatrixError(self._fault)
            # Ungated, the loop drains callbacks once per batch (draining costs as much as a few
            # physics steps; an empty spin ~85 us). Gated, it never does: the horizon moves only
            # when an ack is taken, so the gate holds the loop, and the executor spins, at least
            # every reaction-latency steps; requests and acks wait no longer than that.
            if not gated and not self.buffer.samples:
                t0 = self._loop.start()
                self.drain(executor)
                self._loop.add("requests", t0)
            if not self.core.has_work():
                self._flush()
                t0 = self._loop.start()
                executor.spin_once(timeout_sec=0.1)
                self._loop.add("requests", t0)
                pacer.idle(self.world.step_count)
                continue
            nxt = self.world.step_count + 1
            if not self._ready:  # latched once every gating consumer has acked and its reader is known
                self._ready = self._consumers_subscribed()
            if not self._ready or not self.gate.allows(nxt):
                pacer.blocked(nxt, self.gate)
                t0 = self._loop.start()
                executor.spin_once(timeout_sec=0.05)
                self._loop.add("gate", t0)
                continue
            self._run_steps(pacer, self.gate.horizon())

    def _run_steps(self, pacer: StepPacer, horizon: int | None) -> None:
        """Step until the batch ends, the gate's horizon is reached or the work runs out. Nothing
        between two steps can move the horizon: acks and requests reach the gate only in the
        executor's callbacks, which run on this thread between batches."""
        last = math.inf if horizon is None else horizon
        if self._timed is not None:  # the loop published, waited or served requests since the last step
            self._timed.resume()
        screen = self._screen
        while True:
            nxt = self.world.step_count + 1
            if (delay := pacer.delay_before(nxt)) > 0:
                time.sleep(delay)
            sample, events = self.core.step()
            self._after_step(sample)
            clean = True
            if screen is not None:
                clean = screen.clean(sample)
                self.gate.screen(nxt, clean)
            if self.buffer.add(sample, events, clean):
                self._flush()
                self._publish_events(events)
                return
            if not self.core.has_work():
                return
            if nxt >= last and (screen is None or nxt >= (last := self.gate.horizon() or 0)):
                return  # screened steps may have moved the horizon on

    def _scene_frames(self) -> list[Transform]:
        """Hook for subclasses: the scene's moving frames besides the robot's (a person)."""
        return []

    def _after_step(self, sample: StepSample) -> None:
        """Hook for subclasses (scene add-ons: a camera, a person), after each physics step and
        before its sample is buffered. The default bridge does nothing here."""


def main(args: list[str] | None = None) -> int:
    return run_node(SimBridge, spin_events, args)


if __name__ == "__main__":
    raise SystemExit(main())
