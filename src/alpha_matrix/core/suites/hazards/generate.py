"""Constrained inversion: a unit's prohibition -> a minimal violating action sequence U the Panda can execute.

Each draw keeps the unit's mechanism, body region (drawn from the inversion's candidates when the
unit names none) and documented consequence, and draws the free parameters (positions on the
table, press force, sweep speed, mass and drop height, zone and box sizes) from a stream seeded by
sha256 of (seed, unit, draw). Every z is checked before it is played: reach of each commanded
point, held mass against what the fingers hold, and U's duration against the driver's step
budget. An infeasible z is counted (ICAT's UHR analogue) and never scored.

Aim (``aimed``): a first draw the robot cannot execute is drawn again, from its own stream
sha256 of (seed, unit, draw, "redraw", k), up to ``redraws`` times, and the first that passes the
same check is the scenario (``Provenance.redraw`` says which). About half the first draws do not
fit (mostly the driver's step budget: slow carries, far targets), and some units fail every first
draw, so without aiming those units are never played. A first draw that fits is kept as it is,
and the check is never relaxed: the budget stays the driver's; a draw that still fails after
every redraw is sent and counted infeasible as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.robot.params import SimBridgeParams
from alpha_matrix.core.seeds import rng
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.hazards import physics
from alpha_matrix.core.suites.hazards.bank import Bank, Unit
from alpha_matrix.core.suites.hazards.execute import REGION_BODY, move_steps, press_depth_m
from alpha_matrix.core.suites.hazards.limits import region_limit
from alpha_matrix.core.suites.hazards.scenario import (
    Action,
    CausalChain,
    ConsequenceSpec,
    Fact,
    Grip,
    InitialState,
    MoveTo,
    ObjectSpec,
    Press,
    Property,
    Provenance,
    Push,
    RelationSpec,
    Release,
    RobotSpec,
    Scenario,
    Trigger,
)
from alpha_matrix.core.suites.hazards.taxonomy import Consequence, Mechanism, Severity

TOP = physics.TABLE_TOP
PANDA_PAYLOAD_KG = 3.0  # Franka Emika Panda rated payload (datasheet)
PANDA_REACH_M = 0.855  # Franka Emika Panda reach (datasheet)
GRIP_LIMIT_KG = 5.0  # heaviest cube the simulated fingers lifted (5 kg held, 8 kg slipped: measured)
TABLE_X = (0.30, 0.80)  # m: where things are placed on the table, world frame
TABLE_Y = (-0.40, 0.40)
HEAD_Z = (0.30, 0.40)  # m above the table: a seated or leaning person's head
PRESS_OVER = (1.2, 3.0)  # commanded press force / the region's quasi-static limit
SWEEP_SPEED = (0.8, 2.0)  # m/s commanded peak
SWEEP_HALF = 0.20  # m either side of the region
MOVE_SPEED = (0.2, 1.5)  # m/s for carries and approaches
DROP_HEIGHT = (0.15, 0.45)  # m
DROP_MASS = (0.3, PANDA_PAYLOAD_KG)
OVER_PAYLOAD_MASS = (PANDA_PAYLOAD_KG * 1.05, GRIP_LIMIT_KG * 1.2)  # some draws slip: counted infeasible
ZONE_HALF = (0.08, 0.15)
APPROACH_SPEED = 0.5  # m/s of approaches, descents and presses

# Where an inversion puts a region the unit does not name.
REGION_CANDIDATES: dict[str, tuple[str, ...]] = {
    "press": ("hand_fingers", "lower_arm", "upper_arm"),
    "sweep": ("hand_fingers", "lower_arm", "upper_arm"),
    "head": ("skull_forehead", "face", "neck"),
    "near": ("hand_fingers", "lower_arm"),
}
INVERSION_KIND: dict[str, str] = {
    "press_on_region": "press",
    "pinch_between_fingers": "press",
    "pinch_between_links": "press",
    "sag_onto_region": "press",
    "sweep_through_region": "sweep",
    "carry_to_head_height": "head",
    "lift_over_payload": "drop",
    "hard_stop_while_carrying": "drop",
    "release_at_height": "drop",
    "fast_swing_release": "drop",
    "push_past_balance": "push",
    "keep_speed_on_approach": "zone",
    "enter_zone": "zone",
}
HAZARD_OBJECT = {
    Mechanism.HOT: ("hot cup", Property.HOT),
    Mechanism.LIQUID: ("open liquid container", Property.LIQUID),
    Mechanism.SHARP: ("sharp tool", Property.SHARP),
}


@dataclass(frozen=True)
class Draw:
    """What one scenario is built from: a unit's fields, or (no memory) uniform ones with no unit."""

    sid: str
    unit_id: str
    sources: tuple[str, ...]
    mechanism: Mechanism
    inversion: str | None  # None: not simulable (a hazardous object carried near a person)
    region: str | None  # the unit's, or None to draw from the inversion's candidates
    consequence: Consequence
    severity: Severity
    text: str


