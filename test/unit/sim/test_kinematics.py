"""Kinematics: the float-level rotation error and IK step are their numpy forms to rounding
(computed in a fixed order, so that every CPU agrees: test_cpu_independence.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from alpha_matrix.core.sim.kinematics import Kinematics, _rot_error, dls_step
from alpha_matrix.core.sim.world_config import WorldConfig


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


def numpy_dls_step(jac: np.ndarray, err: np.ndarray, null: np.ndarray, damping2: float) -> np.ndarray:
    """The step as it was written with numpy (BLAS): pinv err + (I - pinv J) null."""
    pinv = jac.T @ np.linalg.solve(jac @ jac.T + np.eye(6) * damping2, np.eye(6))
    return pinv @ err + (np.eye(7) - pinv @ jac) @ null


def unit_quats(rng: np.random.Generator, n: int) -> np.ndarray:
    q = rng.standard_normal((n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def kin():
    k = Kinematics(WorldConfig())
    yield k
    k.close()


def test_rotation_error_is_the_numpy_result() -> None:
    """To rounding: the numpy form's norm goes through BLAS (its last bit depends on the CPU's kernel)."""
    rng = np.random.default_rng(1)
    targets, currents = unit_quats(rng, 2000), unit_quats(rng, 2000)
    currents[:50] = targets[:50]  # no rotation: the small-angle branch
    currents[50:100] = targets[50:100] * np.array([1.0, 1.0, 1.0, 1.0 + 1e-14])
    for t, c in zip(targets, currents, strict=True):
        assert np.allclose(np.array(_rot_error(t.tolist(), c.tolist())), numpy_rot_error(t, c), rtol=1e-12, atol=0.0)


def test_the_ik_step_is_the_numpy_damped_least_squares(kin: Kinematics) -> None:
    rng = np.random.default_rng(2)
    damping2 = kin.cfg.ik_damping**2
    for _ in range(200):
        q = kin.rest + rng.uniform(-0.5, 0.5, 7)
        jac = kin.jacobian(q)
        err, null = rng.uniform(-0.05, 0.05, 6), rng.uniform(-0.1, 0.1, 7)
        got = np.array(dls_step(jac, err.tolist(), null.tolist(), damping2))
        want = numpy_dls_step(np.array(jac), err, null, damping2)
        assert np.allclose(got, want, rtol=1e-9, atol=1e-12)


def test_ik_reaches_targets_around_the_ready_pose(kin: Kinematics) -> None:
    rng = np.random.default_rng(3)
    start, orn = kin.fk(kin.rest)
    for _ in range(25):
        target = start + rng.uniform(-0.2, 0.2, 3)
        q = kin.solve(target, orn, kin.rest, 100)
        pos, got_orn = kin.fk(q)
        assert np.linalg.norm(pos - target) < 1e-3
        assert max(abs(e) for e in _rot_error(orn.tolist(), got_orn.tolist())) < 1e-2
