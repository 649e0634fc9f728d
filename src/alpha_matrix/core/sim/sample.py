"""What one physics step produced, read back from PyBullet: joint state, contacts, grasp frame."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pybullet as p

from alpha_matrix.core.sim.kinematics import GRASP_LINK, STATE_JOINTS


@dataclass(frozen=True, eq=False)
class StepSample:
    """What one physics step produced: joint state and aggregated contacts."""

    step: int
    joint_positions: np.ndarray
    joint_velocities: np.ndarray
    contact_body_a: np.ndarray
    contact_link_a: np.ndarray
    contact_body_b: np.ndarray
    contact_link_b: np.ndarray
    contact_force: np.ndarray
    grasp_position: np.ndarray  # (3,) grasp frame in world, m


def read_sample(cid: int, panda: int, step: int) -> StepSample:
    """The state after physics step ``step``; contacts aggregated per body/link pair (max normal force)."""
    c = {"physicsClientId": cid}
    js = p.getJointStates(panda, STATE_JOINTS, **c)
    pos = np.array([s[0] for s in js])
    vel = np.array([s[1] for s in js])
    pairs: dict[tuple[int, int, int, int], float] = {}
    for cp in p.getContactPoints(**c):
        key = (cp[1], cp[3], cp[2], cp[4])
        f = cp[9]
        if f > pairs.get(key, -1.0):
            pairs[key] = f
    if pairs:
        keys = np.array(list(pairs.keys()), dtype=np.int32)
        forces = np.fromiter(pairs.values(), dtype=np.float64, count=len(pairs))
    else:
        keys = np.zeros((0, 4), dtype=np.int32)
        forces = np.zeros(0, dtype=np.float64)
    grasp = np.array(p.getLinkState(panda, GRASP_LINK, computeForwardKinematics=True, **c)[4])
    return StepSample(step, pos, vel, keys[:, 0], keys[:, 1], keys[:, 2], keys[:, 3], forces, grasp)
