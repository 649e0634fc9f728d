"""Kinematics: the float-level IK gives the same doubles as its numpy form (results stay bit-identical)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from alpha_matrix.core.sim.kinematics import Kinematics, _rot_error
from alpha_matrix.core.sim.world import WorldConfig


def numpy_rot_error(target: np.ndarray, current: np.ndarray) -> np.ndarray:
    """The rotation error as it was written with numpy arrays (the reference)."""
    ax, ay, az, aw = target
    bx, by, bz, bw = -current[0], -current[1], -current[2], current[3]
    d = np.array(
        [
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz,
        ]
    )
    if d[3] < 0.0:
        d = -d
    v = d[:3]
    n = float(np.linalg.norm(v))
    if n < 1e-12:
        return 2.0 * v
    return v * (2.0 * math.atan2(n, d[3]) / n)


def numpy_solve(kin: Kinematics, pos: np.ndarray, orn: np.ndarray, seed: np.ndarray, iterations: int) -> np.ndarray:
    cfg = kin.cfg
    q = np.clip(seed.astype(float), kin.lower, kin.upper)
    for _ in range(iterations):
        cp, co = kin.fk(q)
        err = np.concatenate([pos - cp, numpy_rot_error(orn, co)])
        if float(np.max(np.abs(err))) < cfg.ik_tolerance:
            break
        jac = kin.jacobian(q)
        pinv = jac.T @ np.linalg.solve(jac @ jac.T + np.eye(6) * cfg.ik_damping**2, np.eye(6))
        dq = pinv @ err + (np.eye(7) - pinv @ jac) @ (cfg.ik_null_gain * (kin.rest - q))
        q = np.clip(q + dq, kin.lower, kin.upper)
    return q


def unit_quats(rng: np.random.Generator, n: int) -> np.ndarray:
    q = rng.standard_normal((n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def kin():
    k = Kinematics(WorldConfig())
    yield k
    k.close()


def test_rotation_error_is_the_numpy_result_to_the_bit() -> None:
    rng = np.random.default_rng(1)
    targets, currents = unit_quats(rng, 2000), unit_quats(rng, 2000)
    currents[:50] = targets[:50]  # no rotation: the small-angle branch
    currents[50:100] = targets[50:100] * np.array([1.0, 1.0, 1.0, 1.0 + 1e-14])
    for t, c in zip(targets, currents, strict=True):
        assert np.array_equal(np.array(_rot_error(t.tolist(), c.tolist())), numpy_rot_error(t, c))


def test_ik_is_the_numpy_solve_to_the_bit(kin: Kinematics) -> None:
    rng = np.random.default_rng(2)
    start, orn = kin.fk(kin.rest)
    for _ in range(25):
        target = start + rng.uniform(-0.3, 0.3, 3)
        seed = kin.rest + rng.uniform(-0.2, 0.2, 7)
        for iterations in (1, 3, 12):
            assert np.array_equal(
                kin.solve(target, orn, seed, iterations), numpy_solve(kin, target, orn, seed, iterations)
            )
