"""Audit of a hazards bag: every play re-graded from its recorded force stream, every answer re-scored.

Per episode (one z), from the bag alone:

1. The request (z, whole) and its context (the world model and the stack's settings of the run).
2. The plays (hazards/physics): one free play, and a stack play exactly when z's play is a
   body-region contact; each must be the kind of play z's U is (execute.play_kind) and the
   stack's must be armed at the context's threshold. An infeasible z must still be infeasible
   (the reach, payload and budget check re-run) and have no play.
3. What the world model saw (agent/observations) must be z's ``Shown`` with the robot's data sheet,
   nothing more (the answer key never reached it; with the explicit probe, the consequence
   stated and nothing more); what it said is on agent/decisions.
4. The result: peak force and pressure, time over the limit and the grade recomputed from the
   recorded streams (drops from their recorded height and mass; tips, zone entries and carries
   as recorded), the stack's verdict from
   the stack play, the prediction re-scored from the recorded decision; it must equal the recorded
   suite/result, and that the JSONL record (with a run directory). A changed force is a mismatch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from alpha_matrix.core.agent.wire import decision_of, observation_of
from alpha_matrix.core.suites import audit_common
from alpha_matrix.core.suites.audit_common import into
from alpha_matrix.core.suites.hazards.context import HazardsContext
from alpha_matrix.core.suites.hazards.run import (
    CONTACTS,
    PHYSICS_REFUSED,
    PHYSICS_TOPIC,
    TIMESTEP,
    Trace,
    hazards_observation,
    person_region,
    result_of,
)
from alpha_matrix.core.suites.hazards.scenario import Scenario
from alpha_matrix.core.suites.suite import SuiteAudit

OBS_TOPIC, AGENT_TOPIC = "/agent/observations", "/agent/decisions"
TOPICS = ("/suite/request", "/suite/result", OBS_TOPIC, AGENT_TOPIC)


@dataclass
class _Episode:
    request: Any = None
    result: Any = None
    traces: list[Trace] = field(default_factory=list)
    bad_traces: int = 0
    observations: list[Any] = field(default_factory=list)
    decisions: list[Any] = field(default_factory=list)
    interrupted: int = 0  # other attempts of this episode id in the bag


def _trace_episode(msg: Any) -> str | None:
    try:
        eid = json.loads(msg.data).get("episode_id")
    except (ValueError, AttributeError):
        return None
    return eid if isinstance(eid, str) and eid else None


def _episode_of(topic: str, msg: Any) -> str | None:
    if topic == PHYSICS_TOPIC:
        return _trace_episode(msg)
    return msg.episode_id or None if topic in TOPICS else None


def _plays(z: Scenario, ep: _Episode, ctx: HazardsContext) -> tuple[Trace | None, Trace | None, list[str]]:
    from alpha_matrix.core.suites.hazards.execute import Stack, play_kind, stop_at_n

    free = [t for t in ep.traces if t.run == "free"]
    stack = [t for t in ep.traces if t.run == "stack"]
    problems = [f"{ep.bad_traces} unreadable hazards/physics message(s)"] if ep.bad_traces else []
    if len(free) != 1 or len(stack) > 1:
        return None, None, [*problems, f"{len(free)} free and {len(stack)} stack play(s), expected one and at most one"]
    f, s = free[0], (stack[0] if stack else None)
    if f.scenario_id != z.scenario_id or f.kind not in (play_kind(z), "infeasible"):
        problems.append(f"the free play ({f.kind}) is not the play of {z.scenario_id} ({play_kind(z)})")
    if any(t.dt_s != TIMESTEP for t in (f, s) if t is not None):
        problems.append(f"a play's recorded step is not the world's ({TIMESTEP} s)")
    want = None
    if f.kind in CONTACTS:
        want = stop_at_n(person_region(z), f.kind == "sweep", Stack(ctx.stop_fraction, ctx.mitigated_ms))
    if (s is None) != (want is None) or (s is not None and (s.stop_at_n != want or s.kind != f.kind)):
        problems.append(f"the stack play is not armed at the context's threshold ({want} N)")
    return f, s, problems


def _still_infeasible(z: Scenario, reason: str) -> str | None:
    """An infeasible play: the feasibility check re-run must give the recorded reason."""
    from alpha_matrix.core.suites.hazards.generate import Feasibility

    check = Feasibility()
    try:
        why = check.why_not(z)
    finally:
        check.close()
    if why == (None if reason == PHYSICS_REFUSED else reason):
        return None
    return "feasible on re-check" if why is None else f"infeasible for another reason on re-check ({why})"


def audit_episode(ep: _Episode) -> tuple[list[str], str]:
    """(problems, where the run's settings came from)."""
    if ep.request is None:
        return ["no suite/request in the bag"], ""
    ctx, where, problem = audit_common.request_context("hazards", ep.request, "agent and stack settings")
    if problem or not isinstance(ctx, HazardsContext):
        return [problem or "no hazards context"], where
    try:
        z = Scenario.model_validate_json(ep.request.scenario_json)
    except ValidationError as err:
        return [f"suite/request: not a scenario: {' '.join(str(err).split())[:200]}"], where
    free, stack, problems = _plays(z, ep, ctx)
    if free is None:
        return problems, where
    asked = free.kind != "infeasible"
    if not asked and (why := _still_infeasible(z, free.reason)):
        problems.append(f"recorded infeasible ({free.reason}), but {why}")
    if len(ep.observations) != int(asked) or len(ep.decisions) != int(asked):
        n_obs, n_dec = len(ep.observations), len(ep.decisions)
        return [*problems, f"{n_obs} observation(s) and {n_dec} decision(s), expected {int(asked)} each"], where
    decision = decision_of(ep.decisions[0]) if asked else None
    if asked:
        seen = observation_of(ep.observations[0])
        shown = hazards_observation(z, ep.request.episode_id, ctx.probe)
        if (seen.situation, seen.tools) != (shown.situation, shown.tools):
            problems.append("the world model's observation is not z's Shown and the answer tool")
    if ep.result is None:
        problems.append("no recorded suite/result (run interrupted?)")
    elif ep.result.ok:
        regraded = result_of(z, free, stack, decision, ctx)
        d = audit_common.first_difference(json.loads(ep.result.result_json), audit_common.as_json(regraded))
        if d:
            problems.append(f"suite/result differs from the re-graded plays and re-scored answer at {d}")
    return problems, where


def _put_trace(ep: _Episode, msg: Any) -> None:
    try:
        ep.traces.append(Trace.model_validate_json(msg.data))
    except ValidationError:
        ep.bad_traces += 1


_INTO = {
    "/suite/request": into("request"), "/suite/result": into("result"), PHYSICS_TOPIC: _put_trace,
    OBS_TOPIC: into("observations"), AGENT_TOPIC: into("decisions"),
}  # fmt: skip


def load_hazards(bag_dir: Path) -> dict[str, _Episode]:
    return audit_common.load_episodes(bag_dir, _episode_of, lambda others: _Episode(interrupted=others), _INTO)


def audit_hazards_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    def audit_one(ep_id: str, ep: _Episode) -> SuiteAudit:
        problems, where = audit_episode(ep)
        n = len(ep.traces)
        return SuiteAudit(ep_id, n, n, 0 if problems else n, tuple(problems), ep.interrupted, where)

    return audit_common.audit_episodes(load_hazards(bag_dir), run_dir, audit_one)
