"""Number formatting and record look-ups shared by the report's sections and plots."""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from alpha_matrix.core.matrix.stats import CONTROL, cell_of, fault_rank, wilson
from alpha_matrix.core.pages.blocks import NO_DATA
from alpha_matrix.core.records import EpisodeRecord, FaultRecord

# FaultRecord keys, the first present wins: the brief's names, then those core/matrix/faults.py records.
F1_REQUESTED = ("lag_s", "tau")
F1_DELIVERED = ("lag_s", "lag")
F3_DELIVERED = ("offset",)
TIME_EPS = 1e-9  # s: sim times are float sums; a shortfall below this is not saturation


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _ci(k: int, n: int) -> str:
    if n == 0:
        return NO_DATA
    lo, hi = wilson(k, n)
    return f"[{_pct(lo)}, {_pct(hi)}]"


def _rate(k: int, n: int) -> str:
    return f"{k}/{n} = {_pct(k / n)}" if n else NO_DATA


def _p(p: float) -> str:
    return f"{p:.3f}" if p >= 1e-3 else f"{p:.2e}"


def _i(x: float) -> str:
    return f"{x:.2f}"


def _cell_label(fault: str, intensity: float) -> str:
    return "control" if fault == CONTROL else f"{fault} I={_i(intensity)}"


def _spread(values: Sequence[float], digits: int = 3) -> str:
    if not values:
        return NO_DATA
    return f"{statistics.median(values):.{digits}f} [{min(values):.{digits}f}–{max(values):.{digits}f}]"


def _num(value: float | str | None) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _first(values: dict[str, float | str], keys: Sequence[str]) -> float | None:
    for key in keys:
        if key in values:
            return _num(values[key])
    return None


def _lags(f: FaultRecord) -> tuple[float | None, float | None]:
    return _first(f.requested, F1_REQUESTED), _first(f.delivered, F1_DELIVERED)


def _corrupted(f: FaultRecord) -> bool:
    """An F4 draw that changed the text (core/matrix/faults.py records every draw, kind "none" if untouched)."""
    flag = _num(f.delivered.get("corrupted"))
    if flag is not None:
        return flag >= 0.5
    return f.delivered.get("kind") not in (None, "", "none")


def _faults(rec: EpisodeRecord, fault: str) -> list[FaultRecord]:
    return [f for f in rec.faults if f.fault == fault]


def _cell_key(rec: EpisodeRecord) -> tuple[tuple[int, str], float, str]:
    cell = cell_of(rec)
    return fault_rank(cell.fault), cell.intensity, cell.fault
