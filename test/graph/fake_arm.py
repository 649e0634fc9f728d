"""A test-only stand-in for a ros2_control arm that misbehaves on purpose (test_arm_adapter.py).

It serves what arm_adapter needs to start (/robot_description with pybullet_data's Panda, 240 Hz
/joint_states of a still arm, the wrench, the controller's joint_trajectory topic, sim/reset and
sim/observe), and its two actions as a faulty arm would:

  --reject          the trajectory controller rejects every goal
  --silent-gripper  the gripper's action server is discovered but never answers a goal (its node
                    is never spun)
  --no-gripper      no gripper action server at all
  --joints A,B,...  the joint names /joint_states carries (default: the Panda's nine)

Run as ``python fake_arm.py [options]``; SIGINT or SIGTERM ends it.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

import pybullet_data
import rclpy
from alpha_matrix_interfaces.msg import ObjectState
from alpha_matrix_interfaces.srv import Observe, Reset
from control_msgs.action import FollowJointTrajectory, GripperCommand
from geometry_msgs.msg import WrenchStamped
from rclpy.action import ActionServer, GoalResponse
from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from trajectory_msgs.msg import JointTrajectory

PANDA = [f"panda_joint{i}" for i in range(1, 8)] + ["panda_finger_joint1", "panda_finger_joint2"]
READY = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.04, 0.04]
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reject", action="store_true")
    ap.add_argument("--silent-gripper", action="store_true")
    ap.add_argument("--no-gripper", action="store_true")
    ap.add_argument("--joints", default=",".join(PANDA))
    args = ap.parse_args()
    done = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: done.set())
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    rclpy.init(signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    node = Node("fake_arm")
    urdf = (Path(pybullet_data.getDataPath()) / "franka_panda" / "panda.urdf").read_text()
    node.create_publisher(String, "/robot_description", LATCHED).publish(String(data=urdf))
    names = args.joints.split(",")
    joints = node.create_publisher(JointState, "/joint_states", 10)
    wrench = node.create_publisher(WrenchStamped, "/force_torque_sensor_broadcaster/wrench", 10)
    node.create_subscription(
        JointTrajectory,
        "/joint_trajectory_controller/joint_trajectory",
        lambda m: print(f"fake_arm: a trajectory of {len(m.points)} points on the topic", flush=True),
        10,
    )

    def tick() -> None:
        js = JointState(name=names, position=READY[: len(names)], velocity=[0.0] * len(names))
        js.header.stamp = node.get_clock().now().to_msg()
        joints.publish(js)
        wrench.publish(WrenchStamped())

    node.create_timer(1 / 240, tick)

    def execute(gh):  # noqa: ANN001, ANN202 - never reached when goals are rejected
        gh.abort()
        return FollowJointTrajectory.Result(error_code=FollowJointTrajectory.Result.INVALID_GOAL)

    ActionServer(
        node, FollowJointTrajectory, "/joint_trajectory_controller/follow_joint_trajectory", execute,
        goal_callback=lambda _g: GoalResponse.REJECT if args.reject else GoalResponse.ACCEPT,
    )  # fmt: skip
    silent = Node("fake_gripper")  # never spun when silent: discovered, deaf
    if not args.no_gripper:

        def grip(gh):  # noqa: ANN001, ANN202
            gh.succeed()
            return GripperCommand.Result(position=gh.request.command.position, reached_goal=True)

        ActionServer(silent if args.silent_gripper else node, GripperCommand, "/gripper_controller/gripper_cmd", grip)

    def reset(req: Reset.Request, res: Reset.Response) -> Reset.Response:
        res.accepted = True
        return res

    def observe(req: Observe.Request, res: Observe.Response) -> Observe.Response:
        block = ObjectState(name="red")
        block.pose.position.x, block.pose.position.z, block.pose.orientation.w = 0.5, 0.65, 1.0
        res.objects = [block]
        return res

    node.create_service(Reset, "sim/reset", reset)
    node.create_service(Observe, "sim/observe", observe)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    print("fake_arm: ready", flush=True)
    try:
        while not done.is_set():
            executor.spin_once(timeout_sec=0.1)
    except ExternalShutdownException:
        pass
    finally:
        executor.shutdown()
        silent.destroy_node()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
