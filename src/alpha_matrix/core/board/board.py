"""The board: rows (agents and models, matrix arms), columns (the suites, the matrix), one cell each.

A column's runs are comparable when they ran the same setup (the recorded config without the
agent's own settings: core/board/runs.py ``setup_of``) on the same items (scenario or episode,
seed). The column's baseline is the setup and item set of its reference run (else of most of its
runs); a run on another is kept apart with the reason, named. Within the baseline, each row's run
is paired with the reference's through compare.py (``arm_of``, ``compare``: McNemar on the paired
decisions or items), where both are runs of an agent under test.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alpha_matrix.core.board.runs import MATRIX, SCRIPTED, LoadedRun, RowRun
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.registry import SUITE_NAMES

REFERENCE = "reference"
WALK_M_S = 1.6  # a person walking briskly: the distance covered while the agent decides


@dataclass(frozen=True)
class Paired:
    """McNemar of a row's run against the reference's on their paired decisions (or items)."""

    pairs: int
    only_reference: int  # b: only the reference right
    only_row: int  # c: only this row right
    p_exact: float


@dataclass(frozen=True)
class Cell:
    run: RowRun
    paired: Paired | None  # None: the reference itself, no reference run, or nothing pairs
    pairing_note: str = ""  # why there is no pairing, when there could have been


@dataclass(frozen=True)
class Apart:
    run_id: str
    path: Path
    column: str
    reason: str


@dataclass(frozen=True)
class Board:
    columns: tuple[str, ...]
    rows: tuple[str, ...]
    cells: dict[tuple[str, str], Cell]  # (row, column) -> cell
    apart: tuple[Apart, ...]


def row_key(run: RowRun) -> str:
    """A row: the agent (a model's agent by its backend and model), and its guard setting when off."""
    prov = run.provenance
    agent = run.agent
    if run.column == MATRIX:
        agent = f"arm {run.agent}" + (f" ({prov['backend']}:{prov['model']})" if prov.get("model") else "")
    return agent + (" · guards off" if run.guards is False else "")


def _differs(a: LoadedRun, b: LoadedRun) -> str:
    """Why run ``b`` cannot be read beside ``a``: the settings or items that differ, named."""
    scripted = [r.agent == SCRIPTED for r in (*a.rows, *b.rows)]
    if a.setup_hash != b.setup_hash and any(scripted) and not all(scripted):
        who = b.run_id if any(r.agent == SCRIPTED for r in b.rows) else a.run_id
        return f"no agent under test in {who} (the scripted executive decided): another graph than {a.run_id}"
    if a.setup_hash != b.setup_hash:
        keys = sorted(k for k in set(a.setup) | set(b.setup) if a.setup.get(k) != b.setup.get(k))
        shown = ", ".join(keys[:4]) + (f" and {len(keys) - 4} more" if len(keys) > 4 else "")
        return f"another config than {a.run_id} ({shown or 'no config.json recorded'})"
    only = sorted(a.items ^ b.items)
    return f"other items than {a.run_id}: {len(only)} (scenario, seed) in one only, e.g. {only[0]}"


def _baseline(runs: Sequence[LoadedRun]) -> LoadedRun:
    """The reference's run (of several, the one whose setup and items most runs share), else
    the run of the setup most runs share; ties go to the first by run id."""
    share = Counter((r.setup_hash, r.items) for r in runs)
    refs = [r for r in runs if any(row.agent == REFERENCE and row.guards is not False for row in r.rows)]
    return max(refs or runs, key=lambda r: share[(r.setup_hash, r.items)])


def _paired(ref: LoadedRun, run: LoadedRun) -> tuple[Paired | None, str]:
    from alpha_matrix.core.suites.compare import arm_of, compare

    try:
        c = compare(arm_of(ref.run_id, ref.records), arm_of(run.run_id, run.records), ref.records, run.records)
    except (ConfigError, LookupError, TypeError, ValueError) as err:
        return None, str(err) or type(err).__name__
    return Paired(c.pairs, c.test.b, c.test.c, c.test.p_exact), ""


def build_board(runs: Sequence[LoadedRun]) -> Board:
    if not runs:
        raise ConfigError("no runs to put on the board")
    order = [*SUITE_NAMES, MATRIX]
    columns = tuple(c for c in order if any(r.column == c for r in runs))
    cells: dict[tuple[str, str], Cell] = {}
    apart: list[Apart] = []
    for column in columns:
        mine = sorted((r for r in runs if r.column == column), key=lambda r: r.run_id)
        base = _baseline(mine)
        ref = base if column != MATRIX and any(row.agent == REFERENCE for row in base.rows) else None
        for run in mine:
            if (run.setup_hash, run.items) != (base.setup_hash, base.items):
                apart.append(Apart(run.run_id, run.path, column, _differs(base, run)))
                continue
            for row in run.rows:
                key = (row_key(row), column)
                if key in cells:
                    shown = cells[key].run.run_id
                    apart.append(Apart(run.run_id, run.path, column, f"{key[0]} on {column} is shown from {shown}"))
                    continue
                paired, note = (None, "") if ref is None or run is ref else _paired(ref, run)
                cells[key] = Cell(row, paired, note)
    rows = tuple(dict.fromkeys(k[0] for k in sorted(cells, key=lambda k: _row_order(k[0]))))
    return Board(columns, rows, cells, tuple(apart))


def _row_order(row: str) -> tuple[int, str]:
    """The reference first, the always baselines next, the models, the matrix arms last."""
    if row.startswith(REFERENCE):
        return (0, row)
    if row.startswith("always"):
        return (1, row)
    return (3 if row.startswith("arm ") else 2, row)


def walked_m(latency_s: float | None) -> float | None:
    return None if latency_s is None else WALK_M_S * latency_s


def board_json(board: Board, out_dir: Path) -> dict[str, Any]:
    """The board as one JSON document (``board --json``)."""
    from alpha_matrix.core.matrix.stats import wilson

    def cell(c: Cell) -> dict[str, Any]:
        r = c.run
        lo, hi = wilson(r.k, r.n)
        return {
            "run_id": r.run_id, "path": str(r.path), "label": r.label, "k": r.k, "n": r.n,
            "rate": r.k / r.n if r.n else None, "wilson95": [lo, hi] if r.n else None, "safety": r.safety,
            "harms": r.harms, "guard_catches": r.guard_catches, "guards": r.guards,
            "latency_median_s": r.latency_s, "walked_m_at_1_6_m_s": walked_m(r.latency_s),
            "mcnemar_vs_reference": None if c.paired is None else {
                "pairs": c.paired.pairs, "only_reference_right": c.paired.only_reference,
                "only_this_right": c.paired.only_row, "p_exact": c.paired.p_exact,
            },
            "pairing_note": c.pairing_note, "provenance": r.provenance,
        }  # fmt: skip

    return {
        "out_dir": str(out_dir),
        "columns": list(board.columns),
        "rows": [
            {
                "row": row,
                "cells": {col: cell(board.cells[(row, col)]) for col in board.columns if (row, col) in board.cells},
            }
            for row in board.rows
        ],
        "apart": [
            {"run_id": a.run_id, "path": str(a.path), "column": a.column, "reason": a.reason} for a in board.apart
        ],
    }
