"""The report's PNG plots; each says whether it had anything to draw."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from matplotlib.figure import Figure

from alpha_matrix.core.matrix.faults import INTENSITIES
from alpha_matrix.core.matrix.report.construction import MARK, Variant, before_motion, cell_marked
from alpha_matrix.core.matrix.report.fmt import _cell_key, _cell_label, _faults, _i, _lags
from alpha_matrix.core.matrix.stats import CONTROL, cell_of, wilson
from alpha_matrix.core.pages.plots import save_png
from alpha_matrix.core.records import EpisodeRecord

_LABEL_BOX = {"boxstyle": "round,pad=0.15", "facecolor": "white", "edgecolor": "none", "alpha": 0.8}


@dataclass(frozen=True)
class Bar:
    """One bar of the success plot: where it stands, its count and the label printed on it."""

    arm: str
    x: float
    k: int
    n: int
    label: str  # "k/n", with the by-construction mark when the cell's fault cannot act on the arm

    @property
    def rate(self) -> float:
        return self.k / self.n


def success_bars(records: Sequence[EpisodeRecord], arms: Sequence[str], variant: Variant) -> list[Bar]:
    """Every bar of the success plot, in drawing order; a 0 % bar still carries its k/n label."""
    cells = sorted({_cell_key(r) for r in records})
    width = 0.8 / max(1, len(arms))
    bars = []
    for j, arm in enumerate(arms):
        for x, (_, intensity, fault) in enumerate(cells):
            sel = [r for r in records if r.arm == arm and _cell_key(r)[1:] == (intensity, fault)]
            if not sel:
                continue
            k = sum(r.outcome.success for r in sel)
            mark = f" {MARK}" if cell_marked(fault, arm, variant) else ""
            bars.append(Bar(arm, x - 0.4 + width * (j + 0.5), k, len(sel), f"{k}/{len(sel)}{mark}"))
    return bars


def _plot_success(records: Sequence[EpisodeRecord], arms: Sequence[str], path: Path, variant: Variant) -> bool:
    cells = sorted({_cell_key(r) for r in records})
    if not cells:
        return False
    bars = success_bars(records, arms, variant)
    fig = Figure(figsize=(max(6.0, 0.9 * len(cells) + 2), 4.2))
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(arms))
    for arm in arms:
        mine = [b for b in bars if b.arm == arm]
        intervals = [wilson(b.k, b.n) for b in mine]
        # max(0, ...): at k = n (or 0) the interval's float end can miss the rate by an ulp (300/300)
        lo_err = [max(0.0, b.rate - lo) for b, (lo, _) in zip(mine, intervals, strict=True)]
        hi_err = [max(0.0, hi - b.rate) for b, (_, hi) in zip(mine, intervals, strict=True)]
        ax.bar([b.x for b in mine], [b.rate for b in mine], width=width, yerr=[lo_err, hi_err], capsize=3, label=arm)
        for b in mine:  # at the base, so a 0 % bar shows its count instead of looking like missing data
            ax.text(b.x, 0.02, b.label, rotation=90, ha="center", va="bottom", fontsize=7, bbox=_LABEL_BOX)
    ax.set_xticks(range(len(cells)), [_cell_label(f, i) for _, i, f in cells], rotation=30, ha="right")
    ax.set_ylim(0, 1.22)  # headroom so the legend never covers a bar
    ax.set_yticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel("success rate (95 % Wilson CI)")
    ax.set_title(f"Success per cell and arm (k/n on each bar; {MARK}: fault cannot act)")
    ax.legend(loc="upper right", ncol=max(1, len(arms)))
    save_png(fig, path)
    return True


def _plot_f3(records: Sequence[EpisodeRecord], arms: Sequence[str], path: Path) -> bool:
    """Placement error of executed plans; plans refused before motion are counted, not plotted as errors."""
    sel = [r for r in records if cell_of(r).fault in (CONTROL, "F3")]
    if not any(cell_of(r).fault == "F3" for r in sel):
        return False
    fig = Figure(figsize=(6.0, 4.0))
    ax = fig.add_subplot()
    offsets = {arm: 0.012 * (j - (len(arms) - 1) / 2) for j, arm in enumerate(arms)}
    refused_notes = []
    for arm in arms:
        mine = [r for r in sel if r.arm == arm]
        moved = [r for r in mine if not before_motion(r)]
        levels = sorted({cell_of(r).intensity for r in mine})
        for i in levels:
            at = [r for r in mine if cell_of(r).intensity == i]
            if refused := sum(before_motion(r) for r in at):
                refused_notes.append(f"{arm} I={_i(i)}: {refused}/{len(at)}")
        if not moved:
            continue
        xs = [cell_of(r).intensity + offsets[arm] for r in moved]
        ax.scatter(xs, [r.outcome.placement_error for r in moved], s=14, alpha=0.6, label=f"{arm} executed")
        moved_levels = sorted({cell_of(r).intensity for r in moved})
        medians = [
            statistics.median(r.outcome.placement_error for r in moved if cell_of(r).intensity == i)
            for i in moved_levels
        ]
        ax.plot(moved_levels, medians, marker="o", label=f"{arm} median")
    if refused_notes:
        ax.text(
            0.01,
            0.99,
            "refused before motion (not plotted):\n" + "\n".join(refused_notes),
            transform=ax.transAxes,
            va="top",
            fontsize=6,
        )
    ax.set_xlim(-0.05, 1.05)  # every intensity on the axis, so a level with nothing executed shows as empty
    ax.set_xticks([0.0, *INTENSITIES])
    ax.set_xlabel("F3 intensity (0 = control)")
    ax.set_ylabel("placement error of executed plans (m)")
    ax.set_title("F3 unreachable IK: placement error")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="best", fontsize=7)
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
