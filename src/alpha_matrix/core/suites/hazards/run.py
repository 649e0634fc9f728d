"""One hazard scenario through the graph: z played in the physics with and without the stack, the
world model asked on what it may see, its answer scored against what the physics measured.

Two swap points, each one function, for the generator and executor being written beside this
(generate.py, execute.py): ``suite_scenarios`` (today: the records of a scenario file) and
``execute`` (today: z mapped onto one of physics.py's plays by ``plan_of``). Everything after a
play works on the ``Trace`` alone: the per-step force stream and the play's parameters, published
on hazards/physics and recorded, so the audit re-grades the bag without re-running the physics.

The stack is the force-limit stop of physics.py (a power-and-force-limiting monitor), armed at
``stop_fraction`` of the region's quasi-static limit. It watches body-region contact only: a drop
or a tip-over has no hook, so it is played once and the stack counts as not preventing it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from alpha_matrix.core.agent.protocol import Decision, Observation
from alpha_matrix.core.agent.situation import HazardsBrief, HazardsSituation, observation
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.context import HazardsContext
from alpha_matrix.core.suites.hazards.limits import (
    LIMITS,
    applicable_limits,
    grade_contact,
    grade_drop,
    grade_tip,
)
from alpha_matrix.core.suites.hazards.prediction import Prediction, PredictionError
from alpha_matrix.core.suites.hazards.scenario import (
    Grip,
    MoveTo,
    Press,
    Property,
    Push,
    Release,
    Scenario,
    ScenarioOutcome,
    is_harm,
    load_scenarios,
    shown_of,
)
from alpha_matrix.core.suites.hazards.scoring import gate
from alpha_matrix.core.suites.hazards.taxonomy import NOT_SIMULABLE, Consequence, Mechanism, Severity
from alpha_matrix.core.suites.hazards.tools import PREDICT

SUITE = "hazards"
PHYSICS_TOPIC = "/hazards/physics"  # the marker topic: one Trace (JSON) per play
TIMESTEP = 1.0 / 240.0  # WorldConfig.timestep, checked against it by the unit tests (no pybullet here)
STACK_VERDICTS = ("prevented", "mitigated", "not_prevented", "no_harm", "not_simulable", "infeasible")
Kind = Literal["contact", "drop", "tip", "documented", "infeasible"]


def default_path() -> Path:
    return config_dir() / "scenarios" / "hazards.yaml"


def suite_scenarios(path: Path | None) -> tuple[Scenario, ...]:
    """The scenarios of a run (swap point: the generator of the bank goes here)."""
    return load_scenarios(path or default_path())


# ----------------------------------------------------------------------------- the play
@dataclass(frozen=True)
class Plan:
    """Which play of physics.py stands for z, with what (derived from z alone)."""

    kind: Kind
    action: str = ""
    region: str = ""
    transient: bool = False
    mass_kg: float = 0.0
    height_m: float = 0.0
    reason: str = ""  # infeasible: why


def _obj(z: Scenario, name: str) -> Any:
    return next(o for o in z.objects if o.name == name)


def _people(z: Scenario) -> list[Any]:
    return [o for o in z.objects if Property.PERSON_REGION in o.properties]


def plan_of(z: Scenario) -> Plan:
    """z onto the plays physics.py has (press, sweep, release, push); anything else is infeasible."""
    from alpha_matrix.core.suites.hazards.physics import PROXIES

    proxied = {px.region for px in PROXIES.values()}
    m = z.mechanism
    if m in NOT_SIMULABLE:
        return Plan("documented")
    if m in (Mechanism.QUASI_STATIC_CLAMPING, Mechanism.PINCHING, Mechanism.TRANSIENT_IMPACT):
        press = m is not Mechanism.TRANSIENT_IMPACT
        targets = [_obj(z, a.region) for a in z.actions if isinstance(a, Press)] if press else _people(z)
        region = next((o.body_region for o in targets if o.body_region), None)
        if region is None:
            return Plan("infeasible", reason="no body region for the contact")
        if region not in proxied:
            return Plan("infeasible", reason=f"no proxy for body region {region!r}")
        action = "press_on_region" if press else "sweep_through_region"
        return Plan("contact", action, region, transient=not press)
    if m is Mechanism.DROPPED_OBJECT:
        held, z_at = None, None
        for a in z.actions:
            if isinstance(a, Grip):
                held = _obj(z, a.object)
            elif isinstance(a, MoveTo):
                z_at = a.z
            elif isinstance(a, Release) and held is not None and z_at is not None:
                return Plan(
                    "drop", "release_at_height", mass_kg=held.mass_kg, height_m=round(z_at - held.position[2], 6)
                )
        return Plan("infeasible", reason="no grip, move and release to play")
    if m is Mechanism.TIP_OVER and any(isinstance(a, Push) for a in z.actions):
        return Plan("tip", "push_past_balance")
    return Plan("infeasible", reason=f"no play for {m.value} yet")


class Trace(BaseModel):
    """One play as recorded on hazards/physics: its parameters and what it measured, step by step."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    episode_id: str
    scenario_id: str
    run: Literal["free", "stack"]
    kind: Kind
    action: str
    region: str = ""
    transient: bool = False
    dt_s: float = TIMESTEP
    stop_at_n: float | None = None
    stop_step: int | None = None
    forces_n: tuple[float, ...] = ()  # summed normal force on the body region, every step of the play
    pressures_n_cm2: tuple[float, ...] = ()
    mass_kg: float = 0.0
    height_m: float = 0.0  # drop: measured object bottom above the table at release
    tipped: bool = False
    com_drop_m: float = 0.0
    reason: str = ""  # infeasible: why


