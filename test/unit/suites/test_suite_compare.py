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
