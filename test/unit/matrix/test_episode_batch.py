"""core/matrix/episode.py: the runner's batch and record, without ROS (messages as namespaces)."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix import episode as batch
from alpha_matrix.core.matrix.cells import Cell, episode_id
from alpha_matrix.core.matrix.fault_log import FaultOrderError
from alpha_matrix.core.matrix.params import EpisodeRunnerParams
from alpha_matrix.core.outcome import ZONE
from alpha_matrix.core.records import Provenance

PROV = Provenance(code_revision="abc", code_dirty=False, config_hash="h", packages={}, python="3")


def params(**kw) -> EpisodeRunnerParams:  # noqa: ANN003
    return EpisodeRunnerParams(**kw)


def test_matrix_and_faults_need_chaos() -> None:
    with pytest.raises(AlphaMatrixError, match="fault matrix needs the chaos node"):
        batch.batch_arms(params(matrix=True))
    with pytest.raises(AlphaMatrixError, match="fault F2 needs the chaos node"):
        batch.batch_cells(params(fault="F2", intensity=0.33), ["oracle"])


def test_run_id_is_derived_from_arms_and_config_hash() -> None:
    assert batch.batch_arms(params(arms=["oracle", "llm"], config_hash="0123456789abcdef")) == (
        ["oracle", "llm"],
        "oracle+llm-0123456789ab",
    )
    assert batch.batch_arms(params(run_id="mine"))[1] == "mine"
    assert batch.config_hash(params()) == "standalone"


def test_cells_pair_the_arms_and_shard_by_index() -> None:
    cells, every = batch.batch_cells(params(episodes=3, first_episode=1), ["oracle", "llm"])
    assert [c.replicate for c in cells] == [0, 1, 2, 3]
    assert every == [(1, "oracle"), (1, "llm"), (2, "oracle"), (2, "llm"), (3, "oracle"), (3, "llm")]
    _, mine = batch.batch_cells(params(episodes=4, shard_count=2, shard_index=1), ["oracle"])
    assert mine == [(1, "oracle"), (3, "oracle")]
    cells, every = batch.batch_cells(params(matrix=True, chaos=True), ["oracle"])
    assert len(cells) == len(every) == 75 and cells[10].fault == "F1"


def test_recorded_episodes_are_not_run_again() -> None:
    every = [(0, "oracle"), (1, "oracle"), (2, "oracle")]
    assert batch.still_to_run(every, {episode_id("oracle", 1)}) == [(0, "oracle"), (2, "oracle")]


def _event(start: int, kind: str, key: str) -> NS:
    return NS(
        kind=kind, key=key, severity="warning", start_step=start, close_step=start + 2, last_unsafe_step=start + 1,
        scans=2, peak=1.5, stop_requested=False,
    )  # fmt: skip


def test_safety_account_waits_for_every_event_and_sorts_them() -> None:
    summary = NS(
        first_step=1, last_step=900, steps_checked=900, raw_scans=3, contact_threshold=50.0,
        threshold_source="config", window=5, events=2,
    )  # fmt: skip
    assert not batch.safety_complete(None, 5)
    assert not batch.safety_complete(summary, 1) and batch.safety_complete(summary, 2)
    rec = batch.safety_record(summary, [_event(20, "contact", "b"), _event(10, "contact", "a")])
    assert [e.start_step for e in rec.events] == [10, 20] and rec.steps_checked == 900


def _fault(fault: str, step: int, seq: int) -> NS:
    return NS(fault=fault, step=step, seq=seq, requested_json='{"tau": 0.1}', delivered_json='{"tau": 0.1}')


def test_fault_records_parse_and_keep_the_canonical_order() -> None:
    recs = batch.fault_records([_fault("F1", 130, 0), _fault("F1", 250, 1)])
    assert [(r.step, r.seq) for r in recs] == [(130, 0), (250, 1)] and recs[0].requested == {"tau": 0.1}
    assert batch.fault_records([]) == []
    with pytest.raises(FaultOrderError):
        batch.fault_records([_fault("F1", 250, 0), _fault("F1", 130, 1)])


def _trace(**kw) -> batch.EpisodeTrace:  # noqa: ANN003
    base = dict(
        index=3, arm="oracle", cell=Cell("none", 0.0, 3), seed=7, started_at="t", initial={"red": (0.5, 0.0, 0.65)},
        planned=batch.Planned(data={"steps": []}), final_poses={"red": (ZONE, (0.0, 0.0, 0.0, 1.0))}, final_step=900,
        clock=(1.0, 2.0, 3.5, 6.0),
    )  # fmt: skip
    return batch.EpisodeTrace(**{**base, **kw})


def test_a_placed_block_is_a_success_with_its_timing() -> None:
    rec = batch.episode_record(params(), "run", PROV, ZONE, _trace())
    assert rec.episode_id == "oracle-0003" and rec.outcome.success and rec.outcome.reason == ""
    assert (rec.timing.wall_s, rec.timing.plan_s, rec.timing.execute_s) == (5.0, 1.5, 2.5)
    assert rec.planner is None and rec.timing.llm_latency_s is None and rec.cell.replicate == 3


def test_an_abort_fails_the_episode_whatever_the_block() -> None:
    rec = batch.episode_record(params(), "run", PROV, ZONE, _trace(abort_kind="planner", abort_reason="no plan"))
    assert not rec.outcome.success and rec.outcome.reason == "planner: no plan"
    missing = batch.episode_record(params(), "run", PROV, ZONE, _trace(final_poses={}))
    assert not missing.outcome.success and missing.outcome.reason == "block position is not finite"


def test_text_arms_carry_the_planners_own_text_and_latency() -> None:
    prov = NS(
        backend="ollama", model="m", digest="d", prompt_tokens=10, completion_tokens=20, seed=1, recorded=False,
        template_sha256="s", template_version="v1", attempts=1, latency_s=0.8, eval_duration_s=-1.0,
    )  # fmt: skip
    planned = batch.Planned(data=None, text="{bad", planner=NS(provenance=prov, text="{good}"))
    rec = batch.episode_record(params(), "run", PROV, ZONE, _trace(planned=planned))
    assert rec.planner is not None and rec.planner.text == "{good}" and rec.plan_text == "{bad"
    assert rec.timing.llm_latency_s == 0.8 and rec.timing.llm_eval_s is None


def test_progress_line_names_the_cell_and_the_failure() -> None:
    rec = batch.episode_record(params(), "run", PROV, ZONE, _trace(abort_kind="cancelled", abort_reason="stop"))
    line = batch.progress_line(1, 4, rec, Cell("F2", 0.33, 0), 2.0)
    assert line.startswith("[1/4] oracle-0003 FAIL") and "eta 6 s" in line and "[F2 0.33]" in line
    assert line.endswith("(cancelled: stop)")
    control = batch.progress_line(1, 4, rec, Cell("none", 0.0, 0), 2.0)  # no fault: no empty "[none 0.0]"
    assert "[none" not in control and control.endswith("eta 6 s  (cancelled: stop)")
