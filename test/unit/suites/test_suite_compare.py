"""Two agents' suite runs paired decision by decision: pairs on scenario, seed and step; aborts
drop their pair; different scenario sets are refused; the counts feed McNemar and Wilson."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.compare import arm_of, compare, comparison_lines


def _rec(agent: str, verdicts: dict[int, str], scenario: str = "a02-1m", seed: int = 42, harms: int = 0):
    rows = [[i, step, "tool_call", "x", 1.0, v] for i, (step, v) in enumerate(sorted(verdicts.items()))]
    part = {"agent": agent, "guards": True, "rows": rows, "harms": harms, "guard_catches": 0}
    return SimpleNamespace(ok=True, suite="proximity", scenario=scenario, seed=seed, result={"agent": part})


def test_pairs_on_shared_steps_and_drops_aborts():
    a = [_rec("reference", {144: "right", 168: "right", 192: "right", 216: "abort", 240: "right"})]
    b = [_rec("llamacpp", {144: "wrong", 192: "harm", 216: "right", 240: "right"}, harms=1)]  # every other frame
    c = compare(arm_of("ref", a), arm_of("gemma", b), a, b)
    assert (c.pairs, c.a_right, c.b_right, c.test.b, c.test.c) == (3, 3, 1, 2, 0)
    text = "\n".join(comparison_lines(c))
    assert "3/3 = 100.0 %" in text and "1/3 = 33.3 %" in text and "| gemma | `llamacpp` | on |" in text


def test_other_scenarios_or_no_agent_are_refused():
    a = [_rec("reference", {144: "right"})]
    with pytest.raises(ConfigError, match="differ in their scenarios"):
        b = [_rec("reference", {144: "right"}, seed=7)]
        compare(arm_of("a", a), arm_of("b", b), a, b)
    plain = [SimpleNamespace(ok=True, suite="proximity", scenario="a02-1m", seed=42, result={})]
    with pytest.raises(ConfigError, match="not a run of an agent"):
        arm_of("none", plain)


# ----------------------------------------------------------------------------- every suite (issue 47)
def _hazards(agent: str, verdicts: dict[str, str | None]):
    """Hazards records: per scenario "right" (strict gate), "wrong", "unparsable", "abort", "infeasible"."""
    out = []
    for name, v in verdicts.items():
        part = {"agent": agent, "error": None, "prediction": {}, "gate": {"strict": v == "right"}}
        if v == "abort":
            part.update(error="abort", prediction=None, gate=None)
        elif v == "unparsable":
            part.update(error="no_json", prediction=None, gate=None)
        feasible = v != "infeasible"
        result = {"truth": {"feasible": feasible}, "agent": part if feasible else None}
        out.append(SimpleNamespace(ok=True, suite="hazards", scenario=name, seed=0, result=result))
    return out


def test_hazards_runs_pair_per_scenario_on_the_strict_gate():
    a = _hazards("reference", {"s1": "right", "s2": "right", "s3": "abort", "s4": "infeasible", "s5": "wrong"})
    b = _hazards("llm", {"s1": "unparsable", "s2": "right", "s3": "right", "s4": "infeasible", "s5": "right"})
    c = compare(arm_of("ref", a), arm_of("gemma", b), a, b)
    assert (c.pairs, c.a_right, c.b_right, c.test.b, c.test.c) == (3, 2, 2, 1, 1)
    text = "\n".join(comparison_lines(c))
    assert "ICAT's causal gate" in text and "| ref | `reference` | n/a | 2/3" in text


def _gauge(spec: str, answers: list[tuple[bool, float | None, bool]]):
    """Gauge records: (readable, value reported or None, accurate)."""
    return [
        SimpleNamespace(
            ok=True,
            suite="gauge",
            scenario=f"g{i}",
            seed=1,
            result={"readable": readable, "agent": {"spec": spec, "value": value, "accurate": accurate, "aborts": 0}},
        )
        for i, (readable, value, accurate) in enumerate(answers)
    ]


def test_gauge_runs_pair_per_item_reading_or_abstaining():
    a = _gauge("reference", [(True, 3.0, True), (False, None, False), (True, None, False)])
    b = _gauge("llm", [(True, 9.0, False), (False, 4.0, False), (True, 3.0, True)])
    c = compare(arm_of("ref", a), arm_of("llm", b), a, b)
    assert (c.pairs, c.a_right, c.b_right) == (3, 2, 1)
    assert "abstained on" in "\n".join(comparison_lines(c))


def test_runs_of_two_suites_are_refused_in_one_line():
    a = _hazards("reference", {"s1": "right"})
    b = [_rec("reference", {144: "right"})]
    with pytest.raises(ConfigError, match="a run of the hazards suite, b of the proximity suite") as info:
        compare(arm_of("a", a), arm_of("b", b), a, b)
    assert "\n" not in str(info.value)


def test_cli_compare_refuses_a_matrix_run_naming_report_arms(tmp_path, capsys):
    import shutil
    from pathlib import Path

    from alpha_matrix.cli import main

    old = Path(__file__).resolve().parents[2] / "bags" / "runs" / "matrix-pre-layout"
    run = shutil.copytree(old, tmp_path / "m1")
    assert main(["compare", str(run), str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert "is a matrix run" in err and f"alpha-matrix report {run}" in err and "schema version" not in err
    assert len(err.splitlines()) == 1
