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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.robot.commands import plan_to_commands
from alpha_matrix.core.suites.audit_common import (
    FileLoads,
    SuiteAudit,
    as_json,
    compare_records,
    episode_attempts,
    first_difference,
    read_records,
    request_context,
    unbacked_records,
)
from alpha_matrix.core.suites.confidence.agent import ConfidenceLedger
from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.scenarios import SkillsSuite, load_skills_config, parse_goal
from alpha_matrix.core.suites.confidence.skills import (
    SceneGeometry,
    SkillError,
    SkillState,
    compile_skill,
    infer_holding,
    parse_skill,
    place_target,
    skill_succeeded,
)
from alpha_matrix.core.suites.context import ConfidenceContext

SUITE = "confidence"
DONE, CANCELLED = 2, 3  # CommandStatus states
ANSWER_FIELDS = ("confidence", "in_distribution", "feasible", "reason")


@dataclass
class ConfidenceEpisode:
    request: Any = None  # SuiteRequest
    interrupted: int = 0  # other attempts of this episode id in the bag
    queries: list[Any] = field(default_factory=list)  # ConfidenceQuery
    statuses: list[Any] = field(default_factory=list)  # terminal CommandStatus
    result: Any = None


def _episode_of(topic: str, msg: Any) -> str | None:
    if topic == "/suite/request":
        return msg.episode_id if msg.suite == SUITE else None
    if topic == "/robot/command_status":
        return msg.episode_id if msg.state in (DONE, CANCELLED) else None
    if topic in ("/skill/queries", "/suite/result"):
        return msg.episode_id
    return None


def load_confidence(bag_dir: Path) -> dict[str, ConfidenceEpisode]:
    out = {}
    for ep_id, (msgs, others) in episode_attempts(bag_dir, _episode_of).items():
        ep = out[ep_id] = ConfidenceEpisode(interrupted=others)
        for topic, _ts, msg in msgs:
            if topic == "/suite/request":
                ep.request = msg
            elif topic == "/skill/queries":
                ep.queries.append(msg)
            elif topic == "/robot/command_status":
                ep.statuses.append(msg)
            elif topic == "/suite/result":
                ep.result = msg
    return out


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
    # 2. The rules, with the executive's own ledger fed the replayed answers.
    ledger = ConfidenceLedger(cfg.threshold)
    rows: list[dict[str, Any]] = []
    windows: list[tuple[int, int]] = []  # (after step, up to step) of every executed call
    for k, (q, scores) in enumerate(zip(queries, replayed, strict=True)):
        ledger.record_query(list(q.candidates), scores, bool(q.hypothetical))
        if q.next_action != "call":
            continue
        text, step = q.next_skill, int(q.step)
        violation = ledger.admit(text)
        chooser = next(
            (
                (p, s)
                for p, s in zip(reversed(queries[: k + 1]), reversed(replayed[: k + 1]), strict=True)
                if not p.hypothetical and text in list(p.candidates)
            ),
            None,
        )
        if chooser is None:
            qi, conf, rank = -1, 0.0, -1
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
        if violation:
            problems.append(f"rule broken: {violation}")
            break
        # The skill's commands, as the executive compiles them from the state it observed.
        before = by_end.get(step)
        try:
            skill = parse_skill(text)
        except SkillError as err:
            problems.append(f"{text}: {err}")
            break
        if before is None:
            break  # already reported with its query
        start_state = _status_state(before, geo)
        n = len(plan_to_commands(compile_skill(skill, start_state, geo)))
        ran = [m for m in statuses if int(m.start_step) > step][:n]
        if len(ran) < n or int(ran[0].start_step) != step + 1:
            problems.append(f"{text} (query {q.query_index}): {n} robot commands from step {step + 1} not recorded")
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
    steps = int(stop.end_step) + 1 if stop is not None else int(statuses[-1].end_step) if statuses else 0
    achieved = {}
    if final is not None:
        end = _status_state(final, geo)
        for g in (parse_goal(t) for t in sc["goals"]):
            achieved[g.obj] = any(skill_succeeded(t, place_target(t, end, geo), end, geo) for t in g.targets)
    replay = {
        "task": name, "seed": seed, "rows": rows, "achieved": achieved, "expected": sc["expected"],
        "queries": ledger.queries, "calls": ledger.calls, "checked": ledger.checked,
        "below_threshold": ledger.below_threshold, "violations": list(ledger.violations),
        "robot_stopped": ledger.stopped, "steps": steps,
    }  # fmt: skip
    return replay, problems, n_answers


def audit_confidence_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    eps = load_confidence(bag_dir)
    records = read_records(run_dir)
    suites = FileLoads(load_skills_config)
    out = []
    for ep_id in sorted(e for e in eps if e):
        ep = eps[ep_id]
        problems: list[str] = []
        recorded_n = sum(len(q.confidence) for q in ep.queries)
        replayed_n = 0
        ctx, where, problem = request_context(SUITE, ep.request, needs="skills file")
        if ep.request is None:
            problems.append("no recorded suite/request for this episode")
        elif problem:
            problems.append(problem)
        elif ep.result is None:
            problems.append("no recorded suite/result (run interrupted?)")
        elif ep.result.ok and isinstance(ctx, ConfidenceContext):
            rec = json.loads(ep.result.result_json)
            try:
                suite = suites(ctx.skills)
            except ConfigError as err:
                suite, problems = None, [*problems, f"recorded skills file: {err}"]
            if suite is not None:
                replay, found, replayed_n = replay_confidence(ep, suite)
                problems += found
                last = max(ep.queries, key=lambda q: int(q.query_index)) if ep.queries else None
                if last and last.next_action == "stop" and last.stop_reason != rec.get("stop_reason"):
                    problems.append(
                        f"stop reason: skill/queries {last.stop_reason!r}, suite/result {rec.get('stop_reason')!r}"
                    )
                d = first_difference(rec, as_json({**rec, **replay}))
                if d:
                    problems.append(f"suite/result differs from the replay at {d}")
        problems += compare_records(ep_id, ep.result, records, run_dir)
        out.append(SuiteAudit(ep_id, len(ep.queries), recorded_n, replayed_n, tuple(problems), ep.interrupted, where))
    return out + unbacked_records(records, eps, run_dir)


__all__ = ["ConfidenceEpisode", "audit_confidence_bag", "load_confidence", "replay_confidence"]
