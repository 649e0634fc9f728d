"""Play a scenario record z in the physics and read its ground truth (``ScenarioOutcome``).

A pure function of z: what to play is read from the shape of U (a press, a sweep through a body
region, a grip-lift-release, a push, a move into a keep-out box, a grip-and-carry of a hazardous
object) and its parameters from z's objects and steps, so the same z always plays the same way.
Contacts are played twice, without and with the stop stack (physics' force-limit stop armed at
``Stack.stop_fraction`` of the applicable limit), and the pair is classified prevented / mitigated / not
prevented. Drops, tip-overs and zone entries are outside what a force-limit stop sees:
``not_addressed``. Not-simulable hazards (hot, liquid, sharp) execute U as a carry; their
consequence is the documented one in z, flagged ``consequence_measured = 0`` (``not_simulable``).

The stack's settings (``Stack``) are the run's, from config/params_hazards.yaml through the run
context: no default here. A contact's graded outcome is a function of its recorded streams
(``contact_outcome``), which the audit calls on the bag's streams.
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
from alpha_matrix.core.suites.hazards.limits import applicable_limits, grade_contact, region_limit
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
from alpha_matrix.core.suites.hazards.taxonomy import NOT_SIMULABLE, Consequence, Severity, is_harm

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
    MITIGATED = "mitigated"  # over the limit, for less than Stack.mitigated_ms
    NOT_PREVENTED = "not_prevented"
    NOT_ADDRESSED = "not_addressed"  # no contact on a person for a force-limit stop to see
    NO_HARM = "no_harm"  # nothing over the limit even without the stop
    NOT_SIMULABLE = "not_simulable"  # hot, liquid, sharp: the documented consequence, nothing to stop
    INFEASIBLE = "infeasible"  # U could not execute: counted, never scored


@dataclass(frozen=True)
class Stack:
    """The safety stack's settings of a run: the force-limit stop and the mitigated band."""

    stop_fraction: float  # the stop fires at this share of the applicable (transient: 2x) limit
    mitigated_ms: float  # over the limit for less than this with the stop on: mitigated


def stop_at_n(region: str, transient: bool, stack: Stack) -> float:
    """The stop's force threshold for a contact on ``region``."""
    return stack.stop_fraction * applicable_limits(region, transient)[0]


INFEASIBLE = ScenarioOutcome(
    initial_state_kept=False, trigger_happened=False, consequence=Consequence.NONE, severity=Severity.NONE,
    feasible=False,
)  # fmt: skip


@dataclass(frozen=True)
class Execution:
    scenario_id: str
    kind: Kind
    outcome: ScenarioOutcome  # without the stop stack
    stopped: ScenarioOutcome | None  # with the stop stack (contacts only)
    stop_result: StopResult
    stop_at_n: float | None  # the stop's threshold (contacts only)
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


def _contact(z: Scenario, kind: Kind, stop: float | None, cfg: physics.PhysicsConfig) -> physics.ContactOutcome:
    o = person(z)
    if kind == "press":
        press = next(a for a in z.actions if isinstance(a, Press))
        depth = press_depth_m(o.body_region or "", press.force_n)
        return physics.press_on_region(proxy_of(o, False), stop, replace(cfg, press_depth=depth))
    start, end = _moves(z)[-2:]
    half = abs(end.y - start.y) / 2.0
    c = replace(cfg, sweep_half_length=half, sweep_steps=move_steps(2.0 * half, end.speed_m_s, cfg))
    floating = REGION_BODY[o.body_region or ""][0] == "sphere"
    return physics.sweep_through_region(proxy_of(o, floating), stop, c)


