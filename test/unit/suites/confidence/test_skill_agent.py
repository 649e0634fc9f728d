"""The confidence gate: rules hold under any scores, re-planning, the ledger, and a physical run."""

from __future__ import annotations

import numpy as np
import pytest

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.confidence.agent import (
    AgentError,
    Call,
    ConfidenceLedger,
    Query,
    SkillAgent,
    Stop,
    Task,
)
from alpha_matrix.core.suites.confidence.run import run_confidence_task
from alpha_matrix.core.suites.confidence.scenarios import load_confidence_scenarios, load_skills_config, parse_goal
from alpha_matrix.core.suites.confidence.skills import SkillState, pick, place_target

SUITE = load_skills_config()
GEO = SUITE.geometry
TH = SUITE.confidence.threshold
POS = {"red": (0.5, -0.1, 0.65), "green": (0.6, 0.05, 0.65), "blue": (0.45, 0.1, 0.65), "yellow": (0.65, -0.25, 0.65)}


def task(*goals: str) -> Task:
    return Task("t", tuple(parse_goal(g) for g in goals))


def symbolic_effect(state: SkillState, call: Call) -> SkillState:
    """What a perfect robot would do: picks lift, places land on the target."""
    s = call.skill
    pos = dict(state.positions)
    if s.verb == "pick":
        x, y, _ = pos[s.obj]
        pos[s.obj] = (x, y, 0.80)
        return SkillState(pos, s.obj, GEO.size)
    pos[s.obj] = place_target(s, state, GEO)
    return SkillState(pos, None, 0.08)


def drive(agent: SkillAgent, scorer, state: SkillState, limit: int = 200):
    """Run the agent symbolically; return (decisions, ledger)."""
    ledger = ConfidenceLedger(TH)
    decisions = []
    d = agent.observe(state)
    for _ in range(limit):
        decisions.append(d)
        if isinstance(d, Stop):
            ledger.record_stop()
            return decisions, ledger
        if isinstance(d, Query):
            scores = scorer(d)
            ledger.record_query([c.text for c in d.candidates], scores, d.hypothetical)
            d = agent.on_confidence(scores)
        else:
            assert ledger.admit(d.skill.text) == ""
            state = symbolic_effect(state, d)
            ledger.skill_finished()
            d = agent.observe(state)
    raise AssertionError("agent did not stop")


def table_scorer(low: set[str]):
    return lambda q: [0.1 if c.text in low else 0.9 for c in q.candidates]


def test_low_confidence_candidate_leads_to_another() -> None:
    agent = SkillAgent(task("red -> zone_a", "green -> zone_b"), GEO, TH)
    decisions, ledger = drive(agent, table_scorer({"pick(red)"}), SkillState(dict(POS)))
    calls = [d for d in decisions if isinstance(d, Call)]
    assert calls[0].skill == pick("green") and calls[0].rank == 1  # re-planned past pick(red)
    assert [c.skill.text for c in calls] == ["pick(green)", "place(green, zone_b)"]
    assert {g.goal.obj: g.status.value for g in agent.goals} == {"red": "skipped", "green": "done"}
    assert ledger.passed and ledger.check_rate == 1.0 and isinstance(decisions[-1], Stop)


def test_alternative_target_and_lookahead_skip() -> None:
    agent = SkillAgent(task("red -> zone_far | zone_a", "blue -> zone_back"), GEO, TH)
    low = {"place(red, zone_far)", "place(blue, zone_back)"}
    decisions, ledger = drive(agent, table_scorer(low), SkillState(dict(POS)))
    calls = [d.skill.text for d in decisions if isinstance(d, Call)]
    assert calls == ["pick(red)", "place(red, zone_a)"]  # blue never touched: its only target is unsure
    lookahead = [d for d in decisions if isinstance(d, Query) and d.hypothetical]
    assert lookahead and all(q.state.holding == q.candidates[0].obj for q in lookahead)
    assert ledger.passed