def stop_at(plan: Plan, stop_fraction: float) -> float | None:
    """The stack's force threshold for this play (None: no hook, the stack cannot act)."""
    return stop_fraction * LIMITS[plan.region].force_n if plan.kind == "contact" else None


def execute(z: Scenario, plan: Plan, episode_id: str, stop_at_n: float | None = None) -> Trace:
    """Play z (swap point: execute.py's z -> outcome goes here). Infeasible is a Trace, never an exception."""
    from alpha_matrix.core.suites.hazards import physics

    run: Literal["free", "stack"] = "free" if stop_at_n is None else "stack"
    head: dict[str, Any] = {"episode_id": episode_id, "scenario_id": z.scenario_id, "run": run, "action": plan.action}
    try:
        if plan.kind == "contact":
            proxy = next(n for n, px in physics.PROXIES.items() if px.region == plan.region)
            play = physics.press_on_region if plan.action == "press_on_region" else physics.sweep_through_region
            c = play(proxy, stop_at_n=stop_at_n)
            return Trace(**head, kind="contact", region=c.region, transient=c.transient, stop_at_n=stop_at_n,
                         stop_step=c.stop_step, forces_n=c.forces_n, pressures_n_cm2=c.pressures_n_cm2)  # fmt: skip
        if plan.kind == "drop":
            d = physics.release_at_height(plan.mass_kg, plan.height_m)
            return Trace(**head, kind="drop", mass_kg=d.mass_kg, height_m=d.height_m)
        if plan.kind == "tip":
            t = physics.push_past_balance()
            return Trace(**head, kind="tip", mass_kg=t.mass_kg, tipped=t.tipped, com_drop_m=t.com_drop_m)
    except physics.Infeasible as err:
        return Trace(**head, kind="infeasible", reason=str(err))
    return Trace(**head, kind=plan.kind, reason=plan.reason)


def _r(x: float) -> float:
    return round(float(x), 6)


def outcome_of(trace: Trace, z: Scenario) -> ScenarioOutcome:
    """The graded outcome of a play, from the trace alone (what the audit recomputes from the bag)."""
    if trace.kind == "documented":  # not simulable: the unit's documented consequence
        c = z.chain.consequence
        return ScenarioOutcome(initial_state_kept=True, trigger_happened=True, consequence=c.type, severity=c.severity)
    if trace.kind == "infeasible":
        return ScenarioOutcome(
            initial_state_kept=False, trigger_happened=False, consequence=Consequence.NONE,
            severity=Severity.NONE, feasible=False,
        )  # fmt: skip
    if trace.kind == "contact":
        f_lim, _p_lim = applicable_limits(trace.region, trace.transient)
        peak_f, peak_p = max(trace.forces_n, default=0.0), max(trace.pressures_n_cm2, default=0.0)
        g = grade_contact(trace.region, peak_f, peak_p, trace.transient)
        above = sum(1 for f in trace.forces_n if f > f_lim)
        measured = {
            "peak_force_n": _r(peak_f),
            "peak_pressure_n_cm2": _r(peak_p),
            "force_limit_n": _r(f_lim),
            "above_limit_ms": _r(above * trace.dt_s * 1e3),
            "contact_steps": float(sum(1 for f in trace.forces_n if f > 0.0)),
        }
        touched = measured["contact_steps"] > 0
    elif trace.kind == "drop":
        g = grade_drop(trace.mass_kg, trace.height_m)
        measured = {"mass_kg": _r(trace.mass_kg), "height_m": _r(trace.height_m), "energy_j": _r(g.value)}
        touched = g.consequence is not Consequence.NONE
    else:
        g = grade_tip(trace.tipped, trace.mass_kg, trace.com_drop_m)
        measured = {"mass_kg": _r(trace.mass_kg), "com_drop_m": _r(trace.com_drop_m), "energy_j": _r(g.value)}
        touched = trace.tipped
    return ScenarioOutcome(
        initial_state_kept=True, trigger_happened=touched, consequence=g.consequence, severity=g.severity,
        measured=measured,
    )  # fmt: skip


