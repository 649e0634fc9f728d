"""sim_bridge: the PyBullet world behind the robot driver contract.

A real robot driver replaces this node by serving the same topics and services (README,
"Driver contract"). The loop below owns the physics: it drains requests, then steps while
a command runs and the lookahead gate allows, publishing every step in StepBatch messages.
"""

from __future__ import annotations

import array
import time

import numpy as np
import rclpy
from alpha_matrix_interfaces.msg import CommandStatus, StepAck, StepBatch
from alpha_matrix_interfaces.srv import Disturb, Gripper, Hold, MoveTo, Observe, ProtectiveStop, Reset
from builtin_interfaces.msg import Time
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from alpha_matrix.core.config import SimBridgeParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.driver import CommandEvent, DriverCore
from alpha_matrix.core.robot.gate import LookaheadGate
from alpha_matrix.core.sim.world import StepSample, World, WorldConfig
from alpha_matrix.ros.convert import object_states, point, vec3
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, STEP_STREAM, STREAM


def sim_time(step: int, dt: float) -> Time:
    ns = round(step * dt * 1e9)
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


class SimBridge(Node):
    def __init__(self) -> None:
        super().__init__("sim_bridge")
        self.params = declare_params(self, SimBridgeParams)
        p = self.params
        self.world = World(WorldConfig())
        self.dt = self.world.config.timestep
        self.core = DriverCore(self.world, p.reaction_latency_steps, p.max_episode_steps, p.reach_tolerance)
        self.gate = LookaheadGate(p.gating_consumers, p.reaction_latency_steps)
        self._buffer: list[StepSample] = []
        self._last: StepSample | None = None
        self._ready = not p.gating_consumers
        self._body_names = self._names_by_id()

        self.clock_pub = self.create_publisher(Clock, "/clock", 10)
        self.joint_pub = self.create_publisher(JointState, "joint_states", 10)
        self.batch_pub = self.create_publisher(StepBatch, "robot/step_batch", STEP_STREAM)
        self.status_pub = self.create_publisher(CommandStatus, "robot/command_status", EVENTS)
        self.create_subscription(StepAck, "robot/step_ack", self._on_ack, STREAM)
        self.create_service(Reset, "robot/reset", self._on_reset)
        self.create_service(MoveTo, "robot/move_to", self._on_move_to)
        self.create_service(Gripper, "robot/gripper", self._on_gripper)
        self.create_service(Hold, "robot/hold", self._on_hold)
        self.create_service(ProtectiveStop, "robot/protective_stop", self._on_stop)
        self.create_service(Observe, "robot/observe", self._on_observe)
        self.create_service(Disturb, "sim/disturb", self._on_disturb)
        self.handled = 0  # callbacks run; lets the loop drain the executor without blocking
        self.get_logger().info(
            f"ready: batch {p.batch_steps} steps, reaction latency {p.reaction_latency_steps} steps, "
            f"gating consumers {p.gating_consumers or 'none'}"
        )

    def _consumers_subscribed(self) -> bool:
        """Every gating consumer said hello and its own step-stream reader is in the graph: by
        name, since other nodes (the chaos node, a test probe) read the stream too."""
        if not self.gate.all_heard():
            return False
        readers = {i.node_name for i in self.get_subscriptions_info_by_topic(self.batch_pub.topic_name)}
        return set(self.gate.consumers) <= readers

    def _names_by_id(self) -> list[str]:
        names = self.world.body_names
        return [names.get(i, "") for i in range(max(names) + 1)]

    # -- service and topic callbacks: fast, they only talk to the core ------------------
    def _on_reset(self, req: Reset.Request, res: Reset.Response) -> Reset.Response:
        self.handled += 1
        self._flush()
        reply, events = self.core.reset(req.episode_id, req.seed, req.settle_steps)
        self.gate.new_episode()
        self._body_names = self._names_by_id()  # block body ids change at every reset
        self._publish_events(events)
        res.accepted, res.command_id, res.message = reply.accepted, reply.command_id, reply.message
        return res

    def _on_move_to(self, req: MoveTo.Request, res: MoveTo.Response) -> MoveTo.Response:
        self.handled += 1
        r = self.core.move_to(vec3(req.target), req.steps, req.validate_only)
        res.accepted, res.command_id, res.reach_error, res.message = r.accepted, r.command_id, r.reach_error, r.message
        return res

    def _on_gripper(self, req: Gripper.Request, res: Gripper.Response) -> Gripper.Response:
        self.handled += 1
        r = self.core.gripper(req.width, req.max_effort, req.steps)
        res.accepted, res.command_id, res.message = r.accepted, r.command_id, r.message
        return res

    def _on_hold(self, req: Hold.Request, res: Hold.Response) -> Hold.Response:
        self.handled += 1
        r = self.core.hold(req.steps)
        res.accepted, res.command_id, res.message = r.accepted, r.command_id, r.message
        return res

    def _on_stop(self, req: ProtectiveStop.Request, res: ProtectiveStop.Response) -> ProtectiveStop.Response:
        self.handled += 1
        self.gate.request_received(req.requester)
        r = self.core.protective_stop(req.episode_id, req.engage, req.decision_step, req.requester, req.reason)
        res.accepted, res.apply_step, res.message = r.accepted, r.apply_step, r.message
        if not r.accepted:
            self.get_logger().warning(f"protective stop request from {req.requester!r} refused: {r.message}")
        return res

    def _on_observe(self, req: Observe.Request, res: Observe.Response) -> Observe.Response:
        self.handled += 1
        res.step, res.objects = self.world.step_count, object_states(self.world.object_poses())
        return res

    def _on_disturb(self, req: Disturb.Request, res: Disturb.Response) -> Disturb.Response:
        self.handled += 1
        r = self.core.disturb(req.object, req.dx, req.dy, req.at_step)
        res.accepted, res.message = r.accepted, r.message
        return res

    def _on_ack(self, msg: StepAck) -> None:
        self.handled += 1
        self.gate.hello(msg.consumer)
        if msg.episode_id == self.core.episode_id:
            self.gate.ack(msg.consumer, msg.step, msg.requests_issued)

    # -- publishing ----------------------------------------------------------------------
    def _flush(self) -> None:
        """Publish the buffered steps. Batch boundaries depend on the commands alone (every
        ``batch_steps`` steps and at each command's end), never on timing, so consumers that
        use batch-end data (object poses) see the same stream in every run."""
        if not self._buffer:
            return
        samples, self._buffer = self._buffer, []
        last = samples[-1]
        stamp = sim_time(last.step, self.dt)
        msg = StepBatch(episode_id=self.core.episode_id, first_step=samples[0].step, num_steps=len(samples))
        msg.ack_requested = bool(self.gate.consumers)
        msg.joint_names = self.world.joint_names
        msg.joint_positions = _arr("d", np.concatenate([s.joint_positions for s in samples]))
        msg.joint_velocities = _arr("d", np.concatenate([s.joint_velocities for s in samples]))
        msg.grasp_positions = _arr("d", np.concatenate([s.grasp_position for s in samples]))
        msg.body_names = self._body_names
        msg.contact_step = _arr(
            "Q", np.concatenate([np.full(len(s.contact_force), s.step, np.uint64) for s in samples])
        )
        msg.contact_body_a = _arr("i", np.concatenate([s.contact_body_a for s in samples]))
        msg.contact_link_a = _arr("i", np.concatenate([s.contact_link_a for s in samples]))
        msg.contact_body_b = _arr("i", np.concatenate([s.contact_body_b for s in samples]))
        msg.contact_link_b = _arr("i", np.concatenate([s.contact_link_b for s in samples]))
        msg.contact_force = _arr("d", np.concatenate([s.contact_force for s in samples]))
        msg.objects = object_states(self.world.object_poses())
        self.batch_pub.publish(msg)
        self.clock_pub.publish(Clock(clock=stamp))
        js = JointState(
            name=self.world.joint_names, position=last.joint_positions.tolist(), velocity=last.joint_velocities.tolist()
        )
        js.header.stamp = stamp
        self.joint_pub.publish(js)

    def _publish_events(self, events: list[CommandEvent]) -> None:
        if not events:
            return
        objects = object_states(self.world.object_poses())
        grasp = point(self.world.grasp_position())
        joints = self._last.joint_positions.tolist() if self._last is not None else []
        for e in events:
            self.status_pub.publish(
                CommandStatus(
                    command_id=e.command_id,
                    episode_id=self.core.episode_id,
                    state=int(e.state),
                    start_step=e.start_step,
                    end_step=e.end_step,
                    message=e.message,
                    grasp_position=grasp,
                    joint_positions=list(joints),
                    objects=objects,
                )
            )

    # -- the loop -----------------------------------------------------------------------
    def run(self, executor: rclpy.executors.Executor) -> None:
        p = self.params
        blocked_since: float | None = None
        t0 = time.monotonic()
        while rclpy.ok():
            if not self._buffer:  # once per batch: draining costs as much as a few physics steps
                self._drain(executor)
            if not self.core.has_work():
                self._flush()
                blocked_since = None
                executor.spin_once(timeout_sec=0.1)
                t0 = time.monotonic() - self.world.step_count * self.dt
                continue
            nxt = self.world.step_count + 1
            if not self._ready:  # latched once every gating consumer has acked and its reader is known
                self._ready = self._consumers_subscribed()
            if not (self._ready and self.gate.allows(nxt)):
                now = time.monotonic()
                blocked_since = blocked_since or now
                if now - blocked_since > p.ack_timeout_s:
                    who = self.gate.silent() or self.gate.laggards()
                    raise AlphaMatrixError(
                        f"no ack from gating consumer(s) {', '.join(who)} for {p.ack_timeout_s:.0f} s "
                        f"(blocked before step {nxt}); is the consumer running?"
                    )
                executor.spin_once(timeout_sec=0.05)
                continue
            blocked_since = None
            if p.realtime:
                delay = t0 + nxt * self.dt - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            sample, events = self.core.step()
            self._after_step(sample)
            self._last = sample
            self._buffer.append(sample)
            if events:
                self._flush()
                self._publish_events(events)
            elif len(self._buffer) >= p.batch_steps:
                self._flush()

    def _after_step(self, sample: StepSample) -> None:
        """Hook for subclasses (scene add-ons: a camera, a person), after each physics step and
        before its sample is buffered. The default bridge does nothing here."""

    def _drain(self, executor: rclpy.executors.Executor, limit: int = 64) -> None:
        for _ in range(limit):
            before = self.handled
            executor.spin_once(timeout_sec=0.0)
            if self.handled == before:
                return


def _arr(code: str, values: np.ndarray) -> array.array:
    a = array.array(code)
    dtype = {"d": np.float64, "Q": np.uint64, "i": np.int32}[code]
    a.frombytes(np.ascontiguousarray(values, dtype=dtype).tobytes())
    return a


def _spin(node: Node) -> None:
    executor = EventsExecutor()
    executor.add_node(node)
    try:
        node.run(executor)  # type: ignore[attr-defined]
    finally:
        executor.shutdown()


def main(args: list[str] | None = None) -> int:
    return run_node(SimBridge, _spin, args)


if __name__ == "__main__":
    raise SystemExit(main())
