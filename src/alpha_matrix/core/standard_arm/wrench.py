"""An ideal wrist force/torque sensor from contact forces: the math, no physics engine.

A real arm's force_torque_sensor_broadcaster publishes what a sensor (or the joint torques)
*measures*, with noise, drift and the hand's own weight to compensate. The simulated one is the
ideal, gravity-compensated sensor between the flange and the hand: the sum of the contact forces
that everything else exerts on the hand and the fingers (normal plus lateral friction), and
their torque about the sensor frame's origin, expressed in the sensor frame. Forces the hand
exerts on itself cancel: a block squeezed between the fingers shows only its weight and what
it touches; the hand pressed on the table shows the table's push.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Contact:
    """A contact force on the sensed body (world frame): where it acts and the force, N."""

    position: tuple[float, float, float]
    force: tuple[float, float, float]


@dataclass(frozen=True)
class Wrench:
    force: np.ndarray  # (3,), N
    torque: np.ndarray  # (3,), N·m


def rotation(quat_xyzw: Sequence[float]) -> np.ndarray:
    """The rotation matrix of a unit quaternion (x, y, z, w)."""
    x, y, z, w = (float(v) for v in quat_xyzw)
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )


def contact_force(
    normal_on_b: Sequence[float],
    normal_force: float,
    friction1: float,
    friction_dir1: Sequence[float],
    friction2: float,
    friction_dir2: Sequence[float],
) -> np.ndarray:
    """The force on body A of one PyBullet contact point, in PyBullet's own (A, B) order.

    Checked against the physics (test/unit/standard_arm/test_wrench.py): the normal force acts
    along ``contactNormalOnB`` (B to A) and each friction term along its direction, both on A.
    (Queried with ``bodyA=`` PyBullet swaps the bodies and flips the normal but not the friction
    directions, so the caller reads the contacts unfiltered and negates where the body is B.)
    """
    return (
        normal_force * np.asarray(normal_on_b, dtype=float)
        + friction1 * np.asarray(friction_dir1, dtype=float)
        + friction2 * np.asarray(friction_dir2, dtype=float)
    )


def wrench_in_frame(contacts: Iterable[Contact], origin: Sequence[float], orientation: Sequence[float]) -> Wrench:
    """Sum of ``contacts`` and their torque about ``origin``, expressed in the frame at ``origin``
    with ``orientation`` (quaternion x, y, z, w, world frame)."""
    o = np.asarray(origin, dtype=float)
    f = np.zeros(3)
    tau = np.zeros(3)
    for c in contacts:
        fc = np.asarray(c.force, dtype=float)
        f += fc
        tau += np.cross(np.asarray(c.position, dtype=float) - o, fc)
    r = rotation(orientation)
    return Wrench(r.T @ f, r.T @ tau)
