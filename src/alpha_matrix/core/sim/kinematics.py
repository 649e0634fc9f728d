"""The Panda's kinematics apart from the dynamic world: joint indices, FK/Jacobian/IK, min-jerk segments.

IK runs in a separate kinematics-only client, so solving it never disturbs the physics.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pybullet as p
import pybullet_data

if TYPE_CHECKING:
    from alpha_matrix.core.sim.world_config import WorldConfig

# Model facts of franka_panda/panda.urdf (not tunable).
ARM_JOINTS = (0, 1, 2, 3, 4, 5, 6)
FINGER_JOINTS = (9, 10)
STATE_JOINTS = ARM_JOINTS + FINGER_JOINTS
GRASP_LINK = 11


def min_jerk(s: float) -> float:
    """Min-jerk profile on [0, 1]: zero velocity and acceleration at both ends."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10.0 - 15.0 * s + 6.0 * s * s)


def _quat_mul(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float, float]:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    )


def _rot_error(target: Sequence[float], current: Sequence[float]) -> tuple[float, float, float]:
    """Rotation vector (world frame) taking ``current`` to ``target`` (quaternions xyzw).

    Plain floats: on 3- and 4-vectors numpy's per-call overhead is most of the cost (the
    results are the same doubles: unit tests compare with the numpy form)."""
    dx, dy, dz, dw = _quat_mul(target, (-current[0], -current[1], -current[2], current[3]))
    if dw < 0.0:
        dx, dy, dz, dw = -dx, -dy, -dz, -dw
    n = math.sqrt(dx * dx + dy * dy + dz * dz)
    if n < 1e-12:
        return 2.0 * dx, 2.0 * dy, 2.0 * dz
    k = 2.0 * math.atan2(n, dw) / n
    return dx * k, dy * k, dz * k


def dls_step(
    jac: Sequence[Sequence[float]], err: Sequence[float], null: Sequence[float], damping2: float
) -> list[float]:
    """One damped-least-squares step with a pull toward the rest pose in the null space:
    ``dq = null + Jᵀ (J Jᵀ + λ²I)⁻¹ (err − J null)``, which is ``Jᵀ A⁻¹ err + (I − Jᵀ A⁻¹ J) null``.

    Plain floats in a fixed order, so every CPU computes the same doubles: numpy hands matrix
    products and solves to OpenBLAS, whose kernels are picked per CPU at run time and round
    differently (an AVX-512 machine and an AVX2 one gave different episodes, and a grasp turned
    the last bits into a dropped block). No ``sum()``: Python 3.12 made it compensated. A = J Jᵀ + λ²I
    is symmetric positive definite (λ > 0): solved by Cholesky.
    """
    m, n = len(jac), len(null)
    v = []
    for i in range(m):
        row, acc = jac[i], err[i]
        for k in range(n):
            acc -= row[k] * null[k]
        v.append(acc)
    low = [[0.0] * m for _ in range(m)]  # A = L Lᵀ
    for i in range(m):
        ri, li = jac[i], low[i]
        for j in range(i + 1):
            rj, lj = jac[j], low[j]
            acc = damping2 if i == j else 0.0
            for k in range(n):
                acc += ri[k] * rj[k]
            for k in range(j):
                acc -= li[k] * lj[k]
            li[j] = math.sqrt(acc) if i == j else acc / lj[j]
    y = [0.0] * m  # L y = v
    for i in range(m):
        acc = v[i]
        for k in range(i):
            acc -= low[i][k] * y[k]
        y[i] = acc / low[i][i]
    z = [0.0] * m  # Lᵀ z = y
    for i in reversed(range(m)):
        acc = y[i]
        for k in range(i + 1, m):
            acc -= low[k][i] * z[k]
        z[i] = acc / low[i][i]
    dq = []
    for k in range(n):
        acc = null[k]
        for i in range(m):
            acc += jac[i][k] * z[i]
        dq.append(acc)
    return dq


