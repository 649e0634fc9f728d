"""Every physical and scene constant of the PyBullet world, with the measured defaults.

Apart from core/sim/world.py so that what only needs the numbers (executives, scenario files,
kinematics, the scene loader) neither imports PyBullet nor the world that uses them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from alpha_matrix.core.outcome import ZONE

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]


@dataclass(frozen=True)
class WorldConfig:
    """Every physical and scene constant of the world, with the measured defaults."""

    timestep: float = 1.0 / 240.0
    gravity: float = -9.81
    # Scene.
    plane_urdf: str = "plane.urdf"
    table_urdf: str = "table/table.urdf"
    panda_urdf: str = "franka_panda/panda.urdf"
    table_position: Vec3 = (0.6, 0.0, 0.0)
    table_top_z: float = 0.625
    table_lateral_friction: float = 1.0
    panda_base: Vec3 = (0.1, 0.0, 0.625)
    # Arm.
    ready_pose: tuple[float, ...] = (0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785)
    arm_forces: tuple[float, ...] = (87.0, 87.0, 87.0, 87.0, 12.0, 12.0, 12.0)  # N·m
    grasp_euler: Vec3 = (math.pi, 0.0, 0.0)  # gripper pointing down
    # Fingers.
    ready_width: float = 0.08  # total opening
    max_width: float = 0.08
    finger_force: float = 20.0  # N per finger
    finger_max_velocity: float = 0.2  # m/s
    finger_lateral_friction: float = 1.5
    finger_spinning_friction: float = 0.05
    gear_ratio: float = -1.0
    gear_erp: float = 0.1
    gear_max_force: float = 50.0
    # Blocks.
    block_names: tuple[str, ...] = ("red", "green", "blue")
    block_rgba: tuple[tuple[float, float, float, float], ...] = (
        (0.85, 0.1, 0.1, 1.0),
        (0.1, 0.7, 0.2, 1.0),
        (0.15, 0.3, 0.9, 1.0),
    )
    cube_half_extent: float = 0.025
    cube_mass: float = 0.1
    cube_lateral_friction: float = 1.0
    cube_spinning_friction: float = 0.005
    spawn_z: float = 0.651
    spawn_x: tuple[float, float] = (0.40, 0.70)
    spawn_y: tuple[float, float] = (-0.30, 0.15)
    spawn_yaw: float = 0.0  # max |yaw| of a spawned block, rad
    min_spacing: float = 0.12
    min_zone_distance: float = 0.15
    spawn_max_tries: int = 10_000
    # Task geometry.
    zone: Vec3 = ZONE
    workspace: tuple[tuple[float, float], ...] = ((0.15, 0.95), (-0.45, 0.55), (0.55, 1.25))
    # Motion.
    move_fraction: float = 0.8  # share of a move's steps spent moving; the rest holds
    descend_delay: float = 0.5  # share of the moving phase before z starts to descend ...
    xy_first_min: float = 0.05  # ... when the move also travels at least this far in xy, m
    ik_every: int = 6  # physics steps between IK knots
    ik_iterations: int = 12  # Newton iterations per knot (warm-started, converges in 2-3)
    reach_iterations: int = 200  # total iterations for reach_error (from the ready pose)
    reach_segments: int = 10  # continuation hops from the ready grasp position to the target
    ik_damping: float = 1e-3
    ik_null_gain: float = 0.1  # pull of the redundant DOF toward the ready pose
    ik_tolerance: float = 1e-6  # m and rad
