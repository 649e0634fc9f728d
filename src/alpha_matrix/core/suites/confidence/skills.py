"""Skills: short sub-task instructions a VLA would take, compiled into the existing plan machinery.

The vocabulary is deliberately two verbs: ``pick(red)`` and ``place(red, zone_a)``; a stack is a
place on top of another block (``place(red, on=blue)``) and a put-back is a place at a table
point (``place(red, at=(0.512, -0.103))``). Instructions are text so that a candidate list can
cross a service boundary unchanged; ``parse_skill`` is the only way back to data.

Motion reuses ``oracle_plan``: a pick is its first four steps (hover, grasp, grip, lift), a place
its last two (place, release) plus a retreat to the lift height, so a skill moves exactly as the
scripted oracle does and no geometry is duplicated here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.planning.oracle import OracleConfig, oracle_plan
from alpha_matrix.core.planning.plan import MoveTo, Plan

Vec3 = tuple[float, float, float]

VERBS = ("pick", "place")
_ORACLE = OracleConfig()
_NAME = r"[a-z][a-z0-9_]*"
_NUM = r"-?\d+(?:\.\d+)?"
_PICK = re.compile(rf"^pick\(\s*({_NAME})\s*\)$")
_PLACE_ZONE = re.compile(rf"^place\(\s*({_NAME})\s*,\s*({_NAME})\s*\)$")
_PLACE_ON = re.compile(rf"^place\(\s*({_NAME})\s*,\s*on\s*=\s*({_NAME})\s*\)$")
_PLACE_AT = re.compile(rf"^place\(\s*({_NAME})\s*,\s*at\s*=\s*\(\s*({_NUM})\s*,\s*({_NUM})\s*\)\s*\)$")


class SkillError(AlphaMatrixError, ValueError):
    """An instruction outside the skill grammar, or a skill that cannot be compiled in this state."""


@dataclass(frozen=True)
class Skill:
    """One sub-task instruction. A place has exactly one of ``zone``, ``on`` or ``at``."""

    verb: str
    obj: str
    zone: str | None = None
    on: str | None = None
    at: tuple[float, float] | None = None

    @property
    def text(self) -> str:
        if self.verb == "pick":
            return f"pick({self.obj})"
        if self.on is not None:
            return f"place({self.obj}, on={self.on})"
        if self.at is not None:
            return f"place({self.obj}, at=({self.at[0]:.3f}, {self.at[1]:.3f}))"
        return f"place({self.obj}, {self.zone})"

    def __str__(self) -> str:
        return self.text


def pick(obj: str) -> Skill:
    return Skill("pick", obj)


def place(obj: str, zone: str | None = None, *, on: str | None = None, at: tuple[float, float] | None = None) -> Skill:
    if sum(v is not None for v in (zone, on, at)) != 1:
        raise SkillError(f"place({obj}) needs exactly one of a zone, on= or at=")
    return Skill("place", obj, zone=zone, on=on, at=None if at is None else (round(at[0], 3), round(at[1], 3)))


def parse_skill(text: str) -> Skill:
    """Instruction text -> Skill, or SkillError with a one-line reason."""
    t = text.strip()
    if m := _PICK.match(t):
        return pick(m[1])
    if m := _PLACE_ON.match(t):
        return place(m[1], on=m[2])
    if m := _PLACE_AT.match(t):
        return place(m[1], at=(float(m[2]), float(m[3])))
    if m := _PLACE_ZONE.match(t):
        return place(m[1], m[2])
    raise SkillError(f"not a skill instruction: {text!r} (expected pick(obj) or place(obj, zone|on=obj|at=(x, y)))")


@dataclass(frozen=True)
class SceneGeometry:
    """Where things rest on the table: the facts every skill module agrees on."""

    zones: dict[str, Vec3] = field(default_factory=dict)  # block-centre position of a block resting there
    half_extent: float = 0.025  # cube half size, m (WorldConfig.cube_half_extent)
    rest_z: float = 0.65  # block centre resting on the table, m
    fallen_z: float = 0.60  # below this a block has left the table
    success_radius: float = 0.05  # 3-D block centre to target, m (the pick-and-place task's radius)
    stack_xy_tolerance: float = 0.03  # a block counts as on another within this xy offset, m
    clear_radius: float = 0.06  # a place target is occupied by another block this close in xy, m

    @property
    def size(self) -> float:
        return 2.0 * self.half_extent

    def level(self, z: float) -> int:
        """0 on the table, 1 on one block, ..."""
        return max(0, round((z - self.rest_z) / self.size))


@dataclass(frozen=True)
class SkillState:
    """What a skill policy sees: block centres, what the fingers hold, and their opening."""

    positions: dict[str, Vec3]
    holding: str | None = None
    gripper_width: float = 0.08  # total opening, m


def block_on_top(name: str, state: SkillState, geo: SceneGeometry) -> str | None:
    """The block resting directly on ``name``, if any (the held block does not count)."""
    bx, by, bz = state.positions[name]
    for other, (x, y, z) in state.positions.items():
        if other in (name, state.holding):
            continue
        if math.hypot(x - bx, y - by) < geo.stack_xy_tolerance and abs(z - bz - geo.size) < 0.5 * geo.half_extent:
            return other
    return None


def infer_holding(
    positions: dict[str, Vec3], grasp: Vec3, gripper_width: float, geo: SceneGeometry, slack: float = 0.015
) -> str | None:
    """The block between the fingertips with the fingers closed on it, judged from poses alone."""
    if abs(gripper_width - geo.size) > slack:
        return None
    for name, (x, y, z) in positions.items():
        if math.hypot(x - grasp[0], y - grasp[1]) < geo.half_extent and abs(z - grasp[2]) < geo.half_extent:
            return name
    return None


def place_target(skill: Skill, state: SkillState, geo: SceneGeometry) -> Vec3 | None:
    """Block-centre position a place ends at, or None when the target does not exist."""
    if skill.verb != "place":
        return None
    if skill.zone is not None:
        return geo.zones.get(skill.zone)
    if skill.at is not None:
        return (skill.at[0], skill.at[1], geo.rest_z)
    support = state.positions.get(skill.on or "")
    if support is None:
        return None
    return (support[0], support[1], support[2] + geo.size)


def compile_skill(skill: Skill, state: SkillState, geo: SceneGeometry, oracle: OracleConfig = _ORACLE) -> Plan:
    """The robot motion of one skill, as a Plan for ``plan_to_commands``."""
    if skill.verb == "pick":
        if skill.obj not in state.positions:
            raise SkillError(f"{skill.text}: no object named {skill.obj!r}")
        # oracle_plan needs a zone; the pick keeps only the steps before the place, so any will do.
        full = oracle_plan(skill.obj, state.positions[skill.obj], state.positions[skill.obj], oracle)
        return Plan(object=skill.obj, steps=full.steps[:4])
    target = place_target(skill, state, geo)
    if target is None:
        raise SkillError(f"{skill.text}: unknown place target")
    here = state.positions.get(skill.obj, target)
    full = oracle_plan(skill.obj, here, target, oracle)
    retreat = MoveTo(
        action="MOVE_TO", target=(target[0], target[1], oracle.lift_z), steps=oracle.lift_steps, label="retreat"
    )
    return Plan(object=skill.obj, steps=[*full.steps[4:], retreat])


def goal_achieved(targets: Iterable[Skill], state: SkillState, geo: SceneGeometry) -> bool:
    """A goal is achieved when its block rests at any of its targets (in ``state``)."""
    return any(skill_succeeded(t, place_target(t, state, geo), state, geo) for t in targets)


def skill_succeeded(skill: Skill, target: Vec3 | None, after: SkillState, geo: SceneGeometry) -> bool:
    """Physical post-condition of a finished skill: held after a pick, resting at the target after a place."""
    if skill.verb == "pick":
        return after.holding == skill.obj
    pos = after.positions.get(skill.obj)
    return (
        target is not None
        and pos is not None
        and after.holding is None
        and math.dist(pos, target) <= geo.success_radius
    )
