"""The confidence suite driven by an agent under test (any backend), over any robot (no ROS here).

The agent decides, one tool call at a time (confidence/tools.py): ``check_confidence`` of a
skill (answered by the scorer: the emulator or the skill_confidence service), ``call_skill``,
``replan`` or ``stop_task``. The *confidence gate* (``gate_call``: the ConfidenceLedger's rule,
never a call unchecked or below threshold) sits under it: with guards on it refuses a breaking
call before any motion (the agent is told why, in ``calls``); with guards off the call runs. A
message, an invalid answer or an abort changes nothing (a call whose arguments make no skill is
listed in ``calls`` with why, like a refused one); the agent is asked again, up to
``max_decisions`` per task. The robot is always stopped at the end and the goals are judged
physically, as in run.py.

What the agent sees is ``confidence_situation`` (confidence/situation.py): the brief, the state
after its last skill, the candidates, its own checks since that skill, its calls, its re-plans.
The verdicts are not decided here: agent_score.py judges the recorded decisions and answers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from alpha_matrix.core.agent.protocol import Decision, Observation
from alpha_matrix.core.suites.confidence.agent import ConfidenceLedger, Task
from alpha_matrix.core.suites.confidence.run import ConfidenceResult, Scorer, SkillRobot, SubStepRow
from alpha_matrix.core.suites.confidence.scenarios import SkillsSuite
from alpha_matrix.core.suites.confidence.situation import (
    CallView,
    CheckView,
    check_state,
    confidence_brief,
    confidence_situation,
    observation,
)
from alpha_matrix.core.suites.confidence.skills import (
    Skill,
    SkillError,
    compile_skill,
    goal_achieved,
    place_target,
    skill_succeeded,
)
from alpha_matrix.core.suites.confidence.tools import skill_of

BUDGET_SPENT = "decision budget spent: the robot is stopped"


def gate_call(ledger: ConfidenceLedger, instruction: str, guards: bool) -> tuple[str, bool]:
    """The confidence gate on one skill call: (the rule it breaks or "", whether it runs)."""
    violation = ledger.admit(instruction)
    return violation, not (violation and guards)


@dataclass(frozen=True)
class CheckAnswer:
    """One check_confidence exchange, as the skill/queries record keeps it."""

    index: int  # the query index (0, 1, ... in the episode)
    instruction: str
    confidence: float
    hypothetical: bool  # a look-ahead: never a check for a call
    step: int
    then: str  # what the agent did next: query | call | stop | replan | message | invalid | abort
    then_skill: str = ""  # the call's instruction when then == call
    stop_reason: str = ""


@dataclass
class AgentRun:
    """One task's exchanges: every decision in order and every check answered."""

    decisions: list[tuple[Observation, Decision]] = field(default_factory=list)
    checks: list[CheckAnswer] = field(default_factory=list)
    budget_spent: bool = False


def _follow_up(decision: Decision) -> tuple[str, str, str]:
    """What a decision after a check was, as a query record says it (then, then_skill, stop_reason)."""
    if decision.kind != "tool_call" or decision.call is None:
        return decision.kind, "", ""
    name, args = decision.call.name, decision.call.arguments
    if name == "check_confidence":
        return "query", "", ""
    if name == "call_skill":
        try:
            return "call", skill_of(args).text, ""
        except SkillError:
            return "call", "", ""
    if name == "stop_task":
        return "stop", "", str(args.get("reason", ""))
    return name, "", ""