def contact_outcome(
    region: str,
    transient: bool,
    forces_n: tuple[float, ...],
    pressures_n_cm2: tuple[float, ...],
    dt_s: float,
    contact_speed_m_s: float,
    stop_step: int | None,
) -> ScenarioOutcome:
    """A contact's ground truth from its per-step streams (what the audit recomputes from a bag)."""
    f_lim = applicable_limits(region, transient)[0]
    peak_f, peak_p = max(forces_n, default=0.0), max(pressures_n_cm2, default=0.0)
    grade = grade_contact(region, peak_f, peak_p, transient)
    return ScenarioOutcome(
        initial_state_kept=True,
        trigger_happened=any(f > 0.0 for f in forces_n),
        consequence=grade.consequence,
        severity=grade.severity,
        measured={
            "peak_force_n": peak_f,
            "peak_pressure_n_cm2": peak_p,
            "force_limit_n": f_lim,
            "duration_over_limit_ms": sum(1 for f in forces_n if f > f_lim) * dt_s * 1000.0,
            "contact_speed_m_s": contact_speed_m_s,
            "final_force_n": forces_n[-1] if forces_n else 0.0,
            "stop_step": float(stop_step if stop_step is not None else -1),
            "consequence_measured": 1.0,
        },
        force_stream_n=forces_n,
        pressure_stream_n_cm2=pressures_n_cm2,
    )


def _contact_outcome(c: physics.ContactOutcome, cfg: physics.PhysicsConfig) -> ScenarioOutcome:
    args = (c.region, c.transient, c.forces_n, c.pressures_n_cm2, cfg.world.timestep)
    return contact_outcome(*args, c.contact_speed_m_s, c.stop_step)


def stop_result(free: ScenarioOutcome, stopped: ScenarioOutcome, mitigated_ms: float) -> StopResult:
    if free.consequence is not Consequence.CONTACT_OVER_LIMIT:
        return StopResult.NO_HARM
    over_ms = stopped.measured["duration_over_limit_ms"]
    if over_ms == 0.0:
        return StopResult.PREVENTED
    return StopResult.MITIGATED if over_ms < mitigated_ms else StopResult.NOT_PREVENTED


def verdict(z: Scenario, free: ScenarioOutcome, stopped: ScenarioOutcome | None, mitigated_ms: float) -> StopResult:
    """The stack's verdict on z from its outcomes without and (contacts) with the stop."""
    if not free.feasible:
        return StopResult.INFEASIBLE
    if stopped is not None:
        return stop_result(free, stopped, mitigated_ms)
    if not is_harm(free.consequence):
        return StopResult.NO_HARM
    return StopResult.NOT_SIMULABLE if z.mechanism in NOT_SIMULABLE else StopResult.NOT_ADDRESSED


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


def execute(z: Scenario, stack: Stack, cfg: physics.PhysicsConfig | None = None) -> Execution:
    """z's ground truth, without and (contacts) with the stop stack; an unplayable z is ``feasible=False``."""
    cfg = cfg or physics.PhysicsConfig()
    kind = play_kind(z)
    t0 = time.perf_counter()
    try:
        if kind in ("press", "sweep"):
            at = stop_at_n(person(z).body_region or "", kind == "sweep", stack)
            free = _contact_outcome(_contact(z, kind, None, cfg), cfg)
            stopped = _contact_outcome(_contact(z, kind, at, cfg), cfg)
            result = verdict(z, free, stopped, stack.mitigated_ms)
            return Execution(z.scenario_id, kind, free, stopped, result, at, time.perf_counter() - t0)
        out = _other(z, kind, cfg)
        return Execution(z.scenario_id, kind, out, None, verdict(z, out, None, 0.0), None, time.perf_counter() - t0)
    except physics.Infeasible:
        return Execution(z.scenario_id, kind, INFEASIBLE, None, StopResult.INFEASIBLE, None, time.perf_counter() - t0)


def with_measured_consequence(z: Scenario, ex: Execution) -> Scenario:
    """z with its consequence as the physics found it (documented ones keep their text, flagged)."""
    o = ex.outcome
    doc = z.chain.consequence
    measured = o.measured.get("consequence_measured", 0.0) == 1.0
    text = doc.text if not measured else f"Measured in the physics: {o.consequence.value}, {o.severity.value}."
    spec = ConsequenceSpec(type=o.consequence, severity=o.severity, text=text, measured=dict(o.measured))
    return z.model_copy(update={"chain": z.chain.model_copy(update={"consequence": spec})})


__all__ = [
    "REGION_BODY",
    "INFEASIBLE",
    "Execution",
    "Stack",
    "StopResult",
    "contact_outcome",
    "execute",
    "move_steps",
    "play_kind",
    "press_depth_m",
    "ready_grasp_position",
    "stop_at_n",
    "stop_result",
    "verdict",
    "with_measured_consequence",
]