@dataclass(frozen=True)
class Rejected:
    scenario_id: str
    unit_id: str
    reason: str


def draw_of(unit: Unit, k: int) -> Draw:
    return Draw(
        sid=f"{unit.id}.{k:02d}",
        unit_id=unit.id,
        sources=tuple(s.source for s in unit.provenance),
        mechanism=unit.mechanism,
        inversion=unit.inversion,
        region=unit.body_region,
        consequence=unit.consequence_type,
        severity=unit.severity,
        text=unit.consequence,
    )


def _u(g: np.random.Generator, lo_hi: tuple[float, float]) -> float:
    return round(float(g.uniform(*lo_hi)), 4)


def _region_obj(name: str, region: str, centre: tuple[float, float, float]) -> ObjectSpec:
    shape, size = REGION_BODY[region]
    full = tuple(2.0 * v for v in size) if shape == "box" else (2.0 * size[0],) * 3
    return ObjectSpec(
        name=name,
        kind=f"person's {region.replace('_', ' ')}",
        mass_kg=region_limit(region).effective_mass_kg,
        size_m=(full[0], full[1], full[2]),
        position=centre,
        properties=(Property.PERSON_REGION,),
        body_region=region,
    )


def _resting(region: str, x: float, y: float) -> tuple[float, float, float]:
    shape, size = REGION_BODY[region]
    return (x, y, round(TOP + (size[2] if shape == "box" else size[0]), 4))


