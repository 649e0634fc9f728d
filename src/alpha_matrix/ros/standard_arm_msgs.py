"""The standard arm's messages: ros2_control's interfaces (trajectory_msgs, control_msgs,
sensor_msgs, geometry_msgs) to and from core/standard_arm's plain types."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from builtin_interfaces.msg import Duration, Time
from control_msgs.msg import JointTolerance
from geometry_msgs.msg import WrenchStamped
from sensor_msgs.msg import JointState
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from alpha_matrix.core.standard_arm.arm import JointStates
from alpha_matrix.core.standard_arm.tolerances import JointToleranceSpec
from alpha_matrix.core.standard_arm.trajectory import Point, State, Trajectory
from alpha_matrix.core.standard_arm.wrench import Wrench


def seconds(t: Time | Duration) -> float:
    return t.sec + t.nanosec * 1e-9


def stamp(t: float) -> Time:
    ns = round(t * 1e9)
    return Time(sec=ns // 1_000_000_000, nanosec=ns % 1_000_000_000)


def trajectory(msg: JointTrajectory, start_offset: float = 0.0) -> Trajectory:
    """A JointTrajectory; a non-zero header stamp is moved onto the arm's clock by ``start_offset``
    (arm time − stamp time now), 0 stays 0 ("start now")."""
    start = seconds(msg.header.stamp)
    return Trajectory(
        tuple(msg.joint_names),
        tuple(
            Point(
                tuple(p.positions),
                seconds(p.time_from_start),
                tuple(p.velocities),
                tuple(p.accelerations),
                tuple(p.effort),
            )
            for p in msg.points
        ),
        start + start_offset if start != 0.0 else 0.0,
    )


def tolerances(specs: Sequence[JointTolerance]) -> list[JointToleranceSpec]:
    return [JointToleranceSpec(t.name, t.position, t.velocity, t.acceleration) for t in specs]


def point(state: State, with_acc: bool = True) -> JointTrajectoryPoint:
    return JointTrajectoryPoint(
        positions=state.positions.tolist(),
        velocities=state.velocities.tolist(),
        accelerations=state.accelerations.tolist() if with_acc else [],
    )


def positions_point(positions: np.ndarray, velocities: np.ndarray) -> JointTrajectoryPoint:
    return JointTrajectoryPoint(positions=positions.tolist(), velocities=velocities.tolist())


def joint_state(names: Sequence[str], js: JointStates, t: Time) -> JointState:
    msg = JointState(name=list(names), position=js.positions.tolist(), velocity=js.velocities.tolist())
    msg.effort = js.efforts.tolist()
    msg.header.stamp = t
    return msg


def wrench(w: Wrench, frame_id: str, t: Time) -> WrenchStamped:
    msg = WrenchStamped()
    msg.header.stamp, msg.header.frame_id = t, frame_id
    f, tau = w.force.tolist(), w.torque.tolist()
    msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = f
    msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z = tau
    return msg
