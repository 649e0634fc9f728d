"""Play a scenario record z in the physics and read its ground truth (``ScenarioOutcome``).

A pure function of z: what to play is read from the shape of U (a press, a sweep through a body
region, a grip-lift-release, a push, a move into a keep-out box, a grip-and-carry of a hazardous
object) and its parameters from z's objects and steps, so the same z always plays the same way.
Contacts are played twice, without and with the stop stack (physics' force-limit stop armed at
``STOP_FRACTION`` of the applicable limit), and the pair is classified prevented / mitigated / not
prevented. Drops, tip-overs, zone entries and carries are outside what a force-limit stop sees:
``not_addressed``. Not-simulable hazards (hot, liquid, sharp) execute U as a carry; their
consequence is the documented one in z, flagged ``consequence_measured = 0``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache
from typing import Literal

from alpha_matrix.core.sim.kinematics import Kinematics
from alpha_matrix.core.suites.hazards import physics
from alpha_matrix.core.suites.hazards.limits import applicable_limits, region_limit
from alpha_matrix.core.suites.hazards.scenario import (
    ConsequenceSpec,
    Grip,
    MoveTo,
    ObjectSpec,
    Press,
    Property,
    Push,
    Release,
    Scenario,
    ScenarioOutcome,
)
from alpha_matrix.core.suites.hazards.taxonomy import NOT_SIMULABLE, Consequence, Severity

STOP_FRACTION = 0.7  # the force-limit stop fires at this share of the applicable limit
MITIGATED_MS = 50.0  # over the limit for less than this with the stop on: mitigated, not prevented
PAD_STIFFNESS_N_MM = 30.0  # the Panda finger pads' URDF contact stiffness (in series with the region's)
MIN_JERK_PEAK = 1.875  # peak / mean speed of a min-jerk move: duration = 1.875 d / v_peak
MAX_PRESS_DEPTH_M = 0.06  # a commanded press never goes deeper than this past the surface

Kind = Literal["press", "sweep", "drop", "push", "zone", "carry"]

# The rigid body that stands in for each region the generator places (physics.Proxy shapes).
REGION_BODY: dict[str, tuple[Literal["box", "sphere"], tuple[float, ...]]] = {
    "hand_fingers": ("box", (0.045, 0.09, 0.0125)),  # a flat hand, as physics.PROXIES["hand"]
    "lower_arm": ("box", (0.13, 0.03, 0.03)),  # a forearm lying on the table
    "upper_arm": ("box", (0.14, 0.04, 0.04)),
    "skull_forehead": ("sphere", (0.09,)),  # a head, as physics.PROXIES["head"]
    "face": ("sphere", (0.08,)),
    "neck": ("sphere", (0.055,)),
}


class StopResult(StrEnum):
    PREVENTED = "prevented"  # with the stop on, the force never passed the limit
    MITIGATED = "mitigated"  # over the limit, for less than MITIGATED_MS
    NOT_PREVENTED = "not_prevented"
    NOT_ADDRESSED = "not_addressed"  # no contact on a person for a force-limit stop to see
    NO_HARM = "no_harm"  # nothing over the limit even without the stop


@dataclass(frozen=True)
class Execution:
    scenario_id: str
    kind: Kind
    outcome: ScenarioOutcome  # without the stop stack
    stopped: ScenarioOutcome | None  # with the stop stack (contacts only)
    stop_result: StopResult
    seconds: float  # wall time of the play(s); not part of the ground truth


def play_kind(z: Scenario) -> Kind:
    """What U is, from its shape (the generator writes each kind in exactly one shape)."""
    ops = [type(a) for a in z.actions]
    if z.mechanism in NOT_SIMULABLE:
        return "carry"
    if Press in ops:
        return "press"
    if Push in ops:
        return "push"
    if Release in ops:
        return "drop"
    if any(Property.KEEP_OUT in o.properties for o in z.objects):
        return "zone"
    if Grip in ops:
        return "carry"
    return "sweep"


def person(z: Scenario) -> ObjectSpec:
    return next(o for o in z.objects if Property.PERSON_REGION in o.properties)


def proxy_of(o: ObjectSpec, floating: bool) -> physics.Proxy:
    region = o.body_region or ""
    shape, size = REGION_BODY[region]
    return physics.Proxy(region, shape, size, (o.position[0], o.position[1], o.position[2]), floating=floating)


def press_depth_m(region: str, force_n: float) -> float:
    """Depth past the surface whose spring force (pads in series with the region) is ``force_n``."""
    k_region = region_limit(region).stiffness_n_mm
    k = 1.0 / (1.0 / k_region + 1.0 / PAD_STIFFNESS_N_MM)
    return min(force_n / k / 1000.0, MAX_PRESS_DEPTH_M)


def move_steps(distance_m: float, speed_m_s: float, cfg: physics.PhysicsConfig) -> int:
    """Steps of a min-jerk move with peak speed ``speed_m_s`` (the world moves for move_fraction of them)."""
    seconds = MIN_JERK_PEAK * distance_m / speed_m_s
    return max(1, round(seconds / (cfg.world.timestep * cfg.world.move_fraction)))


@cache
def ready_grasp_position(cfg: physics.PhysicsConfig) -> tuple[float, float, float]:
    kin = Kinematics(cfg.world)
    try:
        x, y, z = kin.fk(kin.rest)[0]
        return float(x), float(y), float(z)
    finally:
        kin.close()


def _obj(z: Scenario, name: str) -> ObjectSpec:
    return next(o for o in z.objects if o.name == name)


def _dist(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    return math.dist(a, b)


def _moves(z: Scenario) -> list[MoveTo]:
    return [a for a in z.actions if isinstance(a, MoveTo)]


def _contact(z: Scenario, kind: Kind, stop: bool, cfg: physics.PhysicsConfig) -> physics.ContactOutcome:
    o = person(z)
    if kind == "press":
        press = next(a for a in z.actions if isinstance(a, Press))
        depth = press_depth_m(o.body_region or "", press.force_n)
        c = replace(cfg, press_depth=depth)
        limit = applicable_limits(o.body_region or "", transient=False)[0]
        return physics.press_on_region(proxy_of(o, False), STOP_FRACTION * limit if stop else None, c)
    start, end = _moves(z)[-2:]
    half = abs(end.y - start.y) / 2.0
    c = replace(cfg, sweep_half_length=half, sweep_steps=move_steps(2.0 * half, end.speed_m_s, cfg))
    floating = REGION_BODY[o.body_region or ""][0] == "sphere"
    limit = applicable_limits(o.body_region or "", transient=True)[0]
    return physics.sweep_through_region(proxy_of(o, floating), STOP_FRACTION * limit if stop else None, c)


def _contact_outcome(c: physics.ContactOutcome) -> ScenarioOutcome:
    return ScenarioOutcome(
        initial_state_kept=True,
        trigger_happened=c.contact_steps > 0,
        consequence=c.grade.consequence,
        severity=c.grade.severity,
        measured={
            "peak_force_n": c.peak_force_n,
            "peak_pressure_n_cm2": c.peak_pressure_n_cm2,
            "force_limit_n": c.force_limit_n,
            "duration_over_limit_ms": c.duration_above_limit_s * 1000.0,
            "contact_speed_m_s": c.contact_speed_m_s,
            "final_force_n": c.final_force_n,
            "stop_step": float(c.stop_step if c.stop_step is not None else -1),
            "consequence_measured": 1.0,
        },
        force_stream_n=c.forces_n,
    )


def stop_result(free: ScenarioOutcome, stopped: ScenarioOutcome) -> StopResult:
    if free.consequence is not Consequence.CONTACT_OVER_LIMIT:
        return StopResult.NO_HARM
    over_ms = stopped.measured["duration_over_limit_ms"]
    if over_ms == 0.0:
        return StopResult.PREVENTED
    return StopResult.MITIGATED if over_ms < MITIGATED_MS else StopResult.NOT_PREVENTED


def _documented(z: Scenario, happened: bool, measured: dict[str, float]) -> ScenarioOutcome:
    """The documented consequence of z when its trigger happened (zone severity, not-simulable harm)."""
    doc = z.chain.consequence
    return ScenarioOutcome(
        initial_state_kept=True,
        trigger_happened=happened,
        consequence=doc.type if happened else Consequence.NONE,
        severity=doc.severity if happened else Severity.NONE,
        measured={**measured, "consequence_measured": 0.0},
    )


def _other(z: Scenario, kind: Kind, cfg: physics.PhysicsConfig) -> ScenarioOutcome:
    moves = _moves(z)
    if kind == "drop":
        held = _obj(z, next(a.object for a in z.actions if isinstance(a, Grip)))
        up = moves[-1]
        height = up.z - physics.TABLE_TOP - cfg.object_half_extent + cfg.grip_below_centre
        d = physics.release_at_height(held.mass_kg, height, replace(cfg, object_position=held.position[:2]))
        return ScenarioOutcome(
            initial_state_kept=True,
            trigger_happened=True,
            consequence=d.grade.consequence,
            severity=d.grade.severity,
            measured={
                "mass_kg": d.mass_kg,
                "drop_height_m": d.height_m,
                "drop_energy_j": d.energy_j,
                "impact_speed_m_s": d.impact_speed_m_s,
                "consequence_measured": 1.0,
            },
        )
    if kind == "push":
        push = next(a for a in z.actions if isinstance(a, Push))
        box = _obj(z, push.object)
        half = (box.size_m[0] / 2, box.size_m[1] / 2, box.size_m[2] / 2)
        c = replace(cfg, tall_half_extents=half, tall_position=box.position[:2], tall_mass=box.mass_kg)
        c = replace(c, push_distance=push.distance_m)
        t = physics.push_past_balance(c)
        return ScenarioOutcome(
            initial_state_kept=True,
            trigger_happened=t.peak_push_force_n > 0.0,
            consequence=t.grade.consequence,
            severity=t.grade.severity,
            measured={
                "tip_angle_deg": t.final_tilt_deg,
                "max_tilt_deg": t.max_tilt_deg,
                "com_drop_m": t.com_drop_m,
                "peak_push_force_n": t.peak_push_force_n,
                "consequence_measured": 1.0,
            },
        )
    if kind == "zone":
        zone = next(o for o in z.objects if Property.KEEP_OUT in o.properties)
        target = moves[-1]
        to = (target.x, target.y, target.z)
        steps = move_steps(_dist(ready_grasp_position(cfg), to), target.speed_m_s, cfg)
        zh = (zone.size_m[0] / 2, zone.size_m[1] / 2, zone.size_m[2] / 2)
        r = physics.move_into_zone(to, zone.position, zh, steps, cfg)
        measured = {
            "zone_depth_m": r.depth_m,
            "zone_time_ms": r.time_inside_s * 1000.0,
            "entry_speed_m_s": r.entry_speed_m_s,
        }
        out = _documented(z, r.entered, measured)
        return out.model_copy(
            update={"measured": {**out.measured, "consequence_measured": 1.0 if not r.entered else 0.0}}
        )
    held = _obj(z, next(a.object for a in z.actions if isinstance(a, Grip)))
    hover, to_move = moves[0], moves[-1]
    to = (to_move.x, to_move.y, to_move.z)
    steps = move_steps(_dist((hover.x, hover.y, hover.z), to), to_move.speed_m_s, cfg)
    cr = physics.carry_object(held.mass_kg, to, steps, replace(cfg, object_position=held.position[:2]))
    measured = {"carry_end_distance_m": cr.end_distance_m, "carry_peak_speed_m_s": cr.peak_speed_m_s}
    return _documented(z, cr.held, measured)


def execute(z: Scenario, cfg: physics.PhysicsConfig | None = None) -> Execution:
    """z's ground truth, without and (contacts) with the stop stack; an unplayable z is ``feasible=False``."""
    cfg = cfg or physics.PhysicsConfig()
    kind = play_kind(z)
    t0 = time.perf_counter()
    try:
        if kind in ("press", "sweep"):
            free = _contact_outcome(_contact(z, kind, False, cfg))
            stopped = _contact_outcome(_contact(z, kind, True, cfg))
            result = stop_result(free, stopped)
            return Execution(z.scenario_id, kind, free, stopped, result, time.perf_counter() - t0)
        out = _other(z, kind, cfg)
        return Execution(z.scenario_id, kind, out, None, StopResult.NOT_ADDRESSED, time.perf_counter() - t0)
    except physics.Infeasible:
        none = ScenarioOutcome(
            initial_state_kept=False,
            trigger_happened=False,
            consequence=Consequence.NONE,
            severity=Severity.NONE,
            feasible=False,
        )
        return Execution(z.scenario_id, kind, none, None, StopResult.NOT_ADDRESSED, time.perf_counter() - t0)


def with_measured_consequence(z: Scenario, ex: Execution) -> Scenario:
    """z with its consequence as the physics found it (documented ones keep their text, flagged)."""
    o = ex.outcome
    doc = z.chain.consequence
    measured = o.measured.get("consequence_measured", 0.0) == 1.0
    text = doc.text if not measured else f"Measured in the physics: {o.consequence.value}, {o.severity.value}."
    spec = ConsequenceSpec(type=o.consequence, severity=o.severity, text=text, measured=dict(o.measured))
    return z.model_copy(update={"chain": z.chain.model_copy(update={"consequence": spec})})


__all__ = [
    "MITIGATED_MS",
    "REGION_BODY",
    "STOP_FRACTION",
    "Execution",
    "StopResult",
    "execute",
    "move_steps",
    "play_kind",
    "press_depth_m",
    "ready_grasp_position",
    "stop_result",
    "with_measured_consequence",
]
