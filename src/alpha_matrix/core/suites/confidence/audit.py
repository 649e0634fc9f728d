"""Audit of a confidence bag by replay: every answer recomputed, the gating rules checked, the result re-derived.

Per episode, every recorded ``skill/queries`` request goes through the same
``ConfidenceEmulator`` as the live ``skill_confidence`` node (the skills file recorded in the
request's context -- never today's config; a request without a context is a problem of the
episode -- the recorded seed and noise-stream id) and each answer (confidence,
in_distribution, feasible, reason) must equal the recorded one exactly. A real-state query must
carry the robot's state at the recorded command end it follows (so a look-ahead cannot pass as a
check). The gating rules are then checked from the evidence with the executive's own
``ConfidenceLedger`` fed the replayed answers: every skill call checked by a real-state query at
or above the threshold since the last skill finished (a breach is reported even when the
executive refused the call), every robot motion command inside a checked call's window, and the
robot stopped at the end (a recorded protective-stop cancellation). The result's rows, counts,
steps and achieved goals are re-derived from the queries and the recorded command statuses and
must equal the recorded ``suite/result`` (and the JSONL record); goal_status and stop_reason
are the agent's own view and are taken from the result.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.robot.commands import plan_to_commands
from alpha_matrix.core.suites import audit_common
from alpha_matrix.core.suites.agent_common import recorded_turn
from alpha_matrix.core.suites.audit_common import into
from alpha_matrix.core.suites.confidence.agent import ConfidenceLedger
from alpha_matrix.core.suites.confidence.agent_run import gate_call
from alpha_matrix.core.suites.confidence.agent_score import COUNTS, Answer, EvidenceError, score_turns
from alpha_matrix.core.suites.confidence.context import ConfidenceContext
from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.scenarios import SkillsSuite, load_skills_config, parse_goal
from alpha_matrix.core.suites.confidence.skills import (
    SceneGeometry,
    SkillError,
    SkillState,
    compile_skill,
    goal_achieved,
    infer_holding,
    parse_skill,
    place_target,
    skill_succeeded,
)
from alpha_matrix.core.suites.confidence.tools import skill_of
from alpha_matrix.core.suites.suite import SuiteAudit

SUITE = "confidence"
DONE, CANCELLED = 2, 3  # CommandStatus states
ANSWER_FIELDS = ("confidence", "in_distribution", "feasible", "reason")


@dataclass
class ConfidenceEpisode:
    request: Any = None  # SuiteRequest
    interrupted: int = 0  # other attempts of this episode id in the bag
    queries: list[Any] = field(default_factory=list)  # ConfidenceQuery
    decisions: list[Any] = field(default_factory=list)  # AgentDecision (an agent under test decided)
    statuses: list[Any] = field(default_factory=list)  # terminal CommandStatus
    result: Any = None


_STOP_AT = re.compile(r"protective stop at step (\d+)")


def _stop_step(stop: Any) -> int:
    """The step the robot's stop applied at, the episode's last: the end step of the command it cut.
    Older bags date that cut one step earlier (the stop's step after it); its message names the step."""
    named = _STOP_AT.search(str(stop.message))
    return max(int(stop.end_step), int(named.group(1)) if named else 0)


def _episode_of(topic: str, msg: Any) -> str | None:
    if topic == "/suite/request":
        return msg.episode_id if msg.suite == SUITE else None
    if topic == "/robot/command_status":
        return msg.episode_id if msg.state in (DONE, CANCELLED) else None
    if topic in ("/skill/queries", "/suite/result", "/agent/decisions"):
        return msg.episode_id
    return None


_INTO = {
    "/suite/request": into("request"), "/skill/queries": into("queries"), "/agent/decisions": into("decisions"),
    "/robot/command_status": into("statuses"), "/suite/result": into("result"),
}  # fmt: skip


def load_confidence(bag_dir: Path) -> dict[str, ConfidenceEpisode]:
    return audit_common.load_episodes(bag_dir, _episode_of, lambda others: ConfidenceEpisode(interrupted=others), _INTO)


def _positions(objects: Any) -> dict[str, tuple[float, float, float]]:
    return {o.name: (float(o.pose.position.x), float(o.pose.position.y), float(o.pose.position.z)) for o in objects}


def _status_state(status: Any, geo: SceneGeometry) -> SkillState:
    """robot_client.skill_state on a recorded CommandStatus: what the executive observed."""
    positions = _positions(status.objects)
    joints = [float(j) for j in status.joint_positions]
    width = joints[-2] + joints[-1] if len(joints) >= 2 else 0.08
    g = status.grasp_position
    return SkillState(positions, infer_holding(positions, (float(g.x), float(g.y), float(g.z)), width, geo), width)


def _answers(q: Any) -> list[tuple[float, bool, bool, str]]:
    return [
        (float(c), bool(i), bool(f), str(r))
        for c, i, f, r in zip(q.confidence, q.in_distribution, q.feasible, q.reason, strict=False)
    ]


def _agent_part(ep: ConfidenceEpisode) -> dict[str, Any] | None:
    """The recorded result's agent part (an agent under test decided), else None."""
    if ep.result is None or not ep.result.ok:
        return None
    part = json.loads(ep.result.result_json).get("agent")
    return part if isinstance(part, dict) else None


def _moves(ep: ConfidenceEpisode, queries: list[Any], agent: bool) -> tuple[list[tuple[str, str, int]], list[str]]:
    """The decider's moves in order: ("query", "", step) per answered query, ("call", skill, step) per
    skill call. An agent's come from its recorded decisions, SkillAgent's from the queries' follow-ups."""
    if not agent:
        out: list[tuple[str, str, int]] = []
        for q in queries:
            out.append(("query", "", int(q.step)))
            if q.next_action == "call":
                out.append(("call", q.next_skill, int(q.step)))
        return out, []
    out, problems = [], []
    for d in sorted(ep.decisions, key=lambda d: int(d.decision_index)):
        if d.kind != "tool_call" or d.tool not in ("check_confidence", "call_skill"):
            continue
        try:
            text = skill_of(json.loads(d.arguments_json or "{}")).text
        except (ValueError, SkillError):
            continue  # no skill: nothing was asked or run
        out.append(("query", "", int(d.step)) if d.tool == "check_confidence" else ("call", text, int(d.step)))
    asked = sum(kind == "query" for kind, _, _ in out)
    if asked != len(queries):
        problems.append(f"{asked} checks decided, {len(queries)} answered queries recorded")
        while sum(kind == "query" for kind, _, _ in out) > len(queries):  # replay only what was answered
            out.pop(max(i for i, m in enumerate(out) if m[0] == "query"))
    return out, problems


def audit_agent(ep: ConfidenceEpisode, replay: dict[str, Any], agent: dict[str, Any], threshold: float) -> list[str]:
    """The agent part re-judged from the recorded decisions and answers (agent_score.py)."""
    answers = [Answer(a, float(c), bool(q.hypothetical)) for q in sorted(ep.queries, key=lambda q: int(q.query_index))
               for a, c in zip(q.candidates, q.confidence, strict=False)]  # fmt: skip
    try:
        scored = score_turns([recorded_turn(d) for d in ep.decisions], answers, threshold, bool(agent["guards"]))
    except EvidenceError as err:
        return [f"agent: {err}"]
    problems = [
        f"agent {k}: recorded {agent.get(k)!r}, re-judged {scored[k]!r}" for k in (*COUNTS, "rows")
        if audit_common.as_json(agent.get(k)) != audit_common.as_json(scored[k])
    ]  # fmt: skip
    completed = (
        not replay["violations"] and replay["robot_stopped"]
        and all(replay["achieved"].get(o, False) for o, want in replay["expected"].items() if want)
    )  # fmt: skip
    if bool(agent.get("episode_right")) != completed:
        problems.append(f"agent episode verdict: recorded {agent.get('episode_right')}, re-judged {completed}")
    return problems


def replay_confidence(ep: ConfidenceEpisode, suite: SkillsSuite) -> tuple[dict[str, Any], list[str], int]:
    """Re-derive the episode's result from its queries and command statuses.

    Returns (the replayed result, problems found on the way, answers replayed).
    """
    problems: list[str] = []
    req, geo, cfg = ep.request, suite.geometry, suite.confidence
    sc = json.loads(req.scenario_json)
    name, seed = sc["name"], int(req.seed)
    emulator = ConfidenceEmulator(cfg, seed, episode_id=name)
    queries = sorted(ep.queries, key=lambda q: int(q.query_index))
    if [int(q.query_index) for q in queries] != list(range(len(queries))):
        problems.append(f"query indices {[int(q.query_index) for q in queries]} are not 0..{len(queries) - 1}")
    statuses = sorted(ep.statuses, key=lambda m: (int(m.start_step), int(m.end_step), int(m.command_id)))
    done = [m for m in statuses if m.state == DONE]
    by_end = {int(m.end_step): m for m in done}
    stop = next((m for m in statuses if m.state == CANCELLED and "protective stop" in m.message), None)
    final = done[-1] if done else None  # the hold before the stop: the poses goals are judged on
    # 1. Every answer, recomputed from the recorded request.
    replayed: list[list[float]] = []
    n_answers = 0
    for q in queries:
        if q.stream_id != name or int(q.seed) != seed:
            problems.append(f"query {q.query_index}: stream {q.stream_id!r} seed {q.seed}, not {name!r} seed {seed}")
        state = SkillState(_positions(q.objects), q.holding or None, float(q.gripper_width))
        scored = emulator.score(list(q.candidates), state, int(q.query_index))
        n_answers += len(scored)
        replayed.append([a.confidence for a in scored])
        rec = _answers(q)
        for i, a in enumerate(scored):
            mine = (a.confidence, a.in_distribution, a.feasible, a.reason)
            theirs = rec[i] if i < len(rec) else None
            if theirs != mine:
                problems.append(f"query {q.query_index}: {a.instruction}: recorded {theirs}, replay {mine}")
                break
        if len(rec) != len(scored):
            problems.append(f"query {q.query_index}: {len(rec)} answers recorded for {len(scored)} candidates")
        if not q.hypothetical:  # a check must be on the state the robot was in
            seen = by_end.get(int(q.step))
            if seen is None:
                problems.append(f"query {q.query_index}: no recorded command ends at its step {q.step}")
            elif _status_state(seen, geo) != state:
                problems.append(f"query {q.query_index}: the state sent is not the robot's at step {q.step}")
    # 2. The rules, with the executive's own ledger fed the replayed answers, in the order the
    # decider made its moves (an agent's from its recorded decisions, SkillAgent's from the queries).
    agent = _agent_part(ep)
    events, found = _moves(ep, queries, agent is not None)
    problems += found
    ledger = ConfidenceLedger(cfg.threshold)
    rows: list[dict[str, Any]] = []
    windows: list[tuple[int, int]] = []  # (after step, up to step) of every executed call
    k = -1  # the last query seen
    for kind, text, step in events:
        if kind == "query":
            k += 1
            ledger.record_query(list(queries[k].candidates), replayed[k], bool(queries[k].hypothetical))
            continue
        violation, runs = gate_call(ledger, text, bool(agent["guards"]) if agent else True)
        chooser = next(
            (
                (p, s)
                for p, s in zip(reversed(queries[: k + 1]), reversed(replayed[: k + 1]), strict=True)
                if not p.hypothetical and text in list(p.candidates)
            ),
            None,
        )
        if chooser is None:
            qi, conf, rank = -1, 0.0, -1 if agent is None else 0
        else:
            p, s = chooser
            rank = list(p.candidates).index(text)
            qi, conf = int(p.query_index), s[rank]
        row = {
            "task": name, "seed": seed, "index": len(rows), "instruction": text, "query_index": qi,
            "confidence": conf, "rank": rank, "start_step": step + 1, "end_step": step, "succeeded": False,
            "violation": violation,
        }  # fmt: skip
        rows.append(row)
        if violation and agent is None:
            problems.append(f"rule broken: {violation}")
            break
        if not runs:
            continue  # the gate refused the agent's call: no motion
        # The skill's commands, as the executive compiles them from the state it observed.
        before = by_end.get(step)
        try:
            skill = parse_skill(text)
        except SkillError as err:
            problems.append(f"{text}: {err}")
            break
        if before is None:
            if agent is not None:
                problems.append(f"{text}: no recorded command ends at step {step}, where the agent called it")
            break  # (SkillAgent's: already reported with its query)
        start_state = _status_state(before, geo)
        try:
            n = len(plan_to_commands(compile_skill(skill, start_state, geo)))
        except SkillError as err:
            problems.append(f"{text}: {err}")
            break
        ran = [m for m in statuses if int(m.start_step) > step][:n]
        if len(ran) < n or int(ran[0].start_step) != step + 1:
            problems.append(f"{text} (after step {step}): {n} robot commands from step {step + 1} not recorded")
            break
        row["end_step"] = int(ran[-1].end_step)
        windows.append((step, row["end_step"]))
        after = by_end.get(row["end_step"])
        if after is not None:
            target = place_target(skill, start_state, geo)
            row["succeeded"] = skill_succeeded(skill, target, _status_state(after, geo), geo)
        ledger.skill_finished()
    reset = statuses[0] if statuses else None
    for m in statuses:  # every motion belongs to a checked call
        if m is reset or m is final or m is stop:
            continue
        if not any(a < int(m.start_step) <= b for a, b in windows):
            problems.append(
                f"rule broken: robot command {m.command_id} at step {m.start_step} outside any checked call"
            )
            break
    # 3. The stop and the goals, from the recorded statuses.
    if stop is None:
        problems.append("rule broken: no protective stop of the robot recorded at the end")
    else:
        ledger.record_stop()
    steps = _stop_step(stop) if stop is not None else int(statuses[-1].end_step) if statuses else 0
    achieved = {}
    if final is not None:
        end = _status_state(final, geo)
        for g in (parse_goal(t) for t in sc["goals"]):
            achieved[g.obj] = goal_achieved(g.targets, end, geo)
    replay = {
        "task": name, "seed": seed, "rows": rows, "achieved": achieved, "expected": sc["expected"],
        "queries": ledger.queries, "calls": ledger.calls, "checked": ledger.checked,
        "below_threshold": ledger.below_threshold, "violations": list(ledger.violations),
        "robot_stopped": ledger.stopped, "steps": steps,
    }  # fmt: skip
    return replay, problems, n_answers


def audit_confidence_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    suites = audit_common.FileLoads(load_skills_config)

    def audit_one(ep_id: str, ep: ConfidenceEpisode) -> SuiteAudit:
        recorded_n = sum(len(q.confidence) for q in ep.queries)
        replayed_n = 0
        ctx, where, problem = audit_common.request_context(SUITE, ep.request, needs="skills file")
        problems = audit_common.not_replayable(ep, problem)
        if not problems and ep.result.ok and isinstance(ctx, ConfidenceContext):
            rec = json.loads(ep.result.result_json)
            try:
                suite = suites(ctx.skills)
            except ConfigError as err:
                suite, problems = None, [f"recorded skills file: {err}"]
            if suite is not None:
                replay, problems, replayed_n = replay_confidence(ep, suite)
                last = max(ep.queries, key=lambda q: int(q.query_index)) if ep.queries else None
                if last and last.next_action == "stop" and last.stop_reason != rec.get("stop_reason"):
                    problems.append(
                        f"stop reason: skill/queries {last.stop_reason!r}, suite/result {rec.get('stop_reason')!r}"
                    )
                d = audit_common.first_difference(rec, audit_common.as_json({**rec, **replay}))
                if d:
                    problems.append(f"suite/result differs from the replay at {d}")
                if isinstance(rec.get("agent"), dict):
                    problems += audit_agent(ep, replay, rec["agent"], suite.confidence.threshold)
        return SuiteAudit(ep_id, len(ep.queries), recorded_n, replayed_n, tuple(problems), ep.interrupted, where)

    return audit_common.audit_episodes(load_confidence(bag_dir), run_dir, audit_one)


__all__ = ["ConfidenceEpisode", "audit_confidence_bag", "load_confidence", "replay_confidence"]
