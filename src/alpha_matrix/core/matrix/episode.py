"""The episode runner's bookkeeping: which episodes a batch runs, and what one episode's record says.

The runner node (nodes/episode_runner.py) talks to the graph; everything it decides is here:
the batch's arms, run id, cells and order (sharded, resumable), the record assembled from what
the graph answered (messages are read by attribute, so plain objects do in tests), the
safety and fault accounts as records, and the progress line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.cells import (
    ARMS,
    Cell,
    default_run_id,
    episode_id,
    matrix_cells,
    parse_arms,
    parse_cell_fault,
    shard,
    validate_intensity,
)
from alpha_matrix.core.matrix.fault_log import checked_fault_order
from alpha_matrix.core.matrix.params import EpisodeRunnerParams
from alpha_matrix.core.outcome import MAX_EPISODE_STEPS, evaluate_outcome
from alpha_matrix.core.planning.provenance import reply_from_msg, reply_timing, reply_to_record
from alpha_matrix.core.records import (
    EpisodeRecord,
    FaultRecord,
    OutcomeRecord,
    PlannerRecord,
    Provenance,
    SafetyEventRecord,
    SafetyRecord,
    Timing,
)

Vec3 = tuple[float, float, float]
Poses = dict[str, tuple[Vec3, Any]]  # name -> (position, orientation)


class Recorded(Protocol):
    def __contains__(self, episode_id: str) -> bool: ...


@dataclass
class Planned:
    """What the arm's planner gave: the executive's request (None: no plan), and for the record."""

    request: Any = None  # the executive's PlanRequest
    data: dict | None = None  # the plan as data, if it parses
    text: str | None = None  # text arms: the text the executive receives (after any F4)
    planner: Any = None  # text arms: the planner's own PlannerReply (provenance, text before any fault)
    error: str = ""


def planner_record(planned: Planned) -> PlannerRecord | None:
    """Text arms: the planner's provenance and its own text (before any F4), as it published them."""
    if planned.planner is None:
        return None
    return reply_to_record(reply_from_msg(planned.planner.text, planned.planner.provenance))


def planner_timing(planned: Planned) -> dict[str, float | None]:
    if planned.planner is None:
        return {}
    return reply_timing(reply_from_msg(planned.planner.text, planned.planner.provenance))


# -- the batch ---------------------------------------------------------------------------------
def config_hash(p: EpisodeRunnerParams) -> str:
    return p.config_hash or "standalone"


def batch_arms(p: EpisodeRunnerParams) -> tuple[list[str], str]:
    """The arms (order kept) and the run id; checked before the graph is waited for."""
    arms = parse_arms(list(p.arms), set(ARMS))
    if p.matrix and not p.chaos:
        raise AlphaMatrixError("the fault matrix needs the chaos node (episode_runner.chaos: true)")
    return arms, p.run_id or default_run_id(arms, config_hash(p))


def batch_cells(p: EpisodeRunnerParams, arms: list[str]) -> tuple[list[Cell], list[tuple[int, str]]]:
    """Every cell by episode index, and this worker's (index, arm) pairs in run order: the arms
    of one index adjacent, so a pair runs back to back."""
    if p.fault != "none" and not p.chaos:
        raise AlphaMatrixError(f"fault {p.fault} needs the chaos node (episode_runner.chaos: true)")
    single = Cell(parse_cell_fault(p.fault), validate_intensity(p.intensity), 0)
    cells = (
        matrix_cells()
        if p.matrix
        else [Cell(single.fault, single.intensity, i) for i in range(p.first_episode + p.episodes)]
    )
    indices = range(len(cells)) if p.matrix else range(p.first_episode, p.first_episode + p.episodes)
    every = [(i, arm) for i in indices for arm in arms]
    mine = set(shard(cells, p.shard_count, p.shard_index)) if p.shard_count > 1 else set(indices)
    return cells, [(i, arm) for i, arm in every if i in mine]


def still_to_run(every: list[tuple[int, str]], recorded: Recorded) -> list[tuple[int, str]]:
    """The pairs without a record yet: an interrupted run resumes where it stopped."""
    return [(i, arm) for i, arm in every if episode_id(arm, i) not in recorded]