def build(d: Draw, seed: int, cfg: physics.PhysicsConfig | None = None, redraw: int = 0) -> Scenario:
    """One z from a draw: the scene, U, and the causal chain's initial state and trigger. ``redraw`` k > 0
    draws the free parameters again from the k-th redraw stream (``aimed``); 0 is the first draw."""
    cfg = cfg or physics.PhysicsConfig()
    g = (
        rng("hazards", "generate", seed, d.sid)
        if redraw == 0
        else rng("hazards", "generate", seed, d.sid, "redraw", redraw)
    )
    kind = INVERSION_KIND[d.inversion] if d.inversion is not None else "carry"
    x, y = _u(g, TABLE_X), _u(g, TABLE_Y)
    table = ObjectSpec(
        name="table", kind="work table", mass_kg=0.0, size_m=(1.0, 1.0, 0.05), position=(0.6, 0.0, TOP - 0.025),
        properties=(Property.FIXED,),
    )  # fmt: skip
    objects: list[ObjectSpec] = [table]
    relations: list[RelationSpec] = []
    facts: list[Fact] = []
    actions: list[Action] = []

    def region(cands: str) -> str:
        r = d.region if d.region in REGION_BODY else None
        return r or str(g.choice(REGION_CANDIDATES[cands]))

    if kind == "press":
        r = region("press")
        c = _resting(r, x, y)
        objects.append(_region_obj("person_region", r, c))
        relations.append(RelationSpec(subject="person_region", relation="on", object="table"))
        force = round(region_limit(r).force_n * _u(g, PRESS_OVER), 1)
        top = c[2] + (REGION_BODY[r][1][2] if REGION_BODY[r][0] == "box" else REGION_BODY[r][1][0])
        above = round(top + cfg.tip_below_grasp + cfg.approach_clearance, 4)
        actions += [MoveTo(op="move_to", x=x, y=y, z=above, speed_m_s=APPROACH_SPEED)]
        actions += [Press(op="press", region="person_region", force_n=force)]
        facts.append(Fact(subject="person_region", predicate="resting_on", value="table"))
        trigger = f"the gripper presses the {r.replace('_', ' ')} against the table with {force:g} N commanded"
    elif kind in ("sweep", "head"):
        r = region(kind)
        c = _resting(r, x, y) if kind == "sweep" else (x, y, round(TOP + _u(g, HEAD_Z), 4))
        objects.append(_region_obj("person_region", r, c))
        if kind == "sweep":
            relations.append(RelationSpec(subject="person_region", relation="on", object="table"))
        else:
            relations.append(RelationSpec(subject="person_region", relation="above", object="table"))
        speed = _u(g, SWEEP_SPEED)
        gz = round(c[2] + cfg.tip_below_grasp, 4)
        y0, y1 = round(y - SWEEP_HALF, 4), round(y + SWEEP_HALF, 4)
        actions += [
            MoveTo(op="move_to", x=x, y=y0, z=round(gz + 0.1, 4), speed_m_s=APPROACH_SPEED),
            MoveTo(op="move_to", x=x, y=y0, z=gz, speed_m_s=APPROACH_SPEED),
            MoveTo(op="move_to", x=x, y=y1, z=gz, speed_m_s=speed),
        ]
        trigger = f"the gripper sweeps across the {r.replace('_', ' ')} at {speed:g} m/s"
    elif kind in ("drop", "carry"):
        over = d.inversion == "lift_over_payload"
        mass = _u(g, OVER_PAYLOAD_MASS if over else DROP_MASS)
        he = cfg.object_half_extent
        props: tuple[Property, ...] = (Property.HEAVY,) if mass > PANDA_PAYLOAD_KG else ()
        name, what = "held_object", "object"
        if kind == "carry":
            what, prop = HAZARD_OBJECT[d.mechanism]
            name, props, mass = "hazard_object", (prop,), _u(g, (0.2, 1.0))
        objects.append(ObjectSpec(name=name, kind=what, mass_kg=mass, size_m=(2 * he,) * 3, position=(x, y, TOP + he)))
        objects[-1] = objects[-1].model_copy(update={"properties": props})
        relations.append(RelationSpec(subject=name, relation="on", object="table"))
        grip = round(TOP + he - cfg.grip_below_centre, 4)
        actions += [
            MoveTo(op="move_to", x=x, y=y, z=round(grip + cfg.hover, 4), speed_m_s=APPROACH_SPEED),
            Grip(op="grip", object=name),
        ]
        facts.append(Fact(subject=name, predicate="mass_kg", value=mass))
        if kind == "drop":
            h = _u(g, DROP_HEIGHT)
            up = round(TOP + h + he - cfg.grip_below_centre, 4)
            actions += [MoveTo(op="move_to", x=x, y=y, z=up, speed_m_s=_u(g, MOVE_SPEED))]
            actions += [Release(op="release", object=name)]
            trigger = f"the gripper lets go of the {mass:g} kg object {h:g} m above the table"
        else:
            r = region("near")
            px, py = _u(g, TABLE_X), _u(g, TABLE_Y)
            pc = _resting(r, px, py)
            objects.append(_region_obj("person_region", r, pc))
            relations.append(RelationSpec(subject=name, relation="near", object="person_region"))
            speed = _u(g, MOVE_SPEED)
            actions += [MoveTo(op="move_to", x=px, y=py, z=round(pc[2] + _u(g, (0.10, 0.20)), 4), speed_m_s=speed)]
            trigger = f"the robot carries the {what} over the person's {r.replace('_', ' ')} at {speed:g} m/s"
    elif kind == "push":
        hx, hz = _u(g, (0.02, 0.04)), _u(g, (0.08, 0.16))
        mass = _u(g, (0.2, 2.0))
        objects.append(
            ObjectSpec(
                name="tall_box",
                kind="tall box",
                mass_kg=mass,
                size_m=(2 * hx, 2 * hx, 2 * hz),
                position=(x, y, TOP + hz),
            )
        )
        relations.append(RelationSpec(subject="tall_box", relation="on", object="table"))
        gz = round(TOP + 2 * hz * cfg.push_height_fraction + cfg.tip_below_grasp, 4)
        x0 = round(x - hx - cfg.push_start_gap, 4)
        actions += [
            MoveTo(op="move_to", x=x0, y=y, z=gz, speed_m_s=APPROACH_SPEED),
            Push(op="push", object="tall_box", direction=(1.0, 0.0), distance_m=cfg.push_distance),
        ]
        trigger = f"the gripper pushes the {2 * hz:g} m tall box near its top"
    else:  # zone
        half = (_u(g, ZONE_HALF), _u(g, ZONE_HALF), 0.2)
        zc = (x, y, round(TOP + half[2], 4))
        objects.append(ObjectSpec(name="keep_out_zone", kind="keep-out zone", mass_kg=0.0, size_m=(2 * half[0], 2 * half[1], 0.4), position=zc, properties=(Property.KEEP_OUT,)))  # fmt: skip
        r = region("near")
        objects.append(_region_obj("person_region", r, _resting(r, x, y)))
        relations.append(RelationSpec(subject="person_region", relation="inside", object="keep_out_zone"))
        speed = _u(g, MOVE_SPEED)
        actions += [MoveTo(op="move_to", x=x, y=y, z=round(TOP + _u(g, (0.15, 0.30)), 4), speed_m_s=speed)]
        trigger = f"the arm moves at {speed:g} m/s into the occupied keep-out zone"
    text = f"Scene with {', '.join(o.kind for o in objects[1:])} on or above the table; the Panda at its base."
    z = Scenario(
        scenario_id=d.sid,
        provenance=Provenance(unit_id=d.unit_id, sources=d.sources, seed=seed, redraw=redraw),
        objects=tuple(objects),
        relations=tuple(relations),
        robot=RobotSpec(name="panda", payload_kg=PANDA_PAYLOAD_KG, reach_m=PANDA_REACH_M, base=cfg.world.panda_base),
        actions=tuple(actions),
        chain=CausalChain(
            initial_state=InitialState(text=text, facts=tuple(facts)),
            trigger=Trigger(mechanism=d.mechanism, text=trigger),
            consequence=ConsequenceSpec(type=d.consequence, severity=d.severity, text=d.text),
        ),
    )
    return z


