"""The arm's kinematics from the URDF it publishes (Pinocchio): FK of the tool frame, damped
least-squares IK with the gripper pointing down, reach checks, link numbering for contacts.

The driver contract's targets are world-frame; the URDF's root is the arm's base. The base's
pose in the world is a parameter (a real cell measures it once), so every pose here is
world-frame: ``world_T_root = world_T_base * inverse(root_T_base)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.quiet import native_output

Vec3 = tuple[float, float, float]
Vector = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class ArmFrames:
    """What the adapter needs to know of the arm besides its URDF (defaults: the Panda's)."""

    arm_joints: tuple[str, ...] = tuple(f"panda_joint{i}" for i in range(1, 8))
    finger_joints: tuple[str, ...] = ("panda_finger_joint1", "panda_finger_joint2")
    base_frame: str = "panda_link0"
    tool_frame: str = "panda_grasptarget"
    ft_frame: str = "panda_hand"
    base_xyz: Vec3 = (0.1, 0.0, 0.625)
    base_rpy: Vec3 = (0.0, 0.0, 0.0)
    grasp_rpy: Vec3 = (math.pi, 0.0, 0.0)  # gripper pointing down
    ready_pose: tuple[float, ...] = (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785)
    ready_width: float = 0.08  # total finger opening


@dataclass(frozen=True)
class IKSettings:
    """Damped least squares with a pull toward the ready pose in the null space (the Panda is
    redundant: without it the elbow wanders from knot to knot)."""

    iterations: int = 12  # per knot of a path, warm-started from the previous knot
    reach_iterations: int = 200  # reach check: in all, over the continuation hops
    reach_segments: int = 10  # hops from the ready pose's grasp position to the target
    damping: float = 1e-3
    null_gain: float = 0.1
    tolerance: float = 1e-6  # m and rad


def _se3(xyz: Sequence[float], rpy: Sequence[float]) -> pin.SE3:
    return pin.SE3(pin.rpy.rpyToMatrix(*(float(v) for v in rpy)), np.array([float(v) for v in xyz]))


class ArmKinematics:
    """Built from the URDF text; every problem with it is one line (AlphaMatrixError)."""

    def __init__(self, urdf: str, frames: ArmFrames = ArmFrames(), ik: IKSettings = IKSettings()) -> None:
        try:
            with native_output("URDF parse"):  # tinyxml's complaint is logged, the error below is the line
                self.model = pin.buildModelFromXML(urdf)
        except Exception as err:  # noqa: BLE001 - Pinocchio raises plain RuntimeErrors and ValueErrors
            first = " ".join(str(err).split())[:200]
            raise AlphaMatrixError(f"robot_description: not a URDF Pinocchio can read ({first})") from None
        self.data = self.model.createData()
        self.frames, self.ik = frames, ik
        m = self.model
        known = [m.names[i] for i in range(1, m.njoints)]
        for what, names in (("arm_joints", frames.arm_joints), ("finger_joints", frames.finger_joints)):
            missing = [n for n in names if n not in known]
            if missing:
                raise AlphaMatrixError(
                    f"{what}: joint(s) {', '.join(missing)} not in the URDF on /robot_description "
                    f"(its joints: {', '.join(known)})"
                )
        for name in (*frames.arm_joints, *frames.finger_joints):
            if m.joints[m.getJointId(name)].nq != 1:
                raise AlphaMatrixError(f"joint {name}: not a one-DOF joint (revolute or prismatic) in the URDF")
        if len(frames.ready_pose) != len(frames.arm_joints):
            raise AlphaMatrixError(
                f"ready_pose has {len(frames.ready_pose)} values for {len(frames.arm_joints)} arm joints"
            )
        self.tool = self._frame(frames.tool_frame, "tool_frame")
        base = self._frame(frames.base_frame, "base_frame")
        self._frame(frames.ft_frame, "ft_frame")
        if m.frames[base].parentJoint != 0:
            raise AlphaMatrixError(f"base_frame {frames.base_frame!r} moves with the arm's joints: it must be fixed")
        joints = [m.getJointId(n) for n in frames.arm_joints]
        self._arm_q = np.array([m.joints[j].idx_q for j in joints])
        self._arm_v = np.array([m.joints[j].idx_v for j in joints])
        self._finger_q = np.array([m.joints[m.getJointId(n)].idx_q for n in frames.finger_joints], dtype=int)
        self.lower = m.lowerPositionLimit[self._arm_q].copy()
        self.upper = m.upperPositionLimit[self._arm_q].copy()
        self.rest = np.array(frames.ready_pose, dtype=float)
        self._q = pin.neutral(m)
        self._q[self._finger_q] = frames.ready_width / 2.0
        self.world_T_root = _se3(frames.base_xyz, frames.base_rpy) * m.frames[base].placement.inverse()
        self.root_T_world = self.world_T_root.inverse()
        self.grasp_rotation = pin.rpy.rpyToMatrix(*(float(v) for v in frames.grasp_rpy))
        self._reach_cache: dict[Vec3, float] = {}

    def _frame(self, name: str, param: str) -> int:
        if not self.model.existFrame(name):
            raise AlphaMatrixError(f"{param}: the URDF on /robot_description has no frame {name!r}")
        return int(self.model.getFrameId(name))

    # -- forward -------------------------------------------------------------------------
    def _full(self, arm: Vector, fingers: Vector | None = None) -> np.ndarray:
        q = self._q.copy()
        q[self._arm_q] = arm
        if fingers is not None:
            q[self._finger_q] = fingers
        return q

    def tool_pose(self, arm: Vector, fingers: Vector | None = None) -> pin.SE3:
        """The tool frame in the world."""
        q = self._full(arm, fingers)
        pin.forwardKinematics(self.model, self.data, q)
        return self.world_T_root * pin.updateFramePlacement(self.model, self.data, self.tool)

    def tool_position(self, arm: Vector, fingers: Vector | None = None) -> Vec3:
        x, y, z = self.tool_pose(arm, fingers).translation.tolist()
        return (x, y, z)

    def link_index(self, name: str) -> int:
        """``name``'s link index as PyBullet (and the step stream's contacts) number links: the
        URDF's links in depth-first order after the root, which is -1."""
        bodies = [f.name for f in self.model.frames if f.type == pin.FrameType.BODY]
        return bodies.index(name) - 1

    # -- inverse -------------------------------------------------------------------------
    def grasp_target(self, position: Vector) -> pin.SE3:
        """The tool pose at ``position`` with the gripper pointing down."""
        return pin.SE3(self.grasp_rotation, np.array([float(v) for v in position]))

    def solve(self, target: pin.SE3, seed: Vector, iterations: int | None = None) -> np.ndarray:
        """Arm joint angles putting the tool frame at ``target`` (world), from ``seed``.

        Newton steps on the tool frame's log6 error with a damped least-squares inverse of the
        LOCAL Jacobian (arm columns only; the fingers do not move the tool frame), clipped to the
        URDF's limits."""
        ik = self.ik
        m, d = self.model, self.data
        goal = self.root_T_world * target
        q = self._q.copy()
        arm = np.clip(np.asarray(seed, dtype=float), self.lower, self.upper)
        eye = np.eye(6) * ik.damping**2
        for _ in range(ik.iterations if iterations is None else iterations):
            q[self._arm_q] = arm
            pin.forwardKinematics(m, d, q)
            current = pin.updateFramePlacement(m, d, self.tool)
            local = current.actInv(goal)
            err = pin.log6(local).vector
            if float(np.max(np.abs(err))) < ik.tolerance:
                break
            jac = pin.computeFrameJacobian(m, d, q, self.tool, pin.ReferenceFrame.LOCAL)[:, self._arm_v]
            jac = pin.Jlog6(local.inverse()) @ jac  # the error shrinks along +jac^T (Pinocchio's IK example)
            null = ik.null_gain * (self.rest - arm)
            dq = null + jac.T @ np.linalg.solve(jac @ jac.T + eye, err - jac @ null)
            arm = np.clip(arm + dq, self.lower, self.upper)
        return arm

    def reach_error(self, target: Sequence[float]) -> float:
        """Metres between ``target`` and the closest grasp-frame position IK reaches, gripper down:
        by continuation from the ready pose (a single cold solve gets stuck in joint limits for
        far targets), as the simulated driver checks it, keeping the closest of the hops' solutions
        (every one is a reachable pose). Depends on the target alone: cached."""
        key = tuple(float(c) for c in target)
        if len(key) != 3 or not all(math.isfinite(c) for c in key):
            return math.inf
        x, y, z = key
        if (x, y, z) not in self._reach_cache:
            if len(self._reach_cache) >= 256:
                self._reach_cache.clear()
            q = self.rest.copy()
            start: np.ndarray = np.array(self.tool_position(q))
            goal = np.array(key)
            n = self.ik.reach_segments
            per_hop = max(1, self.ik.reach_iterations // n)
            best = math.inf  # the closest any hop's solution came: past the workspace's edge DLS can jump away
            for k in range(1, n + 2):
                q = self.solve(self.grasp_target(start + (goal - start) * (min(k, n) / n)), q, per_hop)
                best = min(best, math.dist(self.tool_position(q), key))
            self._reach_cache[(x, y, z)] = best
        return self._reach_cache[(x, y, z)]
