"""standard_arm: a simulated Panda behind ros2_control's standard interfaces, paced like hardware.

What a lab's arm under ros2_control serves, with the upstream controllers' meaning (the
decisions are core/standard_arm's; docs/standard-arm.md lists every name):
<controller>/follow_joint_trajectory, <controller>/joint_trajectory, <controller>/controller_state,
<controller>/query_state, <gripper>/gripper_cmd, joint_states, <ft_broadcaster>/wrench (the ideal
sensor: a real arm's is measured), robot_description; and, simulation only, sim/reset,
sim/observe and sim/disturb. It never imports the driver-contract adapter: it is the robot.

One thread: the physics steps at 240 Hz of wall-clock time; between steps the executor serves
callbacks until the next step is due (spin_once with the time left), so a request waits less
than a step and the loop never busy-waits. Goals end from the control cycle: an action's execute
coroutine awaits a future the cycle resolves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import rclpy
from alpha_matrix_interfaces.srv import Disturb, Observe, Reset
from control_msgs.action import FollowJointTrajectory, GripperCommand
from control_msgs.msg import JointTrajectoryControllerState
from control_msgs.srv import QueryTrajectoryState
from geometry_msgs.msg import WrenchStamped
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.impl.implementation_singleton import rclpy_implementation as _rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.task import Future
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from trajectory_msgs.msg import JointTrajectory

from alpha_matrix.core.standard_arm.arm import ARM_JOINT_NAMES, JOINT_NAMES, SENSOR_FRAME, SimArm, panda_urdf_text
from alpha_matrix.core.standard_arm.gripper import GripperController, GripperEnd, GripperSettings
from alpha_matrix.core.standard_arm.jtc import Feedback, GoalEnd, TrajectoryController
from alpha_matrix.core.standard_arm.pacing import Pacer
from alpha_matrix.core.standard_arm.params import StandardArmParams
from alpha_matrix.core.standard_arm.tolerances import default_tolerances, goal_tolerances
from alpha_matrix.core.standard_arm.trajectory import State, validate
from alpha_matrix.ros import standard_arm_msgs as msgs
from alpha_matrix.ros.convert import object_states
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import LATCHED
from alpha_matrix.ros.spin import spin_events
from alpha_matrix.ros.viz_msgs import RobotFramesPublisher

SYSTEM_DEFAULT = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)  # joint_state_broadcaster's
CLOCK = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)  # matches best-effort readers too
STATS_EVERY_S = 60.0


@dataclass
class Goals:
    """One action server's live goals: handles, the futures their execute coroutines await, ends
    decided by the core but not yet delivered."""

    handles: dict[bytes, ServerGoalHandle] = field(default_factory=dict)
    futures: dict[bytes, Future] = field(default_factory=dict)
    pending: list[Any] = field(default_factory=list)


def _started_by_track(_gh: ServerGoalHandle) -> None:
    """Never called: every accepted goal is started by StandardArm._track with its own coroutine."""


class StandardArm(Node):
    def __init__(self) -> None:
        super().__init__("standard_arm")
        p = self.params = declare_params(self, StandardArmParams)
        self.arm = SimArm(seed=p.seed)
        self.dt = self.arm.config.timestep
        self.steps_per_cycle = round(1.0 / self.dt) // p.update_rate
        self.period = self.steps_per_cycle * self.dt
        tol = default_tolerances(
            len(ARM_JOINT_NAMES), p.trajectory_tolerance, p.goal_tolerance, p.stopped_velocity_tolerance, p.goal_time
        )
        self.jtc = TrajectoryController(ARM_JOINT_NAMES, self.arm.ready_pose, tol, p.interpolate_from_desired_state)
        self.gripper = GripperController(
            GripperSettings(
                max_position=self.arm.config.max_width / 2.0,
                default_effort=p.gripper_max_effort,
                goal_tolerance=p.gripper_goal_tolerance,
                stall_velocity_threshold=p.gripper_stall_velocity_threshold,
                stall_timeout=p.gripper_stall_timeout,
                allow_stalling=p.gripper_allow_stalling,
            ),
            self.arm.open_position,
        )
        self.k = 0  # physics steps since start: the arm's clock is k * dt
        self._offset = 0.0  # arm time - stamp time, for trajectories with a header stamp
        self._js = self.arm.joint_states()
        self._actual = State(self._js.positions[:7], self._js.velocities[:7], np.zeros(7))
        self._feedback: Feedback | None = None
        self._command = (np.array(self.arm.ready_pose), np.zeros(7))
        self._disturbances: list[tuple[int, str, float, float]] = []
        self._resets = 0
        self._fjt, self._grip = Goals(), Goals()

        ctl, grip, ft = p.controller_name, p.gripper_controller_name, p.ft_broadcaster_name
        self.pub_joints = self.create_publisher(JointState, "joint_states", SYSTEM_DEFAULT)
        self.pub_wrench = self.create_publisher(WrenchStamped, f"{ft}/wrench", SYSTEM_DEFAULT)
        self.pub_state = self.create_publisher(
            JointTrajectoryControllerState, f"{ctl}/controller_state", SYSTEM_DEFAULT
        )
        self.pub_clock = self.create_publisher(Clock, "/clock", CLOCK) if p.publish_clock else None
        self.create_publisher(String, "robot_description", LATCHED).publish(String(data=panda_urdf_text()))
        # /tf_static and /tf for viewers (Foxglove, RViz), as robot_state_publisher would send them
        self.viz = RobotFramesPublisher(self, panda_urdf_text(), self.arm.config, description=False)
        self.create_subscription(JointTrajectory, f"{ctl}/joint_trajectory", self._on_topic, SYSTEM_DEFAULT)
        self.create_service(QueryTrajectoryState, f"{ctl}/query_state", self._on_query)
        ActionServer(
            self, FollowJointTrajectory, f"{ctl}/follow_joint_trajectory",
            execute_callback=_started_by_track, goal_callback=self._fjt_goal,
            handle_accepted_callback=self._fjt_accepted, cancel_callback=self._fjt_cancel,
        )  # fmt: skip
        ActionServer(
            self, GripperCommand, f"{grip}/gripper_cmd",
            execute_callback=_started_by_track, goal_callback=lambda _goal: GoalResponse.ACCEPT,
            handle_accepted_callback=self._grip_accepted, cancel_callback=self._grip_cancel,
        )  # fmt: skip
        self.create_service(Reset, "sim/reset", self._on_reset)
        self.create_service(Observe, "sim/observe", self._on_observe)
        self.create_service(Disturb, "sim/disturb", self._on_disturb)
        self.get_logger().info(
            f"ready: {ctl}/follow_joint_trajectory, {grip}/gripper_cmd, {ft}/wrench, joint_states at "
            f"{p.update_rate} Hz (physics 240 Hz, wall-clock paced), scene seed {p.seed}"
        )

    # ------------------------------------------------------------------ time
    def arm_time(self) -> float:
        return self.k * self.dt

    def _stamp(self) -> Any:
        if self.pub_clock is not None:
            return msgs.stamp(self.arm_time())
        return self.get_clock().now().to_msg()

    # ------------------------------------------------------------------ trajectory controller
    def _fjt_goal(self, goal: FollowJointTrajectory.Goal) -> GoalResponse:
        why = self._invalid(goal.trajectory)
        if why:
            self.get_logger().error(f"goal rejected: {why}")
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _invalid(self, msg: JointTrajectory) -> str | None:
        p = self.params
        traj = msgs.trajectory(msg, self._offset)
        return validate(
            traj,
            ARM_JOINT_NAMES,
            self.arm_time(),
            p.allow_partial_joints_goal,
            p.allow_nonzero_velocity_at_trajectory_end,
        )

    def _fjt_accepted(self, gh: ServerGoalHandle) -> None:
        key = self._track(self._fjt, gh)
        goal = gh.request
        tol, warning = goal_tolerances(
            self.jtc.defaults,
            ARM_JOINT_NAMES,
            msgs.tolerances(goal.path_tolerance),
            msgs.tolerances(goal.goal_tolerance),
            msgs.seconds(goal.goal_time_tolerance),
        )
        if warning:
            self.get_logger().error(warning)
        self._fjt.pending += self.jtc.accept_goal(
            key, msgs.trajectory(goal.trajectory, self._offset), tol, self._actual
        )

    def _fjt_cancel(self, gh: ServerGoalHandle) -> CancelResponse:
        self._fjt.pending += self.jtc.cancel(bytes(gh.goal_id.uuid), self._actual)
        return CancelResponse.ACCEPT

    def _on_topic(self, msg: JointTrajectory) -> None:
        if msg.points and (why := self._invalid(msg)):
            self.get_logger().error(f"{self.params.controller_name}/joint_trajectory: dropped: {why}")
            return
        self.jtc.topic_trajectory(msgs.trajectory(msg, self._offset), self._actual)

    def _on_query(self, req: QueryTrajectoryState.Request, res: QueryTrajectoryState.Response) -> Any:
        s = self.jtc.desired_at(msgs.seconds(req.time) + self._offset)
        res.success, res.name = True, list(ARM_JOINT_NAMES)
        res.position, res.velocity, res.acceleration = (
            v.tolist() for v in (s.positions, s.velocities, s.accelerations)
        )
        return res

    # ------------------------------------------------------------------ gripper
    def _grip_accepted(self, gh: ServerGoalHandle) -> None:
        key = self._track(self._grip, gh)
        cmd = gh.request.command
        self._grip.pending += self.gripper.accept_goal(key, cmd.position, cmd.max_effort, self.arm_time())

    def _grip_cancel(self, gh: ServerGoalHandle) -> CancelResponse:
        self._grip.pending += self.gripper.cancel(bytes(gh.goal_id.uuid), float(self._js.positions[7]))
        return CancelResponse.ACCEPT

    # ------------------------------------------------------------------ goal bookkeeping
    def _track(self, goals: Goals, gh: ServerGoalHandle) -> bytes:
        """Register an accepted goal and start executing it (EXECUTING before the core can end it).
        The execute coroutine holds its own future: the core may end the goal (preempt, reset,
        cancel) before the executor first runs the coroutine."""
        key = bytes(gh.goal_id.uuid)
        fut = goals.futures[key] = Future()
        goals.handles[key] = gh

        async def execute(_gh: ServerGoalHandle) -> Any:
            return await fut

        gh.execute(execute)
        return key

    def _deliver(self) -> None:
        """Send the ends the core decided: terminal state, then the result the execute coroutine returns."""
        servers = (
            (self._fjt, FollowJointTrajectory, self.jtc.active_goal),
            (self._grip, GripperCommand, self.gripper.active_goal),
        )
        for goals, kind, active in servers:
            if not goals.pending and not goals.handles:
                continue
            ends, goals.pending = goals.pending, []
            done = {e.goal_id for e in ends}
            for key, gh in goals.handles.items():  # cancel requested where the core had nothing to cancel
                if gh.is_cancel_requested and key not in done and key != active:
                    ends.append(GoalEnd(key, "canceled"))
            for e in ends:
                gh = goals.handles.pop(e.goal_id, None)
                fut = goals.futures.pop(e.goal_id, None)
                if gh is None or fut is None:
                    continue
                _terminate(gh, e.status)
                fut.set_result(_result(kind, e))

    # ------------------------------------------------------------------ simulation-only services
    def _on_reset(self, req: Reset.Request, res: Reset.Response) -> Reset.Response:
        self.arm.reset(req.seed)
        self._disturbances.clear()
        self._resets += 1
        self._read()
        why = f"sim/reset: the scene was reset (seed {req.seed})"
        self._fjt.pending += self.jtc.reset(self.arm.ready_pose, why)
        self._grip.pending += self.gripper.reset(self.arm.open_position)
        self._deliver()
        res.accepted, res.command_id = True, self._resets
        res.message = f"reset from seed {req.seed}; the arm keeps stepping (settle_steps is not used)"
        return res

    def _on_observe(self, req: Observe.Request, res: Observe.Response) -> Observe.Response:
        res.step, res.objects = self.arm.step_count, object_states(self.arm.object_poses())
        return res

    def _on_disturb(self, req: Disturb.Request, res: Disturb.Response) -> Disturb.Response:
        if req.object not in self.arm.object_poses():
            res.accepted, res.message = False, f"no object named {req.object!r}"
            return res
        self._disturbances.append((int(req.at_step), req.object, req.dx, req.dy))
        self._disturb_due()
        res.accepted = True
        return res

    def _disturb_due(self) -> None:
        """Displace the objects whose step has come (before that step's physics)."""
        now = self.arm.step_count + 1
        for d in [d for d in self._disturbances if d[0] <= now]:
            self._disturbances.remove(d)
            self.arm.displace(d[1], d[2], d[3])

    # ------------------------------------------------------------------ the loop
    def _read(self) -> None:
        self._js = self.arm.joint_states()
        self._actual = State(self._js.positions[:7], self._js.velocities[:7], np.zeros(7))

    def _cycle(self) -> None:
        """One control cycle (ros2_control's read, update, write): state read and broadcast, the
        controllers updated, their commands written; ended goals delivered."""
        p, now = self.params, self.arm_time()
        self._read()
        t = self._stamp()
        self._offset = now - msgs.seconds(t)
        self.pub_joints.publish(msgs.joint_state(JOINT_NAMES, self._js, t))
        self.pub_wrench.publish(msgs.wrench(self.arm.wrench(), SENSOR_FRAME, t))
        if self.pub_clock is not None:
            self.pub_clock.publish(Clock(clock=t))
        u = self.jtc.update(now, self._actual, self.period)
        self._fjt.pending += u.ended
        self._feedback = u.feedback
        self.arm.command_arm(u.positions, u.velocities)
        self._command = (u.positions, u.velocities)
        js = self._js
        self._grip.pending += self.gripper.update(
            now, float(js.positions[7]), float(js.velocities[7]), float(js.efforts[7])
        )
        self.arm.command_fingers(self.gripper.command.position, self.gripper.command.force)
        self._deliver()
        cycle = self.k // self.steps_per_cycle
        if self._every(cycle, p.action_monitor_rate):
            self._publish_feedback(t)
        if self._every(cycle, p.state_publish_rate):
            self._publish_state(t, u.feedback)
            self.viz.publish(JOINT_NAMES, js.positions, stamp=t)  # /tf at the state rate, not every cycle

    def _every(self, cycle: int, rate: float) -> bool:
        """True on the cycles of a ``rate`` Hz publisher (the first cycle included)."""
        n = self.params.update_rate / rate
        return int(cycle / n) != int((cycle - 1) / n) or cycle == 0

    def _publish_feedback(self, t: Any) -> None:
        fb = self._feedback
        key = self.jtc.active_goal
        if fb is not None and key in self._fjt.handles:
            msg = FollowJointTrajectory.Feedback(joint_names=list(ARM_JOINT_NAMES), index=fb.index)
            msg.header.stamp = t
            msg.desired, msg.actual, msg.error = (
                msgs.point(fb.desired),
                msgs.point(fb.actual, False),
                msgs.point(fb.error, False),
            )
            self._fjt.handles[key].publish_feedback(msg)  # type: ignore[index]
        key = self.gripper.active_goal
        if key in self._grip.handles:
            js = self._js
            self._grip.handles[key].publish_feedback(  # type: ignore[index]
                GripperCommand.Feedback(position=float(js.positions[7]), effort=abs(float(js.efforts[7])))
            )

    def _publish_state(self, t: Any, fb: Feedback | None) -> None:
        msg = JointTrajectoryControllerState(joint_names=list(ARM_JOINT_NAMES), speed_scaling_factor=1.0)
        msg.header.stamp = t
        desired = fb.desired if fb is not None else self.jtc.desired_at(self.arm_time())
        msg.reference, msg.feedback = msgs.point(desired), msgs.point(self._actual, False)
        msg.error = msgs.point(
            State(
                desired.positions - self._actual.positions, desired.velocities - self._actual.velocities, np.zeros(7)
            ),
            False,
        )
        msg.output = msgs.positions_point(*self._command)
        self.pub_state.publish(msg)

    def run(self, executor: rclpy.executors.Executor) -> None:
        pacer = Pacer(self.dt)
        next_stats = time.monotonic() + STATS_EVERY_S
        while rclpy.ok():
            pacer.start(self.k)
            due = pacer.due(self.k)
            rem = due - time.monotonic()
            if rem <= 0.0:  # late: still serve what is ready, one callback a step
                executor.spin_once(timeout_sec=0.0)
            while rem > 0.0:
                executor.spin_once(timeout_sec=rem)
                rem = due - time.monotonic()
            if self.k % self.steps_per_cycle == 0:
                self._cycle()
            self._disturb_due()
            self.arm.step()
            self.k += 1
            if due > next_stats:
                next_stats = due + STATS_EVERY_S
                s = pacer.take(self.k)
                self.get_logger().info(
                    f"{s.rate_hz:.1f} physics steps/s over {s.wall_s:.0f} s (joint_states at "
                    f"{s.rate_hz / self.steps_per_cycle:.1f} Hz), loop CPU {100 * s.cpu_share:.0f} %, "
                    f"{s.overruns} overruns"
                )

    def destroy_node(self) -> None:
        self.arm.close()
        super().destroy_node()


def _terminate(gh: ServerGoalHandle, status: str) -> None:
    if not gh.is_active:
        return
    if status == "succeeded":
        gh.succeed()
    elif status == "aborted":
        gh.abort()
    else:  # canceled: a goal the client did not cancel (a preempted gripper goal) passes CANCELING first
        if not gh.is_cancel_requested:
            gh._update_state(_rclpy.GoalEvent.CANCEL_GOAL)
        gh.canceled()


def _result(kind: Any, end: GoalEnd | GripperEnd) -> Any:
    if isinstance(end, GripperEnd):
        return GripperCommand.Result(
            position=float(end.position), effort=float(end.effort), stalled=end.stalled, reached_goal=end.reached_goal
        )
    if isinstance(end, GoalEnd) and kind is GripperCommand:  # canceled by the sweep: an empty result
        return GripperCommand.Result()
    return FollowJointTrajectory.Result(error_code=end.error_code, error_string=end.error_string)


def main(args: list[str] | None = None) -> int:
    return run_node(StandardArm, spin_events, args)


if __name__ == "__main__":
    raise SystemExit(main())
