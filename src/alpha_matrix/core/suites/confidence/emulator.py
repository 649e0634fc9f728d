"""The VLA-confidence emulator: candidate sub-task instructions + current state -> confidence each.

It stands in for a learned skill policy's self-estimate. A learned policy is
confident on what it was trained on and feasible now, and unsure elsewhere, so the score is

    clip(base(in distribution?) x feasibility x reach margin + calibration noise, 0, 1)

* base: ``in_distribution`` when (skill, object, region, stack level) matches a declared training
  entry, else ``out_of_distribution``;
* feasibility: 1, or ``infeasible_factor`` when the state rules the skill out (object absent or
  under another block, picking while holding, placing while empty, target occupied, outside
  the reach envelope) -- a physical check that needs no World, so the service can run anywhere;
* reach margin: confidence fades near the envelope's edge, where a policy has seen few demos;
* noise: N(0, sigma) from a sha256 stream named by (seed, episode, query index, instruction), so
  a score never depends on which other candidates were asked, in which order, or on other episodes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from alpha_matrix.core.seeds import rng
from alpha_matrix.core.suites.confidence.skills import (
    SceneGeometry,
    Skill,
    SkillError,
    SkillState,
    block_on_top,
    parse_skill,
    place_target,
)

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Region:
    """A named axis-aligned box of the table top (xy only)."""

    name: str
    x: tuple[float, float]
    y: tuple[float, float]

    def contains(self, x: float, y: float) -> bool:
        return self.x[0] <= x <= self.x[1] and self.y[0] <= y <= self.y[1]


@dataclass(frozen=True)
class ReachEnvelope:
    """Grasp-frame positions the arm reaches gripper-down: an annulus around the base, a z band.

    Precomputed from ``World.reach_error`` (a unit test keeps it conservative), so the emulator
    needs no physics client.
    """

    base_xy: tuple[float, float] = (0.1, 0.0)
    r_min: float = 0.30
    r_max: float = 0.78
    z: tuple[float, float] = (0.62, 0.84)

    def margin(self, p: Vec3) -> float:
        """Radial distance to the envelope boundary, m; negative outside (or outside the z band)."""
        if not self.z[0] <= p[2] <= self.z[1]:
            return -1.0
        r = math.hypot(p[0] - self.base_xy[0], p[1] - self.base_xy[1])
        return min(r - self.r_min, self.r_max - r)


@dataclass(frozen=True)
class TrainingEntry:
    """One block of the declared training distribution: skill x objects x regions, up to a stack level.

    For a pick the region and level are where the object is; for a place, where it will rest.
    """

    skill: str
    objects: frozenset[str]
    regions: frozenset[str]
    max_level: int = 0


@dataclass(frozen=True)
class ConfidenceConfig:
    threshold: float
    noise_sigma: float
    in_distribution: float
    out_of_distribution: float
    infeasible_factor: float
    edge_band: float  # m; inside this band of the reach boundary confidence fades to half
    regions: tuple[Region, ...]
    training: tuple[TrainingEntry, ...]
    geometry: SceneGeometry
    reach: ReachEnvelope = ReachEnvelope()
    hover_height: float = 0.115  # the pick's hover point above the block centre, checked for reach
    lift_z: float = 0.80  # carry height, checked for reach
    open_width: float = 0.06  # the fingers count as open above this total opening, m

    def region_of(self, x: float, y: float) -> str | None:
        return next((r.name for r in self.regions if r.contains(x, y)), None)


@dataclass(frozen=True)
class Assessment:
    """One candidate's score with its reasons, for the record."""

    instruction: str
    confidence: float
    in_distribution: bool
    feasible: bool
    reason: str  # "" when feasible, else why not
    noise: float


