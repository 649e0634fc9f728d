"""Scripted oracle planner: the six-step pick-and-place from ground-truth block position.

It emits the typed ``Plan`` directly (no text path). Heights and step budget are a measured
working grasp recipe; with ``SETTLE_STEPS`` they sum to
exactly ``MAX_EPISODE_STEPS``. The place move's "xy first, then descend" shape is the
world's move rule (``WorldConfig.descend_delay``), so the plan stays six plain steps.
"""

from __future__ import annotations

from dataclasses import dataclass

from alpha_matrix.core.planning.plan import Grip, MoveTo, Plan, Release

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class OracleConfig:
    grasp_dz: float = -0.005  # grasp frame relative to the block centre, m
    hover_height: float = 0.12  # above the grasp point, m
    lift_z: float = 0.80  # absolute, m
    place_dz: float = 0.007  # grasp frame above the zone centre at release, m
    hover_steps: int = 300
    descend_steps: int = 120
    grip_steps: int = 60
    lift_steps: int = 120
    place_steps: int = 330
    release_steps: int = 210  # release + settle

    @property
    def total_steps(self) -> int:
        return (
            self.hover_steps
            + self.descend_steps
            + self.grip_steps
            + self.lift_steps
            + self.place_steps
            + self.release_steps
        )


def oracle_plan(block: str, block_position: Vec3, zone: Vec3, config: OracleConfig = OracleConfig()) -> Plan:
    """MOVE_TO hover, MOVE_TO grasp, GRIP, MOVE_TO lift, MOVE_TO place, RELEASE.

    Grip force and release width are left to the executor's ``StepDefaults`` so oracle and
    LLM plans that say the same thing execute identically.
    """
    c = config
    bx, by, bz = (float(v) for v in block_position)
    zx, zy, zz = (float(v) for v in zone)
    gz = bz + c.grasp_dz
    steps: list[MoveTo | Grip | Release] = [
        MoveTo(action="MOVE_TO", target=(bx, by, gz + c.hover_height), steps=c.hover_steps, label="hover"),
        MoveTo(action="MOVE_TO", target=(bx, by, gz), steps=c.descend_steps, label="grasp"),
        Grip(action="GRIP", steps=c.grip_steps, label="grip"),
        MoveTo(action="MOVE_TO", target=(bx, by, c.lift_z), steps=c.lift_steps, label="lift"),
        MoveTo(action="MOVE_TO", target=(zx, zy, zz + c.place_dz), steps=c.place_steps, label="place"),
        Release(action="RELEASE", steps=c.release_steps, label="release"),
    ]
    return Plan(object=block, steps=steps)
