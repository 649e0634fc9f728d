"""arm_adapter: the driver contract served on top of ros2_control's standard interfaces.

Every node above the driver (executives, safety monitor, recorder, chaos, suites) runs unchanged on
an arm that speaks ros2_control: move_to becomes a FollowJointTrajectory goal, gripper a
GripperCommand goal, a protective stop cancels the goal and publishes an empty trajectory (the
controller holds position), and the step stream is built from /joint_states samples with the
grasp frame by FK and the wrist's wrench as the contact it measures (docs/arm-adapter.md). The
decisions are core/robot/adapter/'s; this node translates messages.

It is a real-time driver: steps are the arm's joint_states samples and advance on its clock, so a
stop is accepted whenever it comes and timed from its decision to the arm at rest, and no
consumer's ack is ever waited for (acks are read and only logged: a real arm cannot pause).

Threads: the node's own callbacks (samples at the control rate, the contract's services) run in
the main thread on an EventsExecutor; the action and service clients toward the robot live on a
helper node in its own context, spun by a SingleThreadedExecutor thread (rclpy's EventsExecutor
does not serve action clients here). One lock serialises every call into the core.
"""

from __future__ import annotations

import array
import threading
import time
from collections.abc import Callable
from typing import Any

import rclpy
from alpha_matrix_interfaces.msg import CommandStatus, ObjectState, StepAck, StepBatch
from alpha_matrix_interfaces.srv import Gripper, Hold, MoveTo, Observe, ProtectiveStop, Reset
from builtin_interfaces.msg import Duration, Time
from control_msgs.action import FollowJointTrajectory, GripperCommand
from control_msgs.msg import JointTolerance
from geometry_msgs.msg import WrenchStamped
from rclpy.action import ActionClient
from rclpy.context import Context
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.adapter.driver import AdapterCore, AdapterSettings, Command, Ended, Out
from alpha_matrix.core.robot.adapter.kinematics import ArmFrames, ArmKinematics
from alpha_matrix.core.robot.adapter.motion import JointPath, plan_joint_move, plan_move
from alpha_matrix.core.robot.adapter.outcomes import gripper_outcome, rejected, trajectory_outcome
from alpha_matrix.core.robot.adapter.params import ArmAdapterParams
from alpha_matrix.core.robot.adapter.samples import BODY_NAMES, Sample, StepBuffer, assemble, joint_order, pick
from alpha_matrix.ros.convert import copy_fields, point, vec3
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, LATCHED, STEP_STREAM, STREAM
from alpha_matrix.ros.spin import describe, spin_until_stopped
from alpha_matrix.ros.stop import STOP, quiet_at_stop

