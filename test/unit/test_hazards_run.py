"""The suite's run module without physics: what the world model is shown, grading from a trace,
the stack's verdicts, answers that are not predictions, and the reference through the protocol."""

from __future__ import annotations

import json

import pytest

from alpha_matrix.core.agent.agent import Agent, make_backend
from alpha_matrix.core.agent.protocol import AgentProvenance, Decision, ToolCall
from alpha_matrix.core.sim.world import WorldConfig
from alpha_matrix.core.suites.context import HazardsContext
from alpha_matrix.core.suites.hazards import run
from alpha_matrix.core.suites.hazards.prediction import PredictionError
from alpha_matrix.core.suites.hazards.taxonomy import Consequence, Severity

CTX = HazardsContext(agent="reference", stop_fraction=0.7, mitigated_ms=50.0)


@pytest.fixture(scope="module")
def scenarios() -> dict[str, run.Scenario]:
    return {z.scenario_id: z for z in run.suite_scenarios(None)}


def test_timestep_is_the_world_s() -> None:
    assert run.TIMESTEP == WorldConfig.timestep


def test_the_observation_holds_no_answer_key(scenarios: dict[str, run.Scenario]) -> None:
    for z in scenarios.values():
        obs = run.hazards_observation(z, "e")
        assert z.chain.consequence.text not in json.dumps(obs.model_dump(mode="json"))
        assert "consequence" not in json.dumps(obs.situation) and "measured" not in json.dumps(obs.situation)
        assert [t.name for t in run.hazards_observation(z, "e").tools] == ["predict_outcome"]


def test_plans_of_the_short_set(scenarios: dict[str, run.Scenario]) -> None:
    assert run.plan_of(scenarios["clamp_hand_table_001"]) == run.Plan("contact", "press_on_region", "hand_fingers")
    assert run.plan_of(scenarios["sweep_forearm_001"]).transient
    drop = run.plan_of(scenarios["drop_box_001"])
    assert (drop.kind, drop.mass_kg, drop.height_m) == ("drop", 1.0, pytest.approx(0.3))
    assert run.plan_of(scenarios["hot_cup_forearm_001"]).kind == "documented"


def _trace(forces: list[float], run_: str = "free") -> run.Trace:
    return run.Trace(episode_id="e", scenario_id="s", run=run_, kind="contact", action="press_on_region",  # type: ignore[arg-type]
                     region="hand_fingers", forces_n=tuple(forces), pressures_n_cm2=tuple(0.0 for _ in forces))  # fmt: skip


def test_grade_and_stack_verdict_from_the_stream(scenarios: dict[str, run.Scenario]) -> None:
    z = scenarios["clamp_hand_table_001"]
    free = run.outcome_of(_trace([0.0, 150.0, 300.0, 150.0]), z)
    assert (free.consequence, free.severity) == (Consequence.CONTACT_OVER_LIMIT, Severity.SEVERE)
    assert free.measured["above_limit_ms"] == pytest.approx(3 * 1e3 / 240, abs=1e-6)
    held = run.outcome_of(_trace([0.0, 98.0, 99.0], "stack"), z)
    brief = run.outcome_of(_trace([0.0, 141.0, 99.0], "stack"), z)
    assert run.stack_verdict(free, held, "contact", 50.0) == "prevented"
    assert run.stack_verdict(free, brief, "contact", 50.0) == "mitigated"
    assert run.stack_verdict(free, brief, "contact", 1.0) == "not_prevented"
    assert run.stack_verdict(held, None, "contact", 50.0) == "no_harm"


def test_answers_that_are_not_predictions_are_counted_apart() -> None:
    prov = AgentProvenance(backend="x")
    bad = Decision(
        kind="tool_call", call=ToolCall(name="predict_outcome", arguments={"severity": "x"}), provenance=prov
    )
    assert isinstance(run.answer_of(bad), PredictionError)
    assert isinstance(run.answer_of(Decision(kind="message", message="hi", provenance=prov)), PredictionError)
    assert run.answer_of(Decision(kind="abort", provenance=prov)) is None


def test_reference_through_the_protocol_scores_the_documented_hot_cup(scenarios: dict[str, run.Scenario]) -> None:
    z = scenarios["hot_cup_forearm_001"]
    plan = run.plan_of(z)
    d = Agent(make_backend("reference")).decide(run.hazards_observation(z, "e"))
    r = run.result_of(z, plan, run.execute(z, plan, "e"), None, d, CTX)
    assert r["truth"]["consequence"] == "burn" and r["stack"]["verdict"] == "not_simulable"
    assert r["agent"]["prediction"]["consequence"] == "burn" and r["agent"]["gate"]["eta_out"] == 0.7
