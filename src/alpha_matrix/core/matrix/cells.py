"""The balanced fault matrix of one arm and how it is split among workers.

Order (``episode_index`` = position, 0..74): 10 control cells; then F1, F2, F3, F4, each at
I = 0.33, 0.66, 1.00 with replicates 0..4; then 5 concurrent F1+F2 cells at I = 0.66. Every
arm runs the same list, so episode ``i`` has the same seed and geometry in every arm: that is
what pairs the arms. The order is part of the run's identity: never reorder it.
"""

from __future__ import annotations

from dataclasses import dataclass

from alpha_matrix.core import seeds
from alpha_matrix.core.matrix.faults import (
    CONCURRENT,
    CONCURRENT_INTENSITY,
    CONTROL,
    FAULTS,
    INTENSITIES,
    FaultConfigError,
    validate_intensity,
)
from alpha_matrix.core.names import MODEL_NAME, name_part
from alpha_matrix.core.records import CellRecord
from alpha_matrix.core.shards import in_share

__all__ = [
    "Cell",
    "CONTROL_REPLICATES",
    "FAULT_REPLICATES",
    "CONCURRENT_REPLICATES",
    "CELL_FAULTS",
    "matrix_cells",
    "episode_seed",
    "parse_arms",
    "parse_cell_fault",
    "shard",
    "validate_intensity",  # re-exported: one definition for the fault formulas and the CLI
]

CONTROL_REPLICATES = 10
FAULT_REPLICATES = 5
CONCURRENT_REPLICATES = 5
CELL_FAULTS = (CONTROL, *FAULTS, CONCURRENT)


@dataclass(frozen=True)
class Cell:
    """One episode's place in the matrix. Control: fault "none", intensity 0."""

    fault: str
    intensity: float
    replicate: int

    @property
    def faults(self) -> tuple[str, ...]:
        """The single faults active in this cell: () for control, ("F1", "F2") for the concurrent cell."""
        return () if self.fault == CONTROL else tuple(self.fault.split("+"))

    def record(self) -> CellRecord:
        return CellRecord(fault=self.fault, intensity=self.intensity, replicate=self.replicate)


def matrix_cells() -> list[Cell]:
    """The 75 cells of one arm, in the fixed order of the module docstring."""
    cells = [Cell(CONTROL, 0.0, r) for r in range(CONTROL_REPLICATES)]
    cells += [Cell(f, i, r) for f in FAULTS for i in INTENSITIES for r in range(FAULT_REPLICATES)]
    cells += [Cell(CONCURRENT, CONCURRENT_INTENSITY, r) for r in range(CONCURRENT_REPLICATES)]
    return cells


def episode_seed(master_seed: int, episode_index: int) -> int:
    """The episode's seed: a function of the master seed and the index only, never of the arm."""
    return seeds.derive_seed(master_seed, "episode", episode_index)


def parse_arms(names: list[str], known: set[str] | None = None) -> list[str]:
    """Arm names as given (order kept), or FaultConfigError on an empty, unknown or repeated name.
    ``llm:<model>`` is the llm arm asking that model (several models, one run, paired by seed)."""
    if not names:
        raise FaultConfigError("no arm given")
    known = set(ARMS) if known is None else known
    out: list[str] = []
    for raw in names:
        name = raw.strip()
        family, sep, model = name.partition(":")
        if sep and family in known and family in MODEL_ARMS:
            if not MODEL_NAME.fullmatch(model):
                raise FaultConfigError(f"arm {raw[:80]!r}: {model[:80]!r} is not a model name")
        elif name not in known:
            shown = ", ".join([*sorted(known), *(f"{f}:<model>" for f in sorted(MODEL_ARMS & known))])
            raise FaultConfigError(f"unknown arm {raw[:80]!r} (known: {shown or 'none'})")
        if name in out:
            raise FaultConfigError(f"arm {name!r} given twice")
        out.append(name)
    return out


def parse_cell_fault(name: str) -> str:
    """A cell's fault name ("none", F1..F4, "F1+F2"), or FaultConfigError."""
    if name not in CELL_FAULTS:
        raise FaultConfigError(f"unknown fault {name!r} (known: {', '.join(CELL_FAULTS)})")
    return name