class Kinematics:
    """A kinematics-only Panda in its own DIRECT client: FK, Jacobian and DLS IK.

    Never stepped, so querying it cannot disturb the dynamic world.
    """

    def __init__(self, cfg: WorldConfig) -> None:
        self.cfg = cfg
        self.cid = p.connect(p.DIRECT)
        p.setAdditionalSearchPath(pybullet_data.getDataPath(), physicsClientId=self.cid)
        self.body = p.loadURDF(cfg.panda_urdf, cfg.panda_base, useFixedBase=True, physicsClientId=self.cid)
        info = [p.getJointInfo(self.body, j, physicsClientId=self.cid) for j in ARM_JOINTS]
        self.lower = np.array([i[8] for i in info])
        self.upper = np.array([i[9] for i in info])
        self.rest = np.array(cfg.ready_pose, dtype=float)
        self._fingers = [cfg.ready_width / 2.0] * 2
        self._zeros = [0.0] * len(STATE_JOINTS)
        self._arm = list(ARM_JOINTS)
        self._damping2 = cfg.ik_damping**2

    def _pose(self, q: np.ndarray) -> tuple[tuple[float, ...], tuple[float, ...]]:
        p.resetJointStatesMultiDof(self.body, self._arm, [[v] for v in q.tolist()], physicsClientId=self.cid)
        s = p.getLinkState(self.body, GRASP_LINK, computeForwardKinematics=True, physicsClientId=self.cid)
        return s[4], s[5]

    def fk(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pos, orn = self._pose(q)
        return np.array(pos), np.array(orn)

    def jacobian(self, q: np.ndarray) -> list[list[float]]:
        """The grasp frame's 6x7 Jacobian (linear rows, then angular), arm joints only."""
        lin, ang = p.calculateJacobian(
            self.body, GRASP_LINK, [0.0, 0.0, 0.0], q.tolist() + self._fingers, self._zeros, self._zeros,
            physicsClientId=self.cid,
        )  # fmt: skip
        return [list(row[:7]) for row in (*lin, *ang)]

    def solve(self, pos: np.ndarray, orn: np.ndarray, seed: np.ndarray, iterations: int) -> np.ndarray:
        """Joint angles putting the grasp frame at (pos, orn), Newton/DLS from ``seed``."""
        cfg = self.cfg
        q = np.clip(seed.astype(float), self.lower, self.upper)
        px, py, pz = pos.tolist()
        orn_t = orn.tolist()
        for _ in range(iterations):
            (cx, cy, cz), co = self._pose(q)
            err = (px - cx, py - cy, pz - cz, *_rot_error(orn_t, co))
            if max(abs(e) for e in err) < cfg.ik_tolerance:
                break
            null = (cfg.ik_null_gain * (self.rest - q)).tolist()  # elementwise: exact on every CPU
            dq = dls_step(self.jacobian(q), err, null, self._damping2)
            q = np.clip(q + np.array(dq), self.lower, self.upper)
        return q

    def close(self) -> None:
        if p.isConnected(self.cid):
            p.disconnect(self.cid)


@dataclass
class Move:
    """A min-jerk Cartesian segment, sampled by IK at knots, joints interpolated between."""

    start: np.ndarray
    target: np.ndarray
    start_orn: tuple[float, ...]
    target_orn: tuple[float, ...]
    moving: int  # steps of the moving phase
    z_delay: float  # share of the moving phase before z starts (0 = straight line)
    k0: int = 0
    q0: np.ndarray = field(default_factory=lambda: np.zeros(7))
    k1: int = 0
    q1: np.ndarray = field(default_factory=lambda: np.zeros(7))

    def pose(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        s = j / self.moving
        sxy = min_jerk(s)
        sz = min_jerk((s - self.z_delay) / (1.0 - self.z_delay))
        d = self.target - self.start
        pos = self.start + np.array([d[0] * sxy, d[1] * sxy, d[2] * sz])
        orn = np.array(p.getQuaternionSlerp(self.start_orn, self.target_orn, sxy))
        return pos, orn
