"""The PyBullet side of the standard arm: the project's Panda world driven by joint targets.

The scene is core/sim/world.py's (plane, table, Panda with fingers, the seeded blocks); the arm
follows joint position targets through PyBullet's position motors with the Panda's torque
limits, so a trajectory into the table collides with it for real. What a ros2_control hardware
interface reads is read back here: joint positions, velocities and motor efforts, and the ideal
wrist force/torque sensor (core/standard_arm/wrench.py) from the contact points.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pybullet as p
import pybullet_data

from alpha_matrix.core.sim.kinematics import STATE_JOINTS
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import Quat, Vec3, WorldConfig
from alpha_matrix.core.standard_arm.wrench import Contact, Wrench, contact_force, wrench_in_frame

ARM_JOINT_NAMES = tuple(f"panda_joint{i}" for i in range(1, 8))
FINGER_JOINT_NAMES = ("panda_finger_joint1", "panda_finger_joint2")
JOINT_NAMES = ARM_JOINT_NAMES + FINGER_JOINT_NAMES  # /joint_states order
SENSOR_LINK = 8  # panda_hand: the F/T sensor frame (the hand's mounting frame on the flange)
SENSOR_FRAME = "panda_hand"
HAND_LINKS = frozenset({8, 9, 10})  # panda_hand, panda_leftfinger, panda_rightfinger


@dataclass(frozen=True)
class JointStates:
    """Position (rad, m), velocity and effort (N·m, N: the motors' applied torque/force) per joint
    of ``JOINT_NAMES``."""

    positions: np.ndarray
    velocities: np.ndarray
    efforts: np.ndarray


def panda_urdf_path(config: WorldConfig | None = None) -> Path:
    return Path(pybullet_data.getDataPath()) / (config or WorldConfig()).panda_urdf


def panda_urdf_text(config: WorldConfig | None = None) -> str:
    """The URDF of the simulated Panda, as read from pybullet_data (what /robot_description carries)."""
    return panda_urdf_path(config).read_text()


class SimArm:
    """One simulated cell, stepped one physics step (``timestep``, 1/240 s) at a time."""

    def __init__(self, config: WorldConfig | None = None, seed: int = 0) -> None:
        self.world = World(config)
        self.config = self.world.config
        self._cid = self.world.client_id
        self._panda = next(i for i, n in self.world.body_names.items() if n == "panda")
        got = tuple(self.world.joint_names)
        if got != JOINT_NAMES:
            raise RuntimeError(f"unexpected Panda joints {got}")
        self.reset(seed)

    def reset(self, seed: int) -> None:
        """The scene anew from ``seed``: blocks placed, arm in the ready pose, fingers open; does not step."""
        self.world.reset(seed)

    @property
    def step_count(self) -> int:
        """Physics steps since the last reset (the sample count /sim/observe reports)."""
        return self.world.step_count

    @property
    def ready_pose(self) -> tuple[float, ...]:
        return tuple(self.config.ready_pose)

    @property
    def open_position(self) -> float:
        """Per-finger joint position of the open hand after a reset, m."""
        return self.config.ready_width / 2.0

    def command_arm(self, positions: np.ndarray, velocities: np.ndarray | None = None) -> None:
        self.world.command_joints(positions, velocities)

    def command_fingers(self, position: float, force: float) -> None:
        self.world.command_fingers(position, force)

    def step(self) -> None:
        self.world.step()

    def joint_states(self) -> JointStates:
        js = p.getJointStates(self._panda, STATE_JOINTS, physicsClientId=self._cid)
        return JointStates(np.array([s[0] for s in js]), np.array([s[1] for s in js]), np.array([s[3] for s in js]))

    def hand_contacts(self) -> list[Contact]:
        """Contact forces on the hand and fingers from every other body (world frame)."""
        out = []
        for c in p.getContactPoints(physicsClientId=self._cid):
            a, b, link_a, link_b = c[1], c[2], c[3], c[4]
            if a == b:
                continue
            if a == self._panda and link_a in HAND_LINKS:
                f, at = contact_force(c[7], c[9], c[10], c[11], c[12], c[13]), c[5]
            elif b == self._panda and link_b in HAND_LINKS:
                f, at = -contact_force(c[7], c[9], c[10], c[11], c[12], c[13]), c[6]
            else:
                continue
            out.append(Contact(tuple(at), (float(f[0]), float(f[1]), float(f[2]))))
        return out

    def sensor_pose(self) -> tuple[Vec3, Quat]:
        s = p.getLinkState(self._panda, SENSOR_LINK, computeForwardKinematics=True, physicsClientId=self._cid)
        return tuple(s[4]), tuple(s[5])

    def wrench(self) -> Wrench:
        """The ideal F/T sensor at ``SENSOR_FRAME``, in that frame."""
        origin, orientation = self.sensor_pose()
        return wrench_in_frame(self.hand_contacts(), origin, orientation)

    def object_poses(self) -> dict[str, tuple[Vec3, Quat]]:
        return self.world.object_poses()

    def displace(self, name: str, dx: float, dy: float) -> None:
        self.world.displace(name, dx, dy)

    def close(self) -> None:
        self.world.close()