def shard(cells: list[Cell], workers: int, worker: int) -> list[int]:
    """Episode indices of ``worker`` among ``workers``: round-robin (i mod workers == worker)."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise FaultConfigError(f"workers must be a positive integer, got {workers!r}")
    if isinstance(worker, bool) or not isinstance(worker, int) or not 0 <= worker < workers:
        raise FaultConfigError(f"worker must be in [0, {workers - 1}], got {worker!r}")
    return [i for i in range(len(cells)) if in_share(i, worker, workers)]


# Planner arms by name: how the runner asks for a plan. Text arms take the LLM's path (raw text,
# parsed and validated by the executive, exposed to F4); the typed arm hands over a typed plan.
ARMS = {"oracle": "typed", "oracle-text": "text", "llm": "text"}
TEXT_ARMS = frozenset(name for name, kind in ARMS.items() if kind == "text")
MODEL_ARMS = frozenset({"llm"})  # also given as llm:<model>: the same planner node, that model


def arm_family(arm: str) -> str:
    """The arm's planner: ``llm:qwen2.5`` is the llm arm (its node, service and topics)."""
    return arm.partition(":")[0]


def arm_model(arm: str) -> str:
    """The model an ``llm:<model>`` arm asks for; empty: the planner's configured model."""
    return arm.partition(":")[2]


def model_arm(model: str) -> str:
    """The arm that asks the llm planner for ``model`` ("": the configured one): ``llm:<model>``."""
    return f"llm:{model}" if model else "llm"


def is_text_arm(arm: str) -> bool:
    return arm_family(arm) in TEXT_ARMS


# The service each text arm asks (the chaos node intercepts both for F4).
TEXT_SERVICES = {"oracle-text": "planner/get_plan_text", "llm": "llm/get_plan_text"}
# Where each text planner publishes its own text and provenance (before any fault injection).
TEXT_REPLIES = {"oracle-text": "planner/replies", "llm": "llm/replies"}


def episode_id(arm: str, index: int) -> str:
    """The id of an arm's episode at a matrix index: paired episodes share the index."""
    return f"{arm}-{index:04d}"


def default_run_id(arms: list[str], config_hash: str) -> str:
    """Run id when none is given: re-running the same config resumes the same run."""
    names = "+".join(name_part(a, 64) for a in arms)[:100].rstrip("+.-")  # the hash tells runs apart
    return f"{names}-{config_hash[:12]}"


# Task variants (episode_runner.task_variant). Open loop: the plan is made from one observation,
# taken at rest after settling, and executed blind. Closed loop: the block is nudged during the
# approach and the executive re-observes before the grasp (README, "Closed-loop variant").
OPEN_LOOP, CLOSED_LOOP = "open_loop", "closed_loop"
TASK_VARIANTS = (OPEN_LOOP, CLOSED_LOOP)

# Why a fault cannot change an outcome by construction: the one place the report takes it from.
F4_TYPED_ARM = (
    "F4 corrupts the planner's raw text, and this arm hands over a typed plan with no text path: "
    "F4 never draws, the plan is the control plan"
)
F1_OPEN_LOOP = (
    "F1 delays observations, and in the open-loop task the only observation a decision uses is the "
    "one the plan is made from, taken after settling while nothing moves: its delayed copy shows the "
    "blocks where they are"
)


def inert_faults(cell_fault: str, arm: str, task_variant: str | None) -> dict[str, str]:
    """The cell's single faults that cannot change ``arm``'s outcome by construction, with why.

    Decided from the design, not from what an episode happened to draw: F4 acts on plan text only,
    so a typed arm is out of its reach; F1 acts on observations only, so it matters only where an
    observation is taken while something moves (closed loop). ``task_variant`` None (unknown) claims
    nothing about F1. An unknown arm family claims nothing about F4.
    """
    out: dict[str, str] = {}
    for fault in Cell(cell_fault, 0.0, 0).faults:
        if fault == "F4" and ARMS.get(arm_family(arm)) == "typed":
            out[fault] = F4_TYPED_ARM
        elif fault == "F1" and task_variant == OPEN_LOOP:
            out[fault] = F1_OPEN_LOOP
    return out


def cannot_act(cell_fault: str, arm: str, task_variant: str | None) -> bool:
    """True when no fault of the cell can change this arm's outcome (control cells: False, no fault)."""
    faults = Cell(cell_fault, 0.0, 0).faults
    return bool(faults) and len(inert_faults(cell_fault, arm, task_variant)) == len(faults)