def run_agent_skill_task(
    task: Task,
    seed: int,
    suite: SkillsSuite,
    expected: dict[str, bool],
    scorer: Scorer,
    robot: SkillRobot,
    ask: Callable[[Observation], Decision],
    *,
    guards: bool,
    max_decisions: int,
    hold_steps: int,
    episode_id: str = "",
    on_check: Callable[[CheckAnswer], None] | None = None,
) -> tuple[ConfidenceResult, AgentRun]:
    """Run ``task`` with the agent's decisions on ``robot``; ``on_check`` sees every answered check
    once the agent's next move is known (the executive records it on skill/queries)."""
    t0 = time.perf_counter()
    geo, th = suite.geometry, suite.confidence.threshold
    brief = confidence_brief(task, th, geo)
    ledger = ConfidenceLedger(th)
    run = AgentRun()
    state, step = robot.start()
    checks: list[CheckView] = []
    calls: list[CallView] = []
    replans: list[str] = []
    rows: list[SubStepRow] = []
    picked_from: tuple[float, float] | None = None
    pending: CheckAnswer | None = None  # a check whose follow-up is not known yet
    stop_reason = BUDGET_SPENT
    query_of: dict[str, tuple[int, float]] = {}  # instruction -> its latest real-state check (query, confidence)

    def settle(then: Decision | None) -> None:
        nonlocal pending
        if pending is not None:
            what, skill, why = _follow_up(then) if then is not None else ("stop", "", BUDGET_SPENT)
            pending = replace(pending, then=what, then_skill=skill, stop_reason=why)
            run.checks.append(pending)
            if on_check is not None:
                on_check(pending)
            pending = None

    for n in range(max_decisions):
        sit = confidence_situation(
            brief, state, step, picked_from=picked_from, checks=checks, calls=calls, replans=replans
        )
        obs = observation(sit, episode_id or task.name, n)
        d = ask(obs)
        run.decisions.append((obs, d))
        settle(d)
        if d.kind != "tool_call" or d.call is None:
            continue  # a message, an invalid answer or an abort: nothing changes; asked again
        name, args = d.call.name, d.call.arguments
        if name == "stop_task":
            stop_reason = str(args.get("reason", ""))
            break
        if name == "replan":
            replans.append(str(args.get("reason", "")))
            continue
        try:
            skill: Skill = skill_of(args)
        except SkillError as err:  # judged invalid by the scorer; nothing is asked or run
            if name == "call_skill":  # the agent is told, as of a refused call
                text = ", ".join(f"{k}={v}" for k, v in sorted(args.items()))
                calls.append(
                    CallView(instruction=f"call_skill({text})"[:200], succeeded=False, refused=f"not a skill: {err}")
                )
            continue
        if name == "check_confidence":
            scored, look = check_state(skill, state, geo)
            conf = float(scorer.confidences([skill], scored, ledger.queries, look)[0])
            ledger.record_query([skill.text], [conf], look)
            if not look:
                query_of[skill.text] = (ledger.queries - 1, conf)
            checks.append(CheckView(instruction=skill.text, confidence=conf, lookahead=look))
            pending = CheckAnswer(ledger.queries - 1, skill.text, conf, look, step, "")
            continue
        # call_skill: through the gate
        qi, conf = query_of.get(skill.text, (-1, 0.0))
        violation, runs = gate_call(ledger, skill.text, guards)
        if not runs:
            rows.append(
                SubStepRow(task.name, seed, len(rows), skill.text, qi, conf, 0, step + 1, step, False, violation)
            )
            calls.append(CallView(instruction=skill.text, succeeded=False, refused=violation))
            continue
        try:
            plan = compile_skill(skill, state, geo)
        except SkillError as err:
            calls.append(CallView(instruction=skill.text, succeeded=False, refused=f"not executable: {err}"))
            continue
        if skill.verb == "pick" and skill.obj in state.positions:
            x, y, _ = state.positions[skill.obj]
            picked_from = (x, y)
        target, start = place_target(skill, state, geo), step + 1
        state, step = robot.execute(plan)
        ok = skill_succeeded(skill, target, state, geo)
        rows.append(SubStepRow(task.name, seed, len(rows), skill.text, qi, conf, 0, start, step, ok, violation))
        calls.append(CallView(instruction=skill.text, succeeded=ok))
        ledger.skill_finished()
        checks, replans = [], []
    else:
        run.budget_spent = True
    settle(None)
    final, steps, stopped = robot.finish(hold_steps)
    if stopped:
        ledger.record_stop()
    achieved = {g.obj: goal_achieved(g.targets, final, geo) for g in task.goals}
    status = {g.obj: "done" if achieved[g.obj] else "not achieved" for g in task.goals}  # judged, not the agent's view
    result = ConfidenceResult(
        task.name, seed, tuple(rows), status, achieved, dict(expected), ledger.queries, ledger.calls,
        ledger.checked, ledger.below_threshold, tuple(ledger.violations), stop_reason, stopped, steps,
        time.perf_counter() - t0,
    )  # fmt: skip
    return result, run
