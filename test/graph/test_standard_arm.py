"""The simulated arm behind ros2_control's standard interfaces, as a separate process: the upstream
`ros2 action` CLI moves it and lists its actions; an rclpy ActionClient sees a goal with a wrong
joint rejected, a newer goal preempt the active one, cancel hold position, and an empty trajectory
on the topic stop it; the sim-only services, the gripper, the wrench and the URDF answer."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import rclpy
from action_msgs.msg import GoalStatus
from alpha_matrix_interfaces.srv import Observe, Reset
from builtin_interfaces.msg import Duration
from control_msgs.action import FollowJointTrajectory, GripperCommand
from geometry_msgs.msg import WrenchStamped
from rclpy.action import ActionClient
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from alpha_matrix.launcher import graph_env
from conftest import next_domain_id, wait_until

ROS2 = Path(sys.executable).parent / "ros2"
JOINTS = [f"panda_joint{i}" for i in range(1, 8)]
READY = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785]
FJT = "/joint_trajectory_controller/follow_joint_trajectory"
GRIP = "/gripper_controller/gripper_cmd"
UP = 30.0  # s: the node's start (imports, PyBullet) and discovery on a loaded 2-core machine


class Arm:
    """The standard_arm process on a domain of its own, and an rclpy client node beside it."""

    def __init__(self, log: Path) -> None:
        self.env = graph_env(next_domain_id())
        self.log = log
        with open(log, "wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "alpha_matrix.nodes.standard_arm"],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.context = Context()
        rclpy.init(context=self.context, domain_id=int(self.env["ROS_DOMAIN_ID"]))
        self.node = Node("standard_arm_test", context=self.context)
        self.joints: JointState | None = None
        self.samples = 0
        self.wrench: WrenchStamped | None = None
        self.urdf: str | None = None
        n = self.node
        n.create_subscription(JointState, "/joint_states", self._on_joints, 10)
        n.create_subscription(WrenchStamped, "/force_torque_sensor_broadcaster/wrench", self._on_wrench, 10)
        latched = QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
        )
        n.create_subscription(String, "/robot_description", self._on_urdf, latched)
        self.fjt = ActionClient(n, FollowJointTrajectory, FJT)
        self.grip = ActionClient(n, GripperCommand, GRIP)
        self.topic = n.create_publisher(JointTrajectory, "/joint_trajectory_controller/joint_trajectory", 10)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(n)
        self._spin = threading.Thread(target=self.executor.spin, daemon=True)
        self._spin.start()

    def _on_joints(self, msg: JointState) -> None:
        self.joints, self.samples = msg, self.samples + 1

    def _on_wrench(self, msg: WrenchStamped) -> None:
        self.wrench = msg

    def _on_urdf(self, msg: String) -> None:
        self.urdf = msg.data

    def q(self) -> np.ndarray:
        assert self.joints is not None
        return np.array(self.joints.position[:7])

    def speed(self) -> float:
        assert self.joints is not None
        return float(np.abs(np.array(self.joints.velocity[:7])).max())

    def ready(self) -> None:
        wait_until(lambda: self.joints is not None, UP, "/joint_states from standard_arm")
        assert self.fjt.wait_for_server(timeout_sec=UP) and self.grip.wait_for_server(timeout_sec=UP)

    def done(self, future: Any, what: str, timeout: float = 15.0) -> Any:
        wait_until(future.done, timeout, what)
        return future.result()

    def send(self, target: list[float], seconds: int, names: list[str] = JOINTS) -> Any:
        goal = FollowJointTrajectory.Goal()
        goal.trajectory.joint_names = names
        goal.trajectory.points = [JointTrajectoryPoint(positions=target, time_from_start=Duration(sec=seconds))]
        return self.done(self.fjt.send_goal_async(goal), "the goal's response")

    def call(self, kind: Any, name: str, request: Any) -> Any:
        client = self.node.create_client(kind, name)
        assert client.wait_for_service(timeout_sec=UP), name
        return self.done(client.call_async(request), f"{name}'s reply")

    def holds(self) -> None:
        """The arm stops and stays: still after half a second of samples (120 at 240 Hz)."""
        wait_until(lambda: self.speed() < 0.01, 5, "the arm to stop")
        q, n = self.q(), self.samples
        wait_until(lambda: self.samples >= n + 120, 5, "half a second of joint states")
        assert np.abs(self.q() - q).max() < 2e-3

    def close(self) -> None:
        self.proc.send_signal(2)  # SIGINT: the node's normal stop
        try:
            code = self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        self.executor.shutdown()
        self._spin.join(timeout=5)
        self.node.destroy_node()
        rclpy.shutdown(context=self.context)
        text = self.log.read_text()
        assert code == 0 and "Traceback" not in text, text[-3000:]


@pytest.fixture
def arm(tmp_path: Path) -> Iterator[Arm]:
    a = Arm(tmp_path / "standard_arm.log")
    try:
        yield a
    finally:
        a.close()


def ros2(args: list[str], env: dict[str, str], timeout: float = 60) -> str:
    r = subprocess.run([str(ROS2), *args], env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"ros2 {' '.join(args)}: {r.stdout[-2000:]}{r.stderr[-2000:]}"
    return r.stdout


def test_the_ros2_cli_moves_the_arm_and_lists_its_actions(arm: Arm) -> None:
    arm.ready()
    target = [0.3, -0.5, 0.0, -2.0, 0.0, 1.6, 0.8]
    goal = (
        f"{{trajectory: {{joint_names: [{', '.join(JOINTS)}], "
        f"points: [{{positions: [{', '.join(map(str, target))}], time_from_start: {{sec: 1}}}}]}}}}"
    )
    out = ros2(["action", "send_goal", FJT, "control_msgs/action/FollowJointTrajectory", goal], arm.env)
    assert "Goal finished with status: SUCCEEDED" in out, out
    wait_until(lambda: np.abs(arm.q() - target).max() < 0.01, 5, f"/joint_states at {target}")
    try:
        want = [f"{FJT} [control_msgs/action/FollowJointTrajectory]", f"{GRIP} [control_msgs/action/GripperCommand]"]
        listed = ""

        def both_listed() -> bool:
            nonlocal listed
            listed = ros2(["action", "list", "-t"], arm.env)
            return all(w in listed.splitlines() for w in want)

        wait_until(both_listed, 30, f"both actions in `ros2 action list -t` (last: {listed!r})")
    finally:
        ros2(["daemon", "stop"], arm.env)


def test_an_action_client_sees_the_controller_semantics(arm: Arm) -> None:
    arm.ready()
    # A wrong joint name: rejected at goal time (upstream's GoalResponse::REJECT).
    assert not arm.send(READY, 1, names=[*JOINTS[:6], "panda_joint8"]).accepted

    # A newer goal preempts the active one: aborted, INVALID_GOAL.
    far = [0.8, -0.3, 0.0, -1.8, 0.0, 1.6, 0.8]
    first = arm.send(far, 3)
    assert first.accepted
    wait_until(lambda: arm.speed() > 0.05, 5, "the arm to move")
    other = [-0.6, -0.5, 0.2, -2.2, 0.0, 1.8, 0.5]
    second = arm.send(other, 2)
    res = arm.done(first.get_result_async(), "the preempted goal's result")
    assert (
        res.status == GoalStatus.STATUS_ABORTED and res.result.error_code == FollowJointTrajectory.Result.INVALID_GOAL
    )

    # Cancel holds position: the goal ends CANCELED, the arm stays where it was.
    wait_until(lambda: arm.speed() > 0.05, 5, "the second goal moving the arm")
    arm.done(second.cancel_goal_async(), "the cancel response")
    res = arm.done(second.get_result_async(), "the cancelled goal's result")
    assert res.status == GoalStatus.STATUS_CANCELED
    arm.holds()

    # An empty trajectory on the topic stops the arm; the goal stays active (upstream's documented
    # stop), so the client cancels it.
    third = arm.send(far, 3)
    wait_until(lambda: arm.speed() > 0.05, 5, "the third goal moving the arm")
    wait_until(lambda: arm.topic.get_subscription_count() > 0, 5, "the topic's subscriber")
    arm.topic.publish(JointTrajectory(joint_names=JOINTS))
    arm.holds()
    result = third.get_result_async()
    assert not result.done()
    arm.done(third.cancel_goal_async(), "the cancel response")
    assert arm.done(result, "the third goal's result").status == GoalStatus.STATUS_CANCELED


def test_gripper_wrench_urdf_and_the_sim_services(arm: Arm) -> None:
    arm.ready()
    goal = GripperCommand.Goal()
    goal.command.position, goal.command.max_effort = 0.01, 10.0  # per finger, m
    handle = arm.done(arm.grip.send_goal_async(goal), "the gripper goal's response")
    res = arm.done(handle.get_result_async(), "the gripper's result")
    assert res.status == GoalStatus.STATUS_SUCCEEDED and res.result.reached_goal and not res.result.stalled
    assert abs(res.result.position - 0.01) < 0.01
    wait_until(lambda: arm.joints is not None and arm.joints.position[7] < 0.02, 5, "the fingers to close")

    wait_until(lambda: arm.wrench is not None and arm.urdf is not None, 10, "a wrench and /robot_description")
    assert arm.wrench is not None and arm.wrench.header.frame_id == "panda_hand"
    assert arm.urdf is not None and 'name="panda_finger_joint1"' in arm.urdf

    before = arm.call(Observe, "/sim/observe", Observe.Request())
    assert sorted(o.name for o in before.objects) == ["blue", "green", "red"]
    reply = arm.call(Reset, "/sim/reset", Reset.Request(episode_id="e1", seed=7))
    assert reply.accepted
    after = arm.call(Observe, "/sim/observe", Observe.Request())
    assert after.step < before.step + 240  # counted from the reset
    assert [o.pose.position.x for o in after.objects] != [o.pose.position.x for o in before.objects]
    wait_until(lambda: arm.joints is not None and arm.joints.position[7] > 0.039, 5, "the hand open after the reset")
    assert np.abs(arm.q() - READY).max() < 0.01


def test_a_trajectory_into_the_table_collides_and_cancel_stops_it(arm: Arm) -> None:
    import pybullet as p

    from alpha_matrix.core.sim.kinematics import Kinematics
    from alpha_matrix.core.sim.world_config import WorldConfig

    cfg = WorldConfig()
    kin = Kinematics(cfg)
    try:  # 7 cm below the table top, gripper down
        down = np.array(p.getQuaternionFromEuler(cfg.grasp_euler))
        into = kin.solve(np.array([0.45, 0.35, cfg.table_top_z - 0.07]), down, np.array(READY), 200).tolist()
    finally:
        kin.close()
    arm.ready()
    handle = arm.send(into, 2)
    assert handle.accepted

    def force() -> float:
        assert arm.wrench is not None
        f = arm.wrench.wrench.force
        return float(np.linalg.norm([f.x, f.y, f.z]))

    wait_until(lambda: arm.wrench is not None and force() > 60.0, 10, "the wrench to spike above 60 N")
    arm.done(handle.cancel_goal_async(), "the cancel response")
    assert arm.done(handle.get_result_async(), "the goal's result").status == GoalStatus.STATUS_CANCELED
    arm.holds()
