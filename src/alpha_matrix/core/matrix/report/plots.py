"""The report's PNG plots; each says whether it had anything to draw."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

from matplotlib.figure import Figure

from alpha_matrix.core.matrix.report.fmt import _cell_key, _cell_label, _faults, _i, _lags
from alpha_matrix.core.matrix.stats import CONTROL, cell_of, wilson
from alpha_matrix.core.pages.plots import save_png
from alpha_matrix.core.records import EpisodeRecord


def _plot_success(records: Sequence[EpisodeRecord], arms: Sequence[str], path: Path) -> bool:
    cells = sorted({_cell_key(r) for r in records})
    if not cells:
        return False
    fig = Figure(figsize=(max(6.0, 0.9 * len(cells) + 2), 4.2))
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(arms))
    for j, arm in enumerate(arms):
        xs, ys, lo_err, hi_err = [], [], [], []
        for x, (_, intensity, fault) in enumerate(cells):
            sel = [r for r in records if r.arm == arm and _cell_key(r)[1:] == (intensity, fault)]
            if not sel:
                continue
            k = sum(r.outcome.success for r in sel)
            lo, hi = wilson(k, len(sel))
            rate = k / len(sel)
            xs.append(x - 0.4 + width * (j + 0.5))
            ys.append(rate)
            lo_err.append(rate - lo)
            hi_err.append(hi - rate)
        ax.bar(xs, ys, width=width, yerr=[lo_err, hi_err], capsize=3, label=arm)
    ax.set_xticks(range(len(cells)), [_cell_label(f, i) for _, i, f in cells], rotation=30, ha="right")
    ax.set_ylim(0, 1.22)  # headroom so the legend never covers a bar
    ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel("success rate (95 % Wilson CI)")
    ax.set_title("Success per cell and arm")
    ax.legend(loc="upper right", ncol=max(1, len(arms)))
    save_png(fig, path)
    return True


def _plot_f3(records: Sequence[EpisodeRecord], arms: Sequence[str], path: Path) -> bool:
    sel = [r for r in records if cell_of(r).fault in (CONTROL, "F3")]
    if not any(cell_of(r).fault == "F3" for r in sel):
        return False
    fig = Figure(figsize=(6.0, 4.0))
    ax = fig.add_subplot()
    offsets = {arm: 0.012 * (j - (len(arms) - 1) / 2) for j, arm in enumerate(arms)}
    for arm in arms:
        mine = [r for r in sel if r.arm == arm]
        if not mine:
            continue
        xs = [cell_of(r).intensity + offsets[arm] for r in mine]
        ax.scatter(xs, [r.outcome.placement_error for r in mine], s=14, alpha=0.6, label=f"{arm} episodes")
        levels = sorted({cell_of(r).intensity for r in mine})
        medians = [
            statistics.median(r.outcome.placement_error for r in mine if cell_of(r).intensity == i) for i in levels
        ]
        ax.plot(levels, medians, marker="o", label=f"{arm} median")
    ax.set_xlabel("F3 intensity (0 = control)")
    ax.set_ylabel("placement error (m)")
    ax.set_title("F3 unreachable IK: placement error")
    ax.legend()
    save_png(fig, path)
    return True


def _f1_points(records: Sequence[EpisodeRecord]) -> list[tuple[float, float, float]]:
    points = []
    for r in records:
        for f in _faults(r, "F1"):
            req, got = _lags(f)
            if req is not None and got is not None:
                points.append((cell_of(r).intensity, req, got))
    return points


def _plot_f1(records: Sequence[EpisodeRecord], path: Path) -> bool:
    points = _f1_points(records)
    if not points:
        return False
    fig = Figure(figsize=(5.0, 4.5))
    ax = fig.add_subplot()
    for level in sorted({p[0] for p in points}):
        mine = [p for p in points if p[0] == level]
        ax.scatter([p[1] for p in mine], [p[2] for p in mine], s=16, alpha=0.7, label=f"I={_i(level)}")
    top = max(max(p[1] for p in points), max(p[2] for p in points)) * 1.05 or 1.0
    ax.plot([0, top], [0, top], color="grey", linestyle="--", linewidth=1, label="delivered = requested")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel("requested lag (s)")
    ax.set_ylabel("delivered lag (s)")
    ax.set_title("F1 sensor delay")
    ax.legend()
    save_png(fig, path)
    return True