def progress_line(n: int, total: int, rec: EpisodeRecord, cell: Cell, elapsed_s: float) -> str:
    eta = elapsed_s / n * (total - n)
    verdict = "ok  " if rec.outcome.success else "FAIL"
    return (
        f"[{n}/{total}] {rec.episode_id} {verdict} error {rec.outcome.placement_error * 1000:7.2f} mm "
        f"{rec.timing.wall_s:.2f} s  eta {eta:.0f} s"
        + (f"  [{cell.fault} {cell.intensity}]" if cell.faults else "")  # a control cell: no fault to name
        + (f"  ({rec.outcome.reason})" if not rec.outcome.success else "")
    )


# -- one episode's accounts ----------------------------------------------------------------------
def safety_complete(summary: Any, closed_events: int) -> bool:
    """The monitor's summary is in, and every closed event it counts (they travel separately)."""
    return summary is not None and closed_events >= summary.events


def safety_record(summary: Any, events: Iterable[Any]) -> SafetyRecord:
    """The monitor's SafetySummary and its closed SafetyEvents as the record's account, events
    in a canonical order (never arrival order)."""
    return SafetyRecord(
        **{f: getattr(summary, f) for f in SafetyRecord.model_fields if f != "events"},
        events=[
            SafetyEventRecord.model_validate(e, from_attributes=True)
            for e in sorted(events, key=lambda e: (e.start_step, e.kind, e.key))
        ],
    )


def fault_records(events: Iterable[Any]) -> list[FaultRecord]:
    """The chaos node's FaultEvents as records. Sent in canonical order; checked (and sorted) here
    so a record can never depend on arrival order."""
    return checked_fault_order(
        FaultRecord(
            fault=e.fault,
            step=e.step,
            seq=e.seq,
            requested=json.loads(e.requested_json),
            delivered=json.loads(e.delivered_json),
        )
        for e in events
    )


@dataclass
class EpisodeTrace:
    """What the graph answered during one episode, in the order the runner asked."""

    index: int
    arm: str
    cell: Cell
    seed: int
    started_at: str
    initial: dict[str, Vec3]
    planned: Planned
    final_poses: Poses
    final_step: int
    abort_kind: str = ""
    abort_reason: str = ""
    actions: int = 0
    safety: SafetyRecord | None = None
    faults: list[FaultRecord] = field(default_factory=list)
    clock: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # start, planning, executing, end


def episode_record(
    p: EpisodeRunnerParams, run_id: str, prov: Provenance, zone: Vec3, trace: EpisodeTrace
) -> EpisodeRecord:
    """The record: the outcome judged on the final poses, an abort named as its reason."""
    t = trace
    block = t.final_poses.get(p.object, ((float("nan"),) * 3, None))[0]
    outcome = evaluate_outcome(block, zone, int(t.final_step), max_steps=p.step_budget)
    reason = outcome.reason if not t.abort_kind else f"{t.abort_kind}: {t.abort_reason}"
    t0, t1, t2, t3 = t.clock
    return EpisodeRecord(
        run_id=run_id,
        episode_id=episode_id(t.arm, t.index),
        arm=t.arm,
        episode_index=t.index,
        master_seed=p.master_seed,
        seed=t.seed,
        task=p.task,
        object=p.object,
        zone=zone,
        initial_positions=t.initial,
        plan=t.planned.data,
        plan_text=t.planned.text,
        planner=planner_record(t.planned),
        abort_kind=t.abort_kind,
        abort_reason=t.abort_reason,
        actions_completed=t.actions,
        outcome=OutcomeRecord(
            success=outcome.success and not t.abort_kind,
            placement_error=outcome.placement_error,
            steps_used=outcome.steps_used,
            reason=reason if not outcome.success or t.abort_kind else "",
            step_budget=p.step_budget if p.step_budget != MAX_EPISODE_STEPS else None,
        ),
        final_poses={k: (v[0], v[1]) for k, v in t.final_poses.items()},
        safety=t.safety,
        cell=t.cell.record(),
        faults=t.faults,
        provenance=prov,
        timing=Timing(
            started_at=t.started_at,
            wall_s=t3 - t0,
            plan_s=t2 - t1,
            execute_s=t3 - t2,
            **planner_timing(t.planned),
        ),
    )