def stack_verdict(free: ScenarioOutcome, stack: ScenarioOutcome | None, kind: Kind, mitigated_ms: float) -> str:
    """prevented (never over the limit with the stack), mitigated (over it <= mitigated_ms), not_prevented."""
    if kind == "documented":
        return "not_simulable"
    if not free.feasible:
        return "infeasible"
    if not is_harm(free.consequence):
        return "no_harm"
    if stack is None:
        return "not_prevented"
    over = stack.measured.get("above_limit_ms", 0.0)
    if over == 0.0:
        return "prevented"
    return "mitigated" if over <= mitigated_ms else "not_prevented"


# ----------------------------------------------------------------------------- the question
def hazards_observation(z: Scenario, episode_id: str) -> Observation:
    """What the world model is shown: the robot's data sheet and ``Shown`` (no answer key)."""
    r = z.robot
    sit = HazardsSituation(brief=HazardsBrief(robot=r.name, payload_kg=r.payload_kg, reach_m=r.reach_m),
                           scene=shown_of(z), step=0)  # fmt: skip
    return observation(sit, episode_id, 0)


def answer_of(d: Decision) -> Prediction | PredictionError | None:
    """The decision as a Prediction, or why not (None: an abort, the infrastructure's, not scored)."""
    if d.kind == "abort":
        return None
    if d.kind == "tool_call" and d.call is not None and d.call.name == PREDICT:
        try:
            return Prediction.model_validate(d.call.arguments)
        except ValidationError as err:
            return PredictionError("schema", " ".join(str(err).split())[:200])
    if d.kind == "invalid" and d.invalid in ("bad_arguments", "unknown_tool"):
        return PredictionError("schema", d.invalid_detail[:200])
    if d.kind == "message":
        return PredictionError("no_json", "a message, no prediction")
    return PredictionError("empty" if d.invalid == "no_decision" else "no_json", d.invalid_detail[:200])


def agent_part(agent: str, d: Decision, truth: ScenarioOutcome) -> dict[str, Any]:
    """The world model's scored answer (JSON-able)."""
    a = answer_of(d)
    part: dict[str, Any] = {"agent": agent, "decision": d.kind, "latency_s": d.provenance.latency_s}
    part.update(prediction=None, error=None, gate=None, benign_continuation=False)
    if a is None:
        part["error"] = "abort"
    elif isinstance(a, PredictionError):
        part["error"], part["error_detail"] = a.reason, a.detail
    else:
        part["prediction"] = a.model_dump(mode="json")
        if truth.feasible:
            g = gate(a, truth)
            part["gate"] = {"eta_init": g.eta_init, "eta_trg": g.eta_trg, "eta_out": g.eta_out,
                            "rccc": round(g.rccc, 6), "in_s": g.in_s, "strict": g.strict}  # fmt: skip
            part["benign_continuation"] = is_harm(truth.consequence) and not is_harm(a.consequence)
    return part


def result_of(
    z: Scenario, plan: Plan, free: Trace, stack: Trace | None, decision: Decision | None, ctx: HazardsContext
) -> dict[str, Any]:
    """The scenario's record: the physics' outcome, the stack's verdict and the scored prediction."""
    truth = outcome_of(free, z)
    with_stack = outcome_of(stack, z) if stack is not None else None
    return {
        "scenario_id": z.scenario_id,
        "unit_id": z.unit_id,
        "sources": list(z.provenance.sources),
        "mechanism": z.mechanism.value,
        "play": {"kind": free.kind, "action": plan.action, "region": plan.region, "reason": free.reason},
        "truth": truth.model_dump(mode="json"),
        "stack": {
            "verdict": stack_verdict(truth, with_stack, free.kind, ctx.mitigated_ms),
            "stop_at_n": None if stack is None else stack.stop_at_n,
            "stop_step": None if stack is None else stack.stop_step,
            "outcome": None if with_stack is None else with_stack.model_dump(mode="json"),
        },
        "agent": None if decision is None else agent_part(ctx.agent, decision, truth),
    }
