from __future__ import annotations

import pytest

from alpha_matrix.core.matrix.stats import (
    arm_table,
    cell_table,
    discordant,
    mcnemar,
    pair_records,
    paired_test,
    physical,
    wilson,
)
from alpha_matrix.core.matrix.summary import SHOWN_FAILURES, summarize
from alpha_matrix.core.records import CellRecord, EpisodeRecord, OutcomeRecord, Provenance, Timing


def rec(arm: str, index: int, success: bool, seed: int | None = None, cell: CellRecord | None = None) -> EpisodeRecord:
    return EpisodeRecord(
        run_id="r",
        episode_id=f"{arm}-{index:04d}",
        arm=arm,
        episode_index=index,
        master_seed=42,
        seed=1000 + index if seed is None else seed,
        task="t",
        object="red",
        zone=(0.6, 0.35, 0.65),
        initial_positions={"red": (0.5, 0.0, 0.65)},
        plan=None,
        abort_kind="",
        abort_reason="",
        actions_completed=6,
        outcome=OutcomeRecord(success=success, placement_error=0.001, steps_used=100, reason=""),
        final_poses={},
        cell=cell,
        provenance=Provenance(code_revision="abc", code_dirty=False, config_hash="h", packages={}, python="3.11"),
        timing=Timing(started_at="2026-01-01T00:00:00", wall_s=0.1, plan_s=0.0, execute_s=0.1),
    )


def test_mcnemar_known_value():
    t = mcnemar(15, 0)
    assert (t.b, t.c) == (15, 0)
    assert round(t.chi2, 3) == 13.067  # (|15 - 0| - 1)² / 15
    assert t.p_chi2 == pytest.approx(3.01e-4, abs=5e-7)
    assert t.p_exact == pytest.approx(2 * 0.5**15)


def test_mcnemar_is_symmetric_and_continuity_corrected():
    assert mcnemar(3, 7).chi2 == pytest.approx(0.9)
    assert mcnemar(7, 3).p_chi2 == pytest.approx(mcnemar(3, 7).p_chi2)
    assert mcnemar(7, 3).p_exact == pytest.approx(mcnemar(3, 7).p_exact)


def test_mcnemar_without_discordance_or_difference():
    assert mcnemar(0, 0) == mcnemar(0, 0).__class__(b=0, c=0, chi2=0.0, p_chi2=1.0, p_exact=1.0)
    equal = mcnemar(1, 1)
    assert equal.chi2 == 0.0 and equal.p_chi2 == pytest.approx(1.0) and equal.p_exact == pytest.approx(1.0)
    with pytest.raises(ValueError):
        mcnemar(-1, 2)


def test_wilson_known_value():
    lo, hi = wilson(48, 75)
    assert (round(lo, 3), round(hi, 3)) == (0.527, 0.739)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(0, 10)[0] == pytest.approx(0.0)
    assert wilson(10, 10)[1] == pytest.approx(1.0)
    with pytest.raises(ValueError):
        wilson(11, 10)


def test_pairing_by_episode_index():
    f4 = CellRecord(fault="F4", intensity=0.33, replicate=0)
    records = [
        rec("oracle", 0, True),
        rec("oracle-text", 0, True),
        rec("oracle", 1, True, cell=f4),
        rec("oracle-text", 1, False, cell=f4),
        rec("oracle", 2, False),
        rec("oracle-text", 2, True),
        rec("oracle", 3, True),  # the other arm never ran it: left out
    ]
    pairs = pair_records(records, "oracle", "oracle-text")
    assert [p.key for p in pairs] == [0, 1, 2]
    assert [(p.key, p.a_id, p.b_id) for p in discordant(pairs)] == [
        (1, "oracle-0001", "oracle-text-0001"),
        (2, "oracle-0002", "oracle-text-0002"),
    ]
    t = paired_test(pairs)
    assert (t.b, t.c) == (1, 1)
    assert [p.key for p in physical(pairs)] == [0, 2]
    assert paired_test(physical(pairs)).c == 1 and paired_test(physical(pairs)).b == 0


def test_mismatched_seed_or_cell_is_refused():
    with pytest.raises(ValueError, match="episode 4"):
        pair_records([rec("a", 4, True, seed=1), rec("b", 4, True, seed=2)], "a", "b")
    cell = CellRecord(fault="F1", intensity=0.33, replicate=0)
    with pytest.raises(ValueError, match="episode 5.*cell"):
        pair_records([rec("a", 5, True, cell=cell), rec("b", 5, True)], "a", "b")
    with pytest.raises(ValueError, match="twice"):
        pair_records([rec("a", 6, True), rec("a", 6, False), rec("b", 6, True)], "a", "b")


def test_cell_table_counts_plain_runs_as_control():
    f3 = CellRecord(fault="F3", intensity=1.0, replicate=0)
    records = [rec("a", 0, True), rec("a", 1, False), rec("a", 2, True, cell=f3), rec("b", 0, True)]
    rows = cell_table(records)
    assert [(r.arm, r.fault, r.intensity, r.n, r.successes) for r in rows] == [
        ("a", "none", 0.0, 2, 1),
        ("a", "F3", 1.0, 1, 1),
        ("b", "none", 0.0, 1, 1),
    ]
    assert rows[0].rate == 0.5 and (rows[0].lo, rows[0].hi) == wilson(1, 2)
    assert [(r.arm, r.n, r.successes) for r in arm_table(records)] == [("a", 3, 2), ("b", 1, 1)]


def test_summary_counts_the_failures_it_does_not_name():
    text = summarize([rec("oracle", i, success=i % 2 == 0) for i in range(30)])  # 15 failed
    assert text.count("  failed oracle-") == SHOWN_FAILURES
    assert f"... and {15 - SHOWN_FAILURES} more failed" in text
    short = summarize([rec("oracle", i, success=i != 3) for i in range(5)])
    assert "failed oracle-0003" in short and "more failed" not in short
