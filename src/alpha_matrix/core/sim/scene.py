"""Scene construction: the static bodies once per World, the blocks anew from each episode's seed."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pybullet as p

from alpha_matrix.core.sim.errors import WorldError
from alpha_matrix.core.sim.kinematics import FINGER_JOINTS, STATE_JOINTS

if TYPE_CHECKING:
    from alpha_matrix.core.sim.world_config import WorldConfig


@dataclass(frozen=True)
class StaticScene:
    """Ids of the bodies and shapes that stay loaded for the World's lifetime."""

    plane: int
    table: int
    panda: int
    box_shape: int
    box_visuals: list[int]
    joint_names: list[str]


def load_static(cfg: WorldConfig, cid: int) -> StaticScene:
    """Load plane, table, Panda and the shared block shapes, once per World."""
    c = {"physicsClientId": cid}
    p.resetSimulation(**c)
    p.setPhysicsEngineParameter(fixedTimeStep=cfg.timestep, deterministicOverlappingPairs=1, **c)
    p.setGravity(0.0, 0.0, cfg.gravity, **c)
    plane = p.loadURDF(cfg.plane_urdf, **c)
    table = p.loadURDF(cfg.table_urdf, cfg.table_position, useFixedBase=True, **c)
    panda = p.loadURDF(cfg.panda_urdf, cfg.panda_base, useFixedBase=True, **c)
    p.changeDynamics(table, -1, lateralFriction=cfg.table_lateral_friction, **c)
    for j in FINGER_JOINTS:
        p.changeDynamics(
            panda,
            j,
            lateralFriction=cfg.finger_lateral_friction,
            spinningFriction=cfg.finger_spinning_friction,
            **c,
        )
    gear = p.createConstraint(
        panda,
        FINGER_JOINTS[0],
        panda,
        FINGER_JOINTS[1],
        p.JOINT_GEAR,
        [1.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0],
        **c,
    )
    p.changeConstraint(gear, gearRatio=cfg.gear_ratio, erp=cfg.gear_erp, maxForce=cfg.gear_max_force, **c)
    he = [cfg.cube_half_extent] * 3
    box_shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=he, **c)
    box_visuals = [p.createVisualShape(p.GEOM_BOX, halfExtents=he, rgbaColor=rgba, **c) for rgba in cfg.block_rgba]
    joint_names = [p.getJointInfo(panda, j, **c)[1].decode() for j in STATE_JOINTS]
    return StaticScene(plane, table, panda, box_shape, box_visuals, joint_names)


def spawn_positions(cfg: WorldConfig, rng: np.random.Generator) -> list[tuple[float, float, float]]:
    """Rejection-sample block (x, y, yaw): apart from each other and from the zone."""
    zone = np.array(cfg.zone[:2])
    out: list[tuple[float, float, float]] = []
    for _ in range(cfg.spawn_max_tries):
        if len(out) == len(cfg.block_names):
            return out
        x = float(rng.uniform(*cfg.spawn_x))
        y = float(rng.uniform(*cfg.spawn_y))
        yaw = float(rng.uniform(-cfg.spawn_yaw, cfg.spawn_yaw))
        if math.hypot(x - zone[0], y - zone[1]) < cfg.min_zone_distance:
            continue
        if any(math.hypot(x - ox, y - oy) < cfg.min_spacing for ox, oy, _ in out):
            continue
        out.append((x, y, yaw))
    if len(out) == len(cfg.block_names):
        return out
    raise WorldError("could not place the blocks in the spawn region")


def spawn_blocks(
    cfg: WorldConfig, cid: int, rng: np.random.Generator, box_shape: int, box_visuals: list[int]
) -> Iterator[tuple[str, int]]:
    """Create the blocks at positions drawn from ``rng``; yields (name, body id) as each one exists."""
    c = {"physicsClientId": cid}
    for (x, y, yaw), name, vis in zip(spawn_positions(cfg, rng), cfg.block_names, box_visuals, strict=True):
        bid = p.createMultiBody(
            cfg.cube_mass,
            box_shape,
            vis,
            [x, y, cfg.spawn_z],
            p.getQuaternionFromEuler([0.0, 0.0, yaw]),
            **c,
        )
        p.changeDynamics(
            bid,
            -1,
            lateralFriction=cfg.cube_lateral_friction,
            spinningFriction=cfg.cube_spinning_friction,
            **c,
        )
        yield name, bid
