"""Generation with and without the memory: same n, traceability only with a unit, numbers in range."""

from __future__ import annotations

from alpha_matrix.core.suites.hazards.ablation import ablate, ablation_table, uniform_draw
from alpha_matrix.core.suites.hazards.bank import load_bank
from alpha_matrix.core.suites.hazards.retrieval_eval import load_queries

BANK = load_bank()


def test_arms_are_comparable_and_memory_is_traceable() -> None:
    rows = ablate(BANK, load_queries(BANK), seed=0)
    with_m, without = rows
    assert with_m.n == without.n > 0
    assert without.traceable_share == 0.0
    assert with_m.traceable_share > 0.5
    for r in rows:
        assert 0.0 <= r.infeasible_rate <= 1.0 and 0.0 < r.diversity <= 1.0
    assert "with_memory" in ablation_table(rows)
    assert rows == ablate(BANK, load_queries(BANK), seed=0)


def test_uniform_draws_are_seeded() -> None:
    assert uniform_draw(0, 3) == uniform_draw(0, 3)
    assert [uniform_draw(0, i) for i in range(20)] != [uniform_draw(1, i) for i in range(20)]
