"""The proximity report's plots: how close the person came against the limit, and the outcome rates.

What a safety engineer checks first: did the robot ever move with the person inside the
threshold (closest approach while moving, below the limit line), at what true distance each stop
was decided, and how many breaches were stopped in time, frames judged right and stop requests
justified, each with its k/n and Wilson interval. Below the limit is not by itself a miss: a
breach has a grace (one frame + L) before the stop must have landed, and the plot shades how far
inside the limit the fastest person of the run gets in it, and marks the runs that missed.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from alpha_matrix.core.pages.plots import rates_png, save_png
from alpha_matrix.core.suites.proximity.agent_score import agent_summary_json
from alpha_matrix.core.suites.proximity.report import GRACE_S
from alpha_matrix.core.suites.records import SuiteRecord

# columns of a recorded frame row (run.py compose_result)
STEP, GT, DETECTED, DISTANCE, CONFIDENCE, BLOBS, ACTION, STOPPED = range(8)
TIMESTEP = 1.0 / 240.0


def _rates(done: Sequence[dict[str, Any]]) -> tuple[list[str], list[tuple[int, int]]]:
    labels: list[str] = []
    counts: list[tuple[int, int]] = []
    for t in sorted({float(r["threshold"]) for r in done}):
        ms = [r["metrics"] for r in done if float(r["threshold"]) == t]
        breaches = sum(m["breaches"] for m in ms)
        requests = sum(m["stop_requests"] for m in ms)
        labels += [f"{t:g} m: breaches stopped in time", f"{t:g} m: frames judged right", f"{t:g} m: stops justified"]
        counts += [
            (breaches - sum(m["missed_breaches"] for m in ms), breaches),
            (sum(m["frames_correct"] for m in ms), sum(m["frames_scored"] for m in ms)),
            (requests - sum(m["false_stops"] for m in ms), requests),
        ]
    if any(r.get("agent") for r in done):
        a = agent_summary_json(done)
        labels += ["agent: decisions right", "agent: unsafe decisions not harms"]
        counts += [(a["correct"], a["scored"]), (a["unsafe"] - a["harms"], a["unsafe"])]
    return labels, counts


def _walking_speed(rows: Sequence[Sequence[Any]]) -> float:
    """The fastest the person's true distance changed between two frames of a run, m/s."""
    pts = [(row[STEP], row[GT]) for row in rows if row[GT] is not None]
    speeds = [abs(d1 - d0) / ((s1 - s0) * TIMESTEP) for (s0, d0), (s1, d1) in pairwise(pts) if s1 > s0]
    return max(speeds, default=0.0)


def distances_figure(done: Sequence[dict[str, Any]]) -> Figure | None:
    """True distance at each stop decision and closest approach while moving, against the threshold,
    with the grace band: how far inside the limit a person gets before a stop must have landed."""
    stops: list[tuple[float, float]] = []
    closest: list[tuple[float, float, bool]] = []  # threshold, distance, the run missed a breach
    band: dict[float, float] = {}  # threshold -> depth of the grace band (fastest person of its runs)
    for r in done:
        t = float(r["threshold"])
        stops += [(t, row[GT]) for row in r["rows"] if row[ACTION] == "stop" and row[GT] is not None]
        moving = [row[GT] for row in r["rows"] if not row[STOPPED] and row[GT] is not None]
        if moving:
            closest.append((t, min(moving), bool(r["metrics"]["missed_breaches"])))
        band[t] = min(t, max(band.get(t, 0.0), _walking_speed(r["rows"]) * GRACE_S))  # never below 0 m
    if not stops and not closest:
        return None
    missed = sum(int(r["metrics"]["missed_breaches"]) for r in done)
    thresholds = sorted(band)
    fig = Figure(figsize=(6.5, 5.0))
    ax = fig.add_subplot()
    span = max(0.2, thresholds[-1] - thresholds[0])
    dx = 0.02 * span  # the two series side by side at each threshold
    lo, hi = thresholds[0] - 0.1 * span, thresholds[-1] + 0.1 * span
    ax.plot([lo, hi], [lo, hi], color="tab:red", linestyle="--", linewidth=1, label="the limit (distance = threshold)")
    for i, t in enumerate(thresholds):
        ax.bar(t, band[t], bottom=t - band[t], width=6 * dx, color="tab:orange", alpha=0.25, edgecolor="none",
               label=f"grace band: reached within the {GRACE_S:.2f} s grace (not a miss)" if i == 0 else None)  # fmt: skip
    if stops:
        ax.scatter(
            [t - dx for t, _ in stops],
            [d for _, d in stops],
            s=18,
            marker="o",
            alpha=0.7,
            label=f"true distance at a stop decision ({len(stops)})",
        )
    for was_missed, colour, marker, what in ((False, "tab:green", "v", "no missed breach"),
                                             (True, "black", "X", "a missed breach")):  # fmt: skip
        pts = [(t, d) for t, d, m in closest if m == was_missed]
        if pts:
            ax.scatter([t + dx for t, _ in pts], [d for _, d in pts], s=26, marker=marker, color=colour, alpha=0.8,
                       label=f"closest approach while moving, runs with {what} ({len(pts)})")  # fmt: skip
    ax.text(
        0.01, 0.99,
        f"missed breaches: {missed}. A stop may land up to {GRACE_S:.2f} s after the person crosses\n"
        f"the limit (one frame + L); moving inside the limit within that grace is not a miss.",
        transform=ax.transAxes, va="top", fontsize=7,
    )  # fmt: skip
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, 1.25 * max([hi] + [d for _, d in stops] + [d for _, d, _ in closest]))  # room for the note
    ax.set_xticks(thresholds, [f"{t:g}" for t in thresholds])
    ax.set_xlabel("stop threshold of the run (m)")
    ax.set_ylabel("true distance of the person (m)")
    ax.set_title("Proximity: distances against the limit (below the line: inside it)")
    ax.legend(fontsize=7, loc="lower right")
    return fig


def _distances(done: Sequence[dict[str, Any]], path: Path) -> bool:
    fig = distances_figure(done)
    if fig is None:
        return False
    save_png(fig, path)
    return True


def write_plots(records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
    done = [r.result for r in records if r.ok]
    out: list[tuple[str, str]] = []
    out += rates_png("proximity", "Proximity outcome rates per threshold", _rates(done), plot_dir)
    if _distances(done, plot_dir / "proximity_distances.png"):
        out.append(
            (
                "proximity_distances.png",
                "True distance at each stop and closest approach while moving vs the threshold, with the grace band",
            )
        )
    return out