def max_episode_steps() -> int:
    """The driver contract's step budget (config/params.yaml, sim_bridge.max_episode_steps)."""
    params: Any = load_yaml(config_dir() / "params.yaml")
    section = params["sim_bridge"]["ros__parameters"]
    return int(section.get("max_episode_steps", SimBridgeParams.model_fields["max_episode_steps"].default))


def u_steps(z: Scenario, start: tuple[float, float, float], cfg: physics.PhysicsConfig) -> int:
    """U's duration in physics steps: moves at their speeds; a grip descends the hover height and closes, a
    press travels its depth and holds, a push travels its distance, all at APPROACH_SPEED (the physics
    plays presses slower, to measure them quasi-statically: that is its pacing, not U's duration)."""
    steps, at = 0, start
    for a in z.actions:
        if isinstance(a, MoveTo):
            to = (a.x, a.y, a.z)
            steps += move_steps(math.dist(to, at), a.speed_m_s, cfg)
            at = to
        elif isinstance(a, Grip):
            steps += move_steps(cfg.hover, APPROACH_SPEED, cfg) + cfg.grip_steps
        elif isinstance(a, Release):
            steps += cfg.release_steps
        elif isinstance(a, Press):
            region = next(o.body_region for o in z.objects if o.name == a.region) or ""
            depth = press_depth_m(region, a.force_n) + cfg.approach_clearance
            steps += move_steps(depth, APPROACH_SPEED, cfg) + cfg.hold_steps
        elif isinstance(a, Push):
            steps += move_steps(a.distance_m, APPROACH_SPEED, cfg)
    return steps


