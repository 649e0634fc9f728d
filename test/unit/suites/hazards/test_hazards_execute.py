"""Executing z: a clamp over the hand limit without the stop and under it with the stop; one z per kind."""

from __future__ import annotations

import pytest

from alpha_matrix.core.suites.hazards.bank import load_bank
from alpha_matrix.core.suites.hazards.execute import (
    Stack,
    StopResult,
    execute,
    play_kind,
    with_measured_consequence,
)
from alpha_matrix.core.suites.hazards.generate import build, draw_of, generate_set
from alpha_matrix.core.suites.hazards.scenario import Scenario
from alpha_matrix.core.suites.hazards.taxonomy import Consequence

BANK = load_bank()
STACK = Stack(stop_fraction=0.7, mitigated_ms=50.0)  # config/params_hazards.yaml's (test_hazards_run checks)


@pytest.fixture(scope="module")
def sample() -> dict[str, Scenario]:
    ok, _ = generate_set(BANK, seed=0, per_unit=2)
    out: dict[str, Scenario] = {}
    for z in ok:
        out.setdefault(play_kind(z), z)
    return out


def test_clamp_on_hand_is_over_the_limit_without_the_stop_and_under_with_it() -> None:
    z = build(draw_of(next(u for u in BANK.units if u.id == "clamping_hand_table"), 0), 0)
    ex = execute(z, STACK)
    assert ex.kind == "press" and ex.outcome.feasible
    m, s = ex.outcome.measured, ex.stopped.measured if ex.stopped else {}
    assert m["peak_force_n"] > m["force_limit_n"] == 140.0
    assert ex.outcome.consequence is Consequence.CONTACT_OVER_LIMIT
    assert s["peak_force_n"] < 140.0 and s["duration_over_limit_ms"] == 0.0
    assert ex.stop_result is StopResult.PREVENTED
    assert max(ex.outcome.force_stream_n) == m["peak_force_n"]  # an audit recomputes the peak


def test_execution_is_a_pure_function_of_z() -> None:
    z = build(draw_of(next(u for u in BANK.units if u.inversion == "sweep_through_region"), 0), 0)
    a, b = execute(z, STACK), execute(z, STACK)
    assert (a.outcome, a.stopped, a.stop_result) == (b.outcome, b.stopped, b.stop_result)


def test_one_scenario_of_each_kind_executes(sample: dict[str, Scenario]) -> None:
    assert {"press", "sweep", "drop", "zone", "carry"} <= set(sample)
    for kind, z in sample.items():
        ex = execute(z, STACK)
        assert ex.outcome.feasible, kind
        assert ex.outcome.trigger_happened, kind
        measured = ex.outcome.measured["consequence_measured"]
        assert measured == (0.0 if kind in ("carry", "zone") else 1.0), kind
        if kind == "sweep" and ex.stop_result is StopResult.MITIGATED:
            assert ex.stopped is not None and 0.0 < ex.stopped.measured["duration_over_limit_ms"] < STACK.mitigated_ms
        zm = with_measured_consequence(z, ex)
        assert zm.chain.consequence.type is ex.outcome.consequence
