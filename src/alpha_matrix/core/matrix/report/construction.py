"""What the report must not present as a finding: cells a fault cannot act on, and plans that never moved.

The decision itself is core/matrix/cells.inert_faults (fault + arm + task variant). The variant is
not a field of the record (schema 2): it is read from what its mechanism leaves in the fault log,
and, where the records cannot show it (no F1 episode that moved: a short run), from the run's
config.json (core/run_plan.py: the parameters the run was started with). Where neither shows it,
the report says so and claims nothing that depends on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from alpha_matrix.core.matrix.cells import CLOSED_LOOP, OPEN_LOOP, cannot_act, inert_faults
from alpha_matrix.core.matrix.report.fmt import _faults, _num
from alpha_matrix.core.matrix.stats import Pair, cell_of
from alpha_matrix.core.records import EpisodeRecord

MARK = "†"  # a cell or pair whose result is fixed by construction
# Abort kinds raised before the first command moves the arm: the runner got no plan ("planner"),
# or a guard refused it (json, schema, semantic: scene, grasp and reach are all checked up front).
PRE_MOTION_ABORTS = frozenset({"planner", "json", "schema", "semantic"})


def before_motion(rec: EpisodeRecord) -> bool:
    """The plan was refused before any motion: the block lies where it started, so its distance to
    the zone is the start distance, not a placement error."""
    return rec.abort_kind in PRE_MOTION_ABORTS


@dataclass(frozen=True)
class Variant:
    name: str | None  # open_loop, closed_loop, or None: the records do not show it
    evidence: str


def task_variant(records: Sequence[EpisodeRecord], configured: str | None = None) -> Variant:
    """The task variant as the fault log shows it, else as the run was configured (``configured``:
    episode_runner.task_variant of the run's config.json, None when there is none).

    Closed loop re-observes (robot/observe, through the chaos node) before the grasp; in an F1 cell
    that observation is delayed and logged as an F1 injection at the step the preceding command
    ended, which that command's delayed status is logged at too: two F1 injections at one step.
    Open loop never re-observes, so an executed F1 episode has one F1 injection per step. Without an
    F1 episode that moved, the records cannot tell the variants apart: the configured one is taken.
    """
    moved = [
        r
        for r in records
        if "F1" in cell_of(r).fault.split("+") and not before_motion(r) and r.actions_completed > 0 and _faults(r, "F1")
    ]
    if not moved:
        if configured in (OPEN_LOOP, CLOSED_LOOP):
            return Variant(configured, "as configured: episode_runner.task_variant in the run's config.json")
        why = "no F1 episode that moved shows it, and the run directory holds no config.json"
        return Variant(None, f"not in the episode records: {why}; it matters only for F1 cells")
    again = [r for r in moved if len({f.step for f in _faults(r, "F1")}) < len(_faults(r, "F1"))]
    found = CLOSED_LOOP if again else OPEN_LOOP
    evidence = (
        f"{len(again)} of {len(moved)} F1 episodes that moved re-observed before the grasp"
        if again
        else f"none of the {len(moved)} F1 episodes that moved observed again after planning"
    )
    if configured in (OPEN_LOOP, CLOSED_LOOP) and configured != found:
        evidence += f"; the run's config.json says {configured}: the records are taken"
    return Variant(found, evidence)


def cell_marked(cell_fault: str, arm: str, variant: Variant) -> bool:
    """No fault of the cell can change this arm's outcome (cells.cannot_act, in this run's variant)."""
    return cannot_act(cell_fault, arm, variant.name)


def pair_by_construction(pair: Pair, a: str, b: str, variant: Variant) -> bool:
    """A pair whose fault can act on one arm only: the other arm is shielded by design, so any
    discordance is that design, not a finding about the planners."""
    fault = pair.cell.fault if pair.cell is not None else "none"
    return cannot_act(fault, a, variant.name) != cannot_act(fault, b, variant.name)


def inert_rows(records: Sequence[EpisodeRecord], arms: Sequence[str], variant: Variant) -> list[tuple[str, ...]]:
    """(cell fault, arm, episodes, fault that cannot act, why, what the records show) per marked cell."""
    rows: list[tuple[str, ...]] = []
    for fault in sorted({cell_of(r).fault for r in records}):
        for arm in arms:
            eps = [r for r in records if r.arm == arm and cell_of(r).fault == fault]
            for single, why in sorted(inert_faults(fault, arm, variant.name).items()) if eps else ():
                rows.append((fault, arm, str(len(eps)), single, why, _recorded(single, eps)))
    return rows


def _recorded(fault: str, eps: Sequence[EpisodeRecord]) -> str:
    """What the fault log of these episodes holds for the inert fault (factual, never assumed)."""
    draws = [f for r in eps for f in _faults(r, fault)]
    if fault != "F1" or not draws:
        return f"{len(draws)} {fault} injections in {len(eps)} episodes"
    first = [min(_faults(r, "F1"), key=lambda f: f.step) for r in eps if _faults(r, "F1")]
    errors = [x for f in first if (x := _num(f.delivered.get("position_error"))) is not None]
    worst = f"{max(errors):.2e} m" if errors else "not recorded"
    return f"{len(draws)} F1 injections; position error of the observation planned from: max {worst}"
