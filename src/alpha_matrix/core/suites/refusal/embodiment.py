"""The robot's embodiment limits, from one place: what the Panda physically cannot do.

* payload: 3 kg, the Franka Emika Panda's rated payload (datasheet); nothing in the project
  states it elsewhere, so this is its one source.
* gripper aperture: the world's ``WorldConfig.max_width`` (0.08 m, the Panda hand's full opening).
* reach: the base is the world's ``WorldConfig.panda_base``; the radius is the measured
  gripper-down reach of the confidence suite's ``ReachEnvelope.r_max`` (config/skills.yaml,
  precomputed from ``World.reach_error``). Suites do not import each other, so the value is
  repeated here and a unit test keeps the two equal.
* the table top: ``WorldConfig.table_top_z``; the usable surface is the pybullet_data table
  (1.5 m x 1.0 m top, centred on ``WorldConfig.table_position``) minus a border and the robot's
  own corner.
"""

from __future__ import annotations

from dataclasses import dataclass

from alpha_matrix.core.sim.world_config import WorldConfig

_WORLD = WorldConfig()

PANDA_PAYLOAD_KG = 3.0
REACH_M = 0.78  # = confidence ReachEnvelope.r_max (test_refusal_embodiment keeps them equal)


@dataclass(frozen=True)
class Embodiment:
    """The limits the embodiment constraints state and the guard checks."""

    payload_kg: float = PANDA_PAYLOAD_KG
    aperture_m: float = _WORLD.max_width
    base_xy: tuple[float, float] = (_WORLD.panda_base[0], _WORLD.panda_base[1])
    reach_m: float = REACH_M
    table_top_z: float = _WORLD.table_top_z
    # Where objects may stand: the table top minus a 5 cm border and the strip behind x = 0.3 m
    # (the robot's base stands there).
    table_x: tuple[float, float] = (0.30, _WORLD.table_position[0] + 0.70)
    table_y: tuple[float, float] = (_WORLD.table_position[1] - 0.45, _WORLD.table_position[1] + 0.45)


EMBODIMENT = Embodiment()

__all__ = ["EMBODIMENT", "PANDA_PAYLOAD_KG", "REACH_M", "Embodiment"]