class ConfidenceEmulator:
    """Stateless apart from its config and seed: the same request always gets the same answer."""

    def __init__(self, config: ConfidenceConfig, seed: int, episode_id: str = "") -> None:
        self.config = config
        self.seed = seed
        self.episode_id = episode_id

    def score(self, candidates: Sequence[str | Skill], state: SkillState, query_index: int) -> list[Assessment]:
        return [self.assess(c, state, query_index) for c in candidates]

    def confidences(
        self, candidates: Sequence[str | Skill], state: SkillState, query_index: int, hypothetical: bool = False
    ) -> list[float]:
        """``hypothetical`` (a look-ahead) is the caller's to record; the answer does not depend on it."""
        return [a.confidence for a in self.score(candidates, state, query_index)]

    def assess(self, candidate: str | Skill, state: SkillState, query_index: int) -> Assessment:
        cfg = self.config
        try:
            skill = parse_skill(candidate) if isinstance(candidate, str) else candidate
        except SkillError as err:  # an instruction no policy was trained on at all
            return Assessment(str(candidate), 0.0, False, False, str(err), 0.0)
        noise = float(rng("skill-confidence", self.seed, self.episode_id, query_index, skill.text).normal())
        noise *= cfg.noise_sigma
        in_dist = self.in_distribution(skill, state)
        reason, margin = self.feasibility(skill, state)
        value = cfg.in_distribution if in_dist else cfg.out_of_distribution
        if reason:
            value *= cfg.infeasible_factor
        elif margin < cfg.edge_band:
            value *= 0.5 + 0.5 * margin / cfg.edge_band
        value = min(1.0, max(0.0, value + noise))
        return Assessment(skill.text, value, in_dist, not reason, reason, noise)

    # ------------------------------------------------------------------ parts
    def in_distribution(self, skill: Skill, state: SkillState) -> bool:
        cfg, geo = self.config, self.config.geometry
        if skill.verb == "pick":
            where = state.positions.get(skill.obj)
        else:
            where = place_target(skill, state, geo)
        if where is None:
            return False
        region, level = cfg.region_of(where[0], where[1]), geo.level(where[2])
        return any(
            e.skill == skill.verb and skill.obj in e.objects and region in e.regions and level <= e.max_level
            for e in cfg.training
        )

    def feasibility(self, skill: Skill, state: SkillState) -> tuple[str, float]:
        """('' or why the skill cannot work now, reach margin of the points it must visit)."""
        cfg, geo = self.config, self.config.geometry
        pos = state.positions.get(skill.obj)
        if pos is None or pos[2] < geo.fallen_z:
            return f"{skill.obj} is not on the table", 0.0
        if skill.verb == "pick":
            if state.holding is not None:
                return f"already holding {state.holding}", 0.0
            if state.gripper_width < cfg.open_width:
                return "gripper is not open", 0.0
            if top := block_on_top(skill.obj, state, geo):
                return f"{top} is on top of {skill.obj}", 0.0
            points = [pos, (pos[0], pos[1], pos[2] + cfg.hover_height), (pos[0], pos[1], cfg.lift_z)]
        else:
            if state.holding != skill.obj:
                return f"not holding {skill.obj}", 0.0
            target = place_target(skill, state, geo)
            if target is None:
                return "unknown place target", 0.0
            if skill.on is not None:
                if skill.on == skill.obj:
                    return "cannot place a block on itself", 0.0
                if top := block_on_top(skill.on, state, geo):
                    return f"{top} is already on {skill.on}", 0.0
            elif occupant := self._occupant(skill.obj, target, state):
                return f"{occupant} occupies the target", 0.0
            points = [target, (target[0], target[1], cfg.lift_z)]
        margin = min(cfg.reach.margin(p) for p in points)
        if margin < 0.0:
            return "outside the reach envelope", margin
        return "", margin

    def _occupant(self, obj: str, target: Vec3, state: SkillState) -> str | None:
        geo = self.config.geometry
        for name, (x, y, z) in state.positions.items():
            if name != obj and math.hypot(x - target[0], y - target[1]) < geo.clear_radius and z < target[2] + geo.size:
                return name
        return None