def test_put_back_when_no_place_is_confident_after_the_pick() -> None:
    agent = SkillAgent(task("red -> zone_a"), GEO, TH)

    def scorer(q: Query) -> list[float]:  # the look-ahead is optimistic, the real check is not
        return [0.9 if q.hypothetical or c.verb == "pick" or c.at else 0.2 for c in q.candidates]

    decisions, ledger = drive(agent, scorer, SkillState(dict(POS)))
    calls = [d.skill for d in decisions if isinstance(d, Call)]
    assert [c.verb for c in calls] == ["pick", "place"] and calls[1].at == pytest.approx(POS["red"][:2], abs=1e-3)
    assert agent.goals[0].status.value == "skipped" and ledger.passed


def test_stack_waits_for_its_base() -> None:
    agent = SkillAgent(task("red -> on=green", "green -> zone_b"), GEO, TH)
    decisions, _ = drive(agent, table_scorer(set()), SkillState(dict(POS)))
    calls = [d.skill.text for d in decisions if isinstance(d, Call)]
    assert calls == ["pick(green)", "place(green, zone_b)", "pick(red)", "place(red, on=green)"]


@pytest.mark.parametrize("seed", range(40))
def test_rules_hold_under_random_scores(seed: int) -> None:
    rng = np.random.default_rng(seed)
    goals = ["red -> zone_a | zone_b", "green -> zone_c", "blue -> on=red | zone_b", "yellow -> zone_a"]
    agent = SkillAgent(task(*goals), GEO, TH)
    decisions, ledger = drive(agent, lambda q: rng.uniform(0.0, 1.0, len(q.candidates)).tolist(), SkillState(POS))
    assert isinstance(decisions[-1], Stop) and ledger.passed
    assert ledger.check_rate == 1.0 and ledger.below_threshold == 0
    for d in decisions:
        if isinstance(d, Call):
            assert d.confidence >= TH


def test_ledger_catches_unchecked_and_low_calls() -> None:
    led = ConfidenceLedger(0.5)
    assert "without a confidence check" in led.admit("pick(red)")
    led.record_query(["pick(red)", "pick(blue)"], [0.4, 0.9], hypothetical=False)
    assert "below threshold" in led.admit("pick(red)")
    assert led.admit("pick(blue)") == ""
    led.skill_finished()
    assert "without a confidence check" in led.admit("pick(blue)")  # a check covers one state only
    led.record_query(["pick(green)"], [0.9], hypothetical=True)
    assert "without a confidence check" in led.admit("pick(green)")  # a look-ahead is not a check
    assert led.below_threshold == 1 and len(led.violations) == 4 and not led.passed


def test_agent_protocol_errors() -> None:
    agent = SkillAgent(task("red -> zone_a"), GEO, TH)
    q = agent.observe(SkillState(dict(POS)))
    with pytest.raises(AgentError):
        agent.observe(SkillState(dict(POS)))
    with pytest.raises(AgentError):
        agent.on_confidence([0.9, 0.9])
    assert isinstance(q, Query)
    assert issubclass(AgentError, AlphaMatrixError) and issubclass(AgentError, RuntimeError)  # old handlers still match


def test_physical_task_is_deterministic_and_gated() -> None:
    sc = {s.task.name: s for s in load_confidence_scenarios(suite=SUITE)}["far_then_alternative"]
    a = run_confidence_task(sc.task, sc.seed, SUITE, expected=sc.expected)
    b = run_confidence_task(sc.task, sc.seed, SUITE, expected=sc.expected)
    assert a.rows == b.rows and a.achieved == b.achieved
    assert a.task_completed and a.check_rate == 1.0 and a.below_threshold == 0 and a.robot_stopped
    assert [r.instruction for r in a.rows] == ["pick(red)", "place(red, zone_a)", "pick(green)", "place(green, zone_b)"]
    assert a.rows[1].rank == 1 and all(r.succeeded for r in a.rows)


class RogueAgent(SkillAgent):
    """Calls pick(yellow) without ever asking: the ledger must refuse it and fail the episode."""

    def observe(self, state: SkillState):
        return Call(pick("yellow"), -1, 1.0, 0)


def test_rule_violation_fails_the_episode_and_is_not_executed() -> None:
    t = task("red -> zone_a")
    res = run_confidence_task(t, 3, SUITE, agent=RogueAgent(t, GEO, TH), expected={"red": True})
    assert res.violations and "without a confidence check" in res.violations[0]
    assert not res.task_completed and res.check_rate == 0.0
    assert res.rows[0].violation and not res.rows[0].succeeded
    assert res.steps < 300  # settle + final hold only: the rogue call never moved the arm
