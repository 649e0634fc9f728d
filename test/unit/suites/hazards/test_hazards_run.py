"""The suite's run module: the scenario sets (generated, hand-written, bad files), what the world
model is shown (hidden and explicit probe), grading from a trace as the audit does, the stack's
verdicts, answers that are not predictions, and the reference through the protocol."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alpha_matrix.core.agent.agent import Agent, make_backend
from alpha_matrix.core.agent.protocol import AgentProvenance, Decision, ToolCall
from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.hazards import run
from alpha_matrix.core.suites.hazards.context import HazardsContext
from alpha_matrix.core.suites.hazards.execute import StopResult
from alpha_matrix.core.suites.hazards.params import HazardExecutiveParams
from alpha_matrix.core.suites.hazards.plugin import SUITE as HAZARDS
from alpha_matrix.core.suites.hazards.prediction import PredictionError, outcome_statement
from alpha_matrix.core.suites.hazards.taxonomy import Consequence, Severity

SHORT = config_dir() / "scenarios" / "hazards_short.yaml"
PARAMS = load_yaml(config_dir() / "params_hazards.yaml")["hazard_executive"]["ros__parameters"]
CTX = HazardsContext(agent="reference", stop_fraction=PARAMS["stop_fraction"], mitigated_ms=PARAMS["mitigated_ms"])


@pytest.fixture(scope="module")
def scenarios() -> dict[str, run.Scenario]:
    return {z.scenario_id: z for z in run.suite_scenarios(SHORT)}


def test_constants_are_the_world_s_and_the_params_file_s() -> None:
    assert run.TIMESTEP == WorldConfig.timestep
    assert set(run.STACK_VERDICTS) == {v.value for v in StopResult}
    defaults = HazardExecutiveParams()
    assert (defaults.stop_fraction, defaults.mitigated_ms, defaults.probe) == (
        PARAMS["stop_fraction"], PARAMS["mitigated_ms"], PARAMS["probe"]
    )  # fmt: skip


def test_the_default_set_is_generated_from_the_bank_with_its_seed() -> None:
    spec = load_yaml(run.default_path())["generate"]
    zs = run.suite_scenarios(None)
    assert len({z.unit_id for z in zs}) >= 40 and len(zs) == len({z.unit_id for z in zs}) * spec["per_unit"]
    assert {z.provenance.seed for z in zs} == {spec["seed"]}


def test_a_short_generated_set_and_bad_files_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "g.yaml").write_text("generate: {seed: 3, per_unit: 2, units: [clamping_hand_table]}\n")
    zs = run.suite_scenarios(tmp_path / "g.yaml")
    assert [z.scenario_id for z in zs] == ["clamping_hand_table.00", "clamping_hand_table.01"]
    bad = {
        "typo.yaml": ("generate: {seed: 3, per_unit: 2, sed: 1}\n", "generate.sed"),
        "unit.yaml": ("generate: {seed: 3, per_unit: 1, units: [nope]}\n", "'nope', not a unit"),
        "bank.yaml": ("generate: {seed: 3, per_unit: 1, bank: badbank.yaml}\n", "badbank.yaml"),
        "z.yaml": ("- {scenario_id: x, provenance: {unit_id: u, sources: [s]}}\n", "z.yaml[0]"),
    }
    (tmp_path / "badbank.yaml").write_text("units: [{id: 1}]\n")
    for name, (text, where) in bad.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(ConfigError) as err:
            run.suite_scenarios(tmp_path / name)
        assert where in str(err.value) and "\n" not in str(err.value), name


def test_the_observation_holds_no_answer_key_unless_the_probe_states_it(scenarios: dict[str, run.Scenario]) -> None:
    for z in scenarios.values():
        obs = run.hazards_observation(z, "e")
        assert z.chain.consequence.text not in json.dumps(obs.model_dump(mode="json"))
        assert "consequence" not in json.dumps(obs.situation) and "measured" not in json.dumps(obs.situation)
        assert [t.name for t in obs.tools] == ["predict_outcome"]
        told = run.hazards_observation(z, "e", "explicit")
        assert told.situation["stated_outcome"] == outcome_statement(z)
        assert {k: v for k, v in told.situation.items() if k != "stated_outcome"} == {
            k: v for k, v in obs.situation.items() if k != "stated_outcome"
        }


def _trace(forces: list[float], run_: str = "free") -> run.Trace:
    out = run.ScenarioOutcome(initial_state_kept=True, trigger_happened=True, consequence=Consequence.NONE,
                              severity=Severity.NONE, force_stream_n=tuple(forces),
                              pressure_stream_n_cm2=tuple(0.0 for _ in forces))  # fmt: skip
    return run.Trace(episode_id="e", scenario_id="s", run=run_, kind="press", outcome=out)  # type: ignore[arg-type]


def test_grade_and_stack_verdict_from_the_stream(scenarios: dict[str, run.Scenario]) -> None:
    z = scenarios["clamp_hand_table_001"]
    free = run.regrade(_trace([0.0, 150.0, 300.0, 150.0]), z)  # what the trace says, not what it claimed
    assert (free.consequence, free.severity) == (Consequence.CONTACT_OVER_LIMIT, Severity.SEVERE)
    assert free.measured["duration_over_limit_ms"] == pytest.approx(3 * 1e3 / 240, abs=1e-6)
    held = _trace([0.0, 98.0, 99.0], "stack")
    brief = _trace([0.0, 141.0, 99.0], "stack")
    r = run.result_of(z, _trace([0.0, 150.0, 300.0, 150.0]), held, None, CTX)
    assert r["stack"]["verdict"] == "prevented" and "force_stream_n" not in r["truth"]
    assert run.result_of(z, _trace([0.0, 150.0, 300.0]), brief, None, CTX)["stack"]["verdict"] == "mitigated"
    strict = CTX.model_copy(update={"mitigated_ms": 1.0})
    assert run.result_of(z, _trace([0.0, 150.0, 300.0]), brief, None, strict)["stack"]["verdict"] == "not_prevented"
    assert run.result_of(z, held.model_copy(update={"run": "free"}), held, None, CTX)["stack"]["verdict"] == "no_harm"


def test_answers_that_are_not_predictions_are_counted_apart() -> None:
    prov = AgentProvenance(backend="x")
    bad = Decision(
        kind="tool_call", call=ToolCall(name="predict_outcome", arguments={"severity": "x"}), provenance=prov
    )
    assert isinstance(run.answer_of(bad), PredictionError)
    assert isinstance(run.answer_of(Decision(kind="message", message="hi", provenance=prov)), PredictionError)
    assert run.answer_of(Decision(kind="abort", provenance=prov)) is None


def test_one_path_the_plays_regrade_to_the_physics_outcome(scenarios: dict[str, run.Scenario]) -> None:
    """execute.py's outcome and the audit's re-grade of the recorded trace agree; the hot cup is
    documented and scored, with the reference through the protocol."""
    z = scenarios["clamp_hand_table_001"]
    free, stack = run.plays(z, "e", CTX, None)
    assert stack is not None and run.regrade(free, z) == free.outcome and run.regrade(stack, z) == stack.outcome
    cup = scenarios["hot_cup_forearm_001"]
    free, stack = run.plays(cup, "e", CTX, None)
    d = Agent(make_backend("reference", suites=HAZARDS), HAZARDS).decide(run.hazards_observation(cup, "e"))
    r = run.result_of(cup, free, stack, d, CTX)
    assert r["truth"]["consequence"] == "burn" and r["stack"]["verdict"] == "not_simulable"
    assert r["agent"]["prediction"]["consequence"] == "burn" and r["agent"]["gate"]["eta_out"] == 0.7
    gone, none = run.plays(z, "e", CTX, "reach: out of reach")
    assert none is None and not gone.outcome.feasible
    assert run.result_of(z, gone, None, None, CTX)["stack"]["verdict"] == "infeasible"