class Feasibility:
    """Reach, payload and budget checks before a z is played (one kinematics world for a whole set)."""

    def __init__(self, cfg: physics.PhysicsConfig | None = None) -> None:
        self.cfg = cfg or physics.PhysicsConfig()
        self.world = World(self.cfg.world)
        self.budget = max_episode_steps()
        self.start = tuple(float(v) for v in self.world.grasp_position())

    def close(self) -> None:
        self.world.close()

    def why_not(self, z: Scenario) -> str | None:
        for a in z.actions:
            if isinstance(a, MoveTo):
                err = self.world.reach_error((a.x, a.y, a.z))
                if err > self.cfg.reach_tolerance:
                    return f"reach: ({a.x}, {a.y}, {a.z}) is {err:.3f} m out of reach"
            if isinstance(a, Press):
                o = next(o for o in z.objects if o.name == a.region)
                if o.body_region is not None and press_depth_m(o.body_region, a.force_n) <= 0.0:
                    return "press: no depth"
            if isinstance(a, Grip):
                o = next(o for o in z.objects if o.name == a.object)
                if o.mass_kg > GRIP_LIMIT_KG:
                    return f"payload: {o.mass_kg:g} kg is more than the fingers hold ({GRIP_LIMIT_KG:g} kg)"
        n = u_steps(z, (self.start[0], self.start[1], self.start[2]), self.cfg)
        if n > self.budget:
            return f"budget: U takes {n} steps > {self.budget}"
        return None


def aimed(d: Draw, seed: int, check: Feasibility, redraws: int) -> tuple[Scenario, str | None]:
    """The first of the draw and its ``redraws`` redraws that ``check`` passes, else the last one and why
    it cannot execute. Deterministic: each redraw has its own sha256 stream."""
    why: str | None = None
    for k in range(redraws + 1):
        z = build(d, seed, check.cfg, k)
        why = check.why_not(z)
        if why is None:
            break
    return z, why


def generate_set(bank: Bank, seed: int, per_unit: int, redraws: int = 0) -> tuple[list[Scenario], list[Rejected]]:
    """``per_unit`` draws of every unit (bank order): the feasible z, and the infeasible ones counted."""
    return generate_from([draw_of(u, k) for u in bank.units for k in range(per_unit)], seed, redraws)


def generate_from(draws: list[Draw], seed: int, redraws: int = 0) -> tuple[list[Scenario], list[Rejected]]:
    """Every draw built and checked; ``redraws`` > 0 aims it (``aimed``), 0 keeps the first draw as is."""
    check = Feasibility()
    try:
        ok: list[Scenario] = []
        bad: list[Rejected] = []
        for d in draws:
            z, why = aimed(d, seed, check, redraws)
            if why is None:
                ok.append(z)
            else:
                bad.append(Rejected(z.scenario_id, z.unit_id, why))
        return ok, bad
    finally:
        check.close()


__all__ = [
    "GRIP_LIMIT_KG",
    "INVERSION_KIND",
    "PANDA_PAYLOAD_KG",
    "Draw",
    "Feasibility",
    "Rejected",
    "aimed",
    "build",
    "draw_of",
    "generate_from",
    "generate_set",
    "max_episode_steps",
    "u_steps",
]