# Deep reader queues: the main thread may be busy for a moment (a forwarded observe call), and a
# sample the queue dropped would be a step the stream never has.
SAMPLES = QoSProfile(depth=2400, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
WATCH_S = 0.05  # the watchdog's period (joint_states silence, reset and observe deadlines)


def _duration(seconds: float) -> Duration:
    ns = round(seconds * 1e9)
    return Duration(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def _name(base: str, leaf: str) -> str:
    return f"/{base.strip('/')}/{leaf}"


class ArmAdapter(Node):
    def __init__(self) -> None:
        super().__init__("arm_adapter")
        p = self.params = declare_params(self, ArmAdapterParams)
        self.lock = threading.RLock()
        self.frames = ArmFrames(
            arm_joints=tuple(p.arm_joints), finger_joints=tuple(p.finger_joints), base_frame=p.base_frame,
            tool_frame=p.tool_frame, ft_frame=p.ft_frame, base_xyz=(p.base_xyz[0], p.base_xyz[1], p.base_xyz[2]),
            base_rpy=(p.base_rpy[0], p.base_rpy[1], p.base_rpy[2]),
            grasp_rpy=(p.grasp_rpy[0], p.grasp_rpy[1], p.grasp_rpy[2]), ready_pose=tuple(p.ready_pose),
            ready_width=p.ready_width,
        )  # fmt: skip
        self.joints = [*p.arm_joints, *p.finger_joints]
        self.n_arm = len(p.arm_joints)
        self.kin: ArmKinematics | None = None
        settings = AdapterSettings(
            max_episode_steps=p.max_episode_steps, reach_tolerance=p.reach_tolerance, rest_velocity=p.rest_velocity,
            rest_samples=p.rest_samples, rest_timeout_s=p.rest_timeout_s,
            result_timeout_steps=max(1, round(p.result_timeout_s * p.control_rate)), scene_reset=bool(p.reset_service),
        )  # fmt: skip
        self.core = AdapterCore(settings, self._reach_error)
        self.buffer = StepBuffer(p.batch_steps)
        self.ready = False
        self.urdf = ""
        self._names: tuple[str, ...] = ()
        self._order: list[int] = []
        self._first_names: list[str] | None = None
        self._samples_seen = 0
        self._force = 0.0
        self._wrench_seen = False
        self._last_q: tuple[float, ...] = ()
        self._last: Sample | None = None
        self._last_sample_at = time.monotonic()
        self._unblocked_at = 0.0
        self._objects: list[ObjectState] = []
        self._idle_objects: list[ObjectState] | None = None  # the last command end's, while nothing has moved since
        self._acks_heard: set[str] = set()
        # Goals toward the robot: command id -> goal handle; ids whose goal was cut before it was accepted.
        self._goals: dict[int, Any] = {}
        self._traj_cid = 0
        self._cut: set[int] = set()
        self._reset_call: tuple[int, float] | None = None  # (call, deadline)
        self._observing: tuple[Any, float, int] | None = None  # (future, deadline, groups it answers)
        self._waiting: list[tuple[list[Ended], Sample | None]] = []  # statuses waiting for their observation

        # The robot's side: its own context and executor thread (ros/spin.ProxyNode's reasoning).
        self.io_context = Context()
        rclpy.init(context=self.io_context, args=[])
        self.io = Node(f"{self.get_name()}_io", context=self.io_context, use_global_arguments=False)
        self.traj_action = _name(p.controller, p.trajectory_action)
        self.grip_action = _name(p.gripper_controller, p.gripper_action)
        self.traj_cli = ActionClient(self.io, FollowJointTrajectory, self.traj_action)
        self.grip_cli = ActionClient(self.io, GripperCommand, self.grip_action)
        self.reset_cli = self.io.create_client(Reset, p.reset_service) if p.reset_service else None
        self.observe_cli = self.io.create_client(Observe, p.observe_service) if p.observe_service else None
        self.stop_topic = _name(p.controller, "joint_trajectory")
        self.wrench_topic = _name(p.ft_broadcaster, "wrench")

        self.stop_pub = self.create_publisher(JointTrajectory, self.stop_topic, 10)
        self.create_subscription(String, p.robot_description_topic, self._on_description, LATCHED)
        self.create_subscription(JointState, p.joint_states_topic, self._on_joint_states, SAMPLES)
        self.create_subscription(WrenchStamped, self.wrench_topic, self._on_wrench, SAMPLES)
        self.create_timer(WATCH_S, self._watch)

    # -- start-up: every interface there, or one line naming the first that is not ---------
    def start_up(self, executor: Any) -> bool:
        p = self.params
        deadline = time.monotonic() + p.start_timeout_s

        def wait(cond: Callable[[], bool], what: str) -> bool:
            while not cond():
                if STOP.stopping():
                    return False
                if time.monotonic() > deadline:
                    raise AlphaMatrixError(f"{what} within {p.start_timeout_s:g} s (start_timeout_s)")
                executor.spin_once(timeout_sec=0.05)
            return True

        if not wait(
            lambda: bool(self.urdf), f"no URDF on {p.robot_description_topic} (std_msgs/String, transient local)"
        ):
            return False
        self.kin = ArmKinematics(self.urdf, self.frames)
        self.sensor_link = self.kin.link_index(p.ft_frame)
        for client, action, kind in (
            (self.traj_cli, self.traj_action, "FollowJointTrajectory"),
            (self.grip_cli, self.grip_action, "GripperCommand"),
        ):
            if not wait(
                lambda c=client: c.server_is_ready(), f"no action server {action} (control_msgs/action/{kind})"
            ):
                return False
        for client in (self.reset_cli, self.observe_cli):
            if client is not None and not wait(client.service_is_ready, f"no service {client.srv_name}"):
                return False
        if not wait(
            lambda: self.stop_pub.get_subscription_count() > 0,
            f"no subscriber on {self.stop_topic} (the controller's topic: an empty trajectory is the stop)",
        ):
            return False
        if not wait(
            lambda: self._first_names is not None, f"no sample on {p.joint_states_topic} (sensor_msgs/JointState)"
        ):
            return False
        try:
            joint_order(self._first_names or [], self.joints)
        except ValueError as err:
            raise AlphaMatrixError(
                f"{p.joint_states_topic}: {err}; arm_joints/finger_joints name what it must carry"
            ) from None
        if not wait(lambda: self._wrench_seen, f"no wrench on {self.wrench_topic} (geometry_msgs/WrenchStamped)"):
            return False
        t0, n0 = time.monotonic(), self._samples_seen
        wait(lambda: time.monotonic() - t0 > 0.25, "")
        rate = (self._samples_seen - n0) / (time.monotonic() - t0)
        self._serve()
        self.ready = True
        self._last_sample_at = time.monotonic()
        self.get_logger().info(
            f"ready: {self.traj_action}, {self.grip_action}, {p.joint_states_topic} at {rate:.0f} Hz "
            f"(control_rate {p.control_rate:g}), {self.wrench_topic}; base {p.base_frame} at "
            f"({', '.join(f'{v:g}' for v in p.base_xyz)}), tool {p.tool_frame}; real time: stops accepted "
            "whenever they come and timed to rest, acks read, never waited for"
        )
        return True

    def _serve(self) -> None:
        """The contract's side, once the robot's is known to be there."""
        self.batch_pub = self.create_publisher(StepBatch, "robot/step_batch", STEP_STREAM)
        self.status_pub = self.create_publisher(CommandStatus, "robot/command_status", EVENTS)
        self.clock_pub = self.create_publisher(Clock, "/clock", 10)
        self.create_subscription(StepAck, "robot/step_ack", self._on_ack, STREAM)
        for srv, name, callback in (
            (Reset, "robot/reset", self._on_reset), (MoveTo, "robot/move_to", self._on_move_to),
            (Gripper, "robot/gripper", self._on_gripper), (Hold, "robot/hold", self._on_hold),
            (ProtectiveStop, "robot/protective_stop", self._on_stop), (Observe, "robot/observe", self._on_observe),
        ):  # fmt: skip
            self.create_service(srv, name, callback)
        quiet_at_stop(self)

    def _reach_error(self, target: tuple[float, float, float]) -> float:
        assert self.kin is not None
        return self.kin.reach_error(target)

    # -- the robot's topics ---------------------------------------------------------------
    def _on_description(self, msg: String) -> None:
        if not self.urdf:
            self.urdf = msg.data

    def _on_wrench(self, msg: WrenchStamped) -> None:
        f = msg.wrench.force
        self._force = (f.x * f.x + f.y * f.y + f.z * f.z) ** 0.5
        self._wrench_seen = True

    def _on_joint_states(self, msg: JointState) -> None:
        now = time.monotonic()
        self._samples_seen += 1
        if self._first_names is None:
            self._first_names = list(msg.name)
        if not self.ready:
            return
        with self.lock:
            quiet_for = now - self._last_sample_at
            self._last_sample_at = now
            if self.core.silent:
                self.get_logger().warning(
                    f"{self.params.joint_states_topic} back after {quiet_for:.2f} s: motion refused until robot/reset"
                )
            names = tuple(msg.name)
            if names != self._names:
                try:
                    self._order, self._names = joint_order(names, self.joints), names
                except ValueError as err:
                    if not self.core.silent:
                        self._lose(f"{self.params.joint_states_topic}: {err}")
                    return
            pos, vel = pick(msg.position, self._order), pick(msg.velocity, self._order)
            self._last_q = pos
            step, out = self.core.on_sample(vel[: self.n_arm], now)
            if step:
                assert self.kin is not None
                grasp = self.kin.tool_position(pos[: self.n_arm], pos[self.n_arm :])
                sample = self._last = Sample(step, pos, vel, grasp, self._force)
                if self.buffer.add(sample):
                    self._flush()
            self._carry_out(out)

    def _watch(self) -> None:
        """Joint states that stopped arriving, and the deadlines of calls to the robot's services."""
        if not self.ready:
            return
        now = time.monotonic()
        with self.lock:
            quiet = now - max(self._last_sample_at, self._unblocked_at)
            if quiet > self.params.joint_states_timeout_s and not self.core.silent:
                self._lose(f"no sample on {self.params.joint_states_topic} for {quiet:.2f} s")
            if self._reset_call is not None and now > self._reset_call[1]:
                call = self._reset_call[0]
                self._reset_call = None
                self._carry_out(self.core.reset_done(call, False, f"no reply from {self.params.reset_service}"))
            if self._observing is not None and now > self._observing[1]:
                self.get_logger().warning(
                    f"no reply from {self.params.observe_service} within {self.params.service_timeout_s:g} s: "
                    "command statuses carry the last observation"
                )
                self._answer_observation(self._observing[2], self._objects)

    def _lose(self, why: str) -> None:
        """The robot is not heard: its statuses go out now, with the last observation (its perception
        may be as silent as its joint states)."""
        self.get_logger().error(f"{why}: arm stopped (goal cancelled, empty trajectory sent), commands cancelled")
        self._carry_out(self.core.joint_states_lost(why), observe=False)

    def _on_ack(self, msg: StepAck) -> None:
        if msg.consumer not in self._acks_heard:
            self._acks_heard.add(msg.consumer)
            self.get_logger().info(
                f"acks from {msg.consumer} are read, never waited for: a real-time arm cannot pause for a consumer"
            )

    # -- the contract's services ----------------------------------------------------------
    def _on_reset(self, req: Reset.Request, res: Reset.Response) -> Reset.Response:
        with self.lock:
            self._flush()
            reply, out = self.core.reset(req.episode_id, req.seed, req.settle_steps)
            self._carry_out(out)
        return copy_fields(res, reply, "accepted", "command_id", "message")

    def _on_move_to(self, req: MoveTo.Request, res: MoveTo.Response) -> MoveTo.Response:
        with self.lock:
            reply, out = self.core.move_to(vec3(req.target), req.steps, req.validate_only)
            self._carry_out(out)
        return copy_fields(res, reply, "accepted", "command_id", "reach_error", "message")

    def _on_gripper(self, req: Gripper.Request, res: Gripper.Response) -> Gripper.Response:
        with self.lock:
            reply, out = self.core.gripper(req.width, req.max_effort, req.steps)
            self._carry_out(out)
        return copy_fields(res, reply, "accepted", "command_id", "message")

    def _on_hold(self, req: Hold.Request, res: Hold.Response) -> Hold.Response:
        with self.lock:
            reply, out = self.core.hold(req.steps)
            self._carry_out(out)
        return copy_fields(res, reply, "accepted", "command_id", "message")

    def _on_stop(self, req: ProtectiveStop.Request, res: ProtectiveStop.Response) -> ProtectiveStop.Response:
        with self.lock:
            reply, out = self.core.protective_stop(
                req.episode_id, req.engage, req.decision_step, req.requester, req.reason, time.monotonic()
            )
            self._carry_out(out)
        what = "stop" if req.engage else "release"
        if reply.accepted:
            self.get_logger().info(
                f"{what} from {req.requester} decided at step {req.decision_step}: {reply.message} "
                f"(step {reply.apply_step})"
            )
        else:
            self.get_logger().warning(f"{what} from {req.requester!r} refused: {reply.message}")
        return copy_fields(res, reply, "accepted", "apply_step", "message")

    def _on_observe(self, req: Observe.Request, res: Observe.Response) -> Observe.Response:
        """Forwarded to the perception service; its step is this driver's (the sample count). While the
        arm is idle since its last command ended, that end's observation answers (the one its status
        carries, in the bag): what the episode is judged on is then what an audit reads."""
        objects = self._objects
        if self._idle_objects is not None and self.core.idle:
            res.step, res.objects = self.core.step, self._idle_objects
            return res
        if self.observe_cli is not None:
            done = threading.Event()
            future = self.observe_cli.call_async(Observe.Request())
            future.add_done_callback(lambda _f: done.set())
            if done.wait(self.params.service_timeout_s) and future.result() is not None:
                objects = self._objects = list(future.result().objects)
            else:
                self.get_logger().warning(f"no reply from {self.params.observe_service}: the last observation answers")
            self._unblocked_at = time.monotonic()  # samples queued meanwhile are no silence
        res.step, res.objects = self.core.step, objects
        return res

    # -- carrying out the core's decisions --------------------------------------------------
    def _carry_out(self, out: Out, observe: bool = True) -> None:
        """Called with the lock held: stop first, then start, then report (``observe`` False: with
        the last observation, without asking perception)."""
        if out.halt or out.start or out.reset:
            self._idle_objects = None  # the arm moves (or the scene is rebuilt): observe anew
        if out.halt:
            self._halt(out.halt)
        for cmd in out.start:
            self._send(cmd)
        if out.ended:
            self._flush()
            self._report(out.ended, observe)
        for rec in out.stops:
            (self.get_logger().info if rec.rest_step else self.get_logger().warning)(rec.line())
        if out.reset:
            self._call_reset(*out.reset)

    def _halt(self, why: str) -> None:
        """The documented stop of joint_trajectory_controller: an empty trajectory (hold position),
        and the active goal cancelled (cancel = hold position too)."""
        self.stop_pub.publish(JointTrajectory(joint_names=list(self.params.arm_joints)))
        cid = self._traj_cid
        if cid:
            self._traj_cid = 0
            self._cut.add(cid)
            if (gh := self._goals.pop(cid, None)) is not None:
                gh.cancel_goal_async()
        self.get_logger().debug(f"halt: {why}")

    def _send(self, cmd: Command) -> None:
        assert self.kin is not None
        p = self.params
        q = self._last_q[: self.n_arm]
        if cmd.kind != "gripper" and len(q) != self.n_arm:  # a reset right at start, before any sample was taken
            self._carry_out(self.core.goal_result(cmd.command_id, False, "no joint state sampled yet to start from"))
            return
        if cmd.kind == "gripper":
            goal = GripperCommand.Goal()
            goal.command.position, goal.command.max_effort = cmd.width / 2.0, cmd.force
            self._send_goal(self.grip_cli, goal, cmd.command_id, "gripper")
            return
        if cmd.kind == "home":
            path = plan_joint_move(q, self.kin.rest, cmd.steps, p.control_rate)
            goal = GripperCommand.Goal()
            goal.command.position, goal.command.max_effort = p.ready_width / 2.0, 20.0
            self.grip_cli.send_goal_async(goal)  # the fingers open beside the home move: not awaited
        else:
            assert cmd.target is not None
            t0 = time.perf_counter()
            path = plan_move(self.kin, q, cmd.target, cmd.steps, p.control_rate)
            took = time.perf_counter() - t0
            self.get_logger().debug(f"command {cmd.command_id}: {len(path.times)} IK knots in {took * 1e3:.1f} ms")
            if path.residual > p.reach_tolerance:
                why = f"IK along the path misses the target by {path.residual:.3f} m"
                self._carry_out(self.core.goal_result(cmd.command_id, False, why))
                return
        self._traj_cid = cmd.command_id
        self._send_goal(self.traj_cli, self._trajectory_goal(path), cmd.command_id, "trajectory")

    def _trajectory_goal(self, path: JointPath) -> FollowJointTrajectory.Goal:
        p = self.params
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = list(p.arm_joints)  # header stamp 0: start now
        goal.trajectory.points = [
            JointTrajectoryPoint(positions=list(q), velocities=list(v), time_from_start=_duration(t))
            for t, q, v in zip(path.times, path.positions, path.velocities, strict=True)
        ]
        goal.goal_tolerance = [JointTolerance(name=j, position=p.goal_position_tolerance) for j in p.arm_joints]
        goal.goal_time_tolerance = _duration(p.goal_time_tolerance_s)
        return goal

    def _send_goal(self, client: ActionClient, goal: Any, cid: int, kind: str) -> None:
        client.send_goal_async(goal).add_done_callback(lambda f: self._on_goal_response(cid, kind, f))

    def _on_goal_response(self, cid: int, kind: str, future: Any) -> None:
        gh = future.result()
        action = self.traj_action if kind == "trajectory" else self.grip_action
        with self.lock:
            if gh is None or not gh.accepted:
                self.get_logger().warning(f"command {cid}: {rejected(action)}")
                if self._traj_cid == cid:
                    self._traj_cid = 0
                self._carry_out(self.core.goal_result(cid, False, rejected(action)))
                return
            if cid in self._cut:  # a stop came between sending and acceptance
                gh.cancel_goal_async()
                return
            self._goals[cid] = gh
        gh.get_result_async().add_done_callback(lambda f: self._on_result(cid, kind, f))

    def _on_result(self, cid: int, kind: str, future: Any) -> None:
        wrapped = future.result()
        with self.lock:
            self._goals.pop(cid, None)
            if self._traj_cid == cid:
                self._traj_cid = 0
            if cid in self._cut:
                return
            r = wrapped.result
            if kind == "trajectory":
                ok, why = trajectory_outcome(self.traj_action, wrapped.status, r.error_code, r.error_string)
            else:
                ok, why = gripper_outcome(self.grip_action, wrapped.status, r.position, r.stalled, r.reached_goal)
            if not ok:
                self.get_logger().warning(f"command {cid}: {why}")
            self._carry_out(self.core.goal_result(cid, ok, why))

    def _call_reset(self, call: int, episode_id: str, seed: int, settle_steps: int) -> None:
        assert self.reset_cli is not None
        self._reset_call = (call, time.monotonic() + self.params.service_timeout_s)
        req = Reset.Request(episode_id=episode_id, seed=seed, settle_steps=0)  # the settle is this driver's hold
        self.reset_cli.call_async(req).add_done_callback(lambda f: self._on_reset_reply(call, f))

    def _on_reset_reply(self, call: int, future: Any) -> None:
        r = future.result()
        with self.lock:
            if self._reset_call is None or self._reset_call[0] != call:
                return
            self._reset_call = None
            ok = r is not None and r.accepted
            why = "" if ok else f"{self.params.reset_service} refused: {r.message if r is not None else 'no reply'}"
            self._carry_out(self.core.reset_done(call, ok, why))
            self._observe()  # the new scene's objects for the step stream

    # -- outputs ---------------------------------------------------------------------------
    def _flush(self) -> None:
        if not (samples := self.buffer.take()):
            return
        b = assemble(samples, self.sensor_link, self.params.wrench_floor)
        msg = StepBatch(episode_id=self.core.episode_id, first_step=b.first_step, num_steps=b.num_steps)
        msg.ack_requested = False  # nobody gates a real-time arm
        msg.joint_names = self.joints
        msg.joint_positions = array.array("d", b.joint_positions)
        msg.joint_velocities = array.array("d", b.joint_velocities)
        msg.grasp_positions = array.array("d", b.grasp_positions)
        msg.body_names = list(BODY_NAMES)
        msg.contact_step = array.array("Q", b.contact_step)
        msg.contact_body_a = array.array("i", b.contact_body_a)
        msg.contact_link_a = array.array("i", b.contact_link_a)
        msg.contact_body_b = array.array("i", b.contact_body_b)
        msg.contact_link_b = array.array("i", b.contact_link_b)
        msg.contact_force = array.array("d", b.contact_force)
        msg.objects = self._objects
        self.batch_pub.publish(msg)
        if self.params.publish_clock and self.clock_pub.get_subscription_count():
            ns = round(samples[-1].step / self.params.control_rate * 1e9)
            self.clock_pub.publish(Clock(clock=Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)))

    def _report(self, ended: list[Ended], observe: bool = True) -> None:
        """Terminal statuses with the observation at their end: joints and grasp now, objects from
        the perception service (asked now; the statuses go out with its answer)."""
        for e in ended:
            if e.state == 3 and not e.stop_to_rest_s:
                self.get_logger().info(f"command {e.command_id} cancelled: {e.message}")
        self._waiting.append((ended, self._last))
        if self.observe_cli is None or not observe:
            self._answer_observation(len(self._waiting), self._objects)
        elif self._observing is None:
            self._observe()

    def _observe(self) -> None:
        if self.observe_cli is None or self._observing is not None:
            return
        future = self.observe_cli.call_async(Observe.Request())
        self._observing = (future, time.monotonic() + self.params.service_timeout_s, len(self._waiting))
        future.add_done_callback(lambda f: self._on_observation(f))

    def _on_observation(self, future: Any) -> None:
        r = future.result()
        with self.lock:
            if self._observing is None or self._observing[0] is not future:
                return
            if r is not None:
                self._objects = list(r.objects)
            self._answer_observation(self._observing[2], self._objects)

    def _answer_observation(self, groups: int, objects: list[ObjectState]) -> None:
        """Publish the first ``groups`` waiting status groups with ``objects``; ask again for the rest."""
        self._observing = None
        answered, self._waiting = self._waiting[:groups], self._waiting[groups:]
        if not self._waiting and self.core.idle:
            self._idle_objects = objects
        for ended, sample in answered:
            joints = list(sample.positions) if sample is not None else list(self._last_q)
            grasp = point(sample.grasp if sample is not None else (float("nan"),) * 3)
            for e in ended:
                self.status_pub.publish(
                    CommandStatus(
                        command_id=e.command_id, episode_id=self.core.episode_id, state=int(e.state),
                        start_step=e.start_step, end_step=e.end_step, message=e.message, grasp_position=grasp,
                        joint_positions=joints, objects=objects, stop_to_rest_s=float(e.stop_to_rest_s),
                    )
                )  # fmt: skip
        if self._waiting:
            self._observe()

    def destroy_node(self) -> None:
        self.io.destroy_node()
        if self.io_context.ok():
            rclpy.shutdown(context=self.io_context)
        super().destroy_node()


def spin(node: ArmAdapter) -> None:
    """The robot's side on its own thread, then the start-up checks, then the node until a stop."""
    io_ex = SingleThreadedExecutor(context=node.io_context)
    io_ex.add_node(node.io)
    done = threading.Event()

    def spin_io() -> None:
        try:
            spin_until_stopped(io_ex, node.io_context, done)
        except ExternalShutdownException:
            pass  # a stop signal shut the context down
        except Exception as err:  # the robot's side is deaf from here: the node must not go on
            if not STOP.stopping(node.io_context):
                STOP.fail(f"{node.get_name()}'s robot-side thread died: {describe(err)}")

    thread = threading.Thread(target=spin_io, daemon=True)
    thread.start()
    executor = EventsExecutor()
    executor.add_node(node)
    try:
        if node.start_up(executor):
            spin_until_stopped(executor)
    finally:
        done.set()
        io_ex.wake()
        thread.join(timeout=5)
        io_ex.shutdown()
        executor.shutdown()


def main(args: list[str] | None = None) -> int:
    return run_node(ArmAdapter, spin, args)  # type: ignore[arg-type]


if __name__ == "__main__":
    raise SystemExit(main())
