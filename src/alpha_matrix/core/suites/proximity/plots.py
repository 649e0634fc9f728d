"""The proximity report's plots: how close the person came against the limit, and the outcome rates.

What a safety engineer checks first: did the robot ever move with the person inside the
threshold (closest approach while moving, below the limit line), at what true distance each stop
was decided, and how many breaches were stopped in time, frames judged right and stop requests
justified, each with its k/n and Wilson interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from alpha_matrix.core.pages.plots import rates_png, save_png
from alpha_matrix.core.suites.proximity.agent_score import agent_summary_json
from alpha_matrix.core.suites.records import SuiteRecord

# columns of a recorded frame row (run.py compose_result)
STEP, GT, DETECTED, DISTANCE, CONFIDENCE, BLOBS, ACTION, STOPPED = range(8)


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


def _distances(done: Sequence[dict[str, Any]], path: Path) -> bool:
    """True distance at each stop decision and closest approach while moving, against the threshold."""
    stops: list[tuple[float, float]] = []
    closest: list[tuple[float, float]] = []
    for r in done:
        t = float(r["threshold"])
        stops += [(t, row[GT]) for row in r["rows"] if row[ACTION] == "stop" and row[GT] is not None]
        moving = [row[GT] for row in r["rows"] if not row[STOPPED] and row[GT] is not None]
        if moving:
            closest.append((t, min(moving)))
    if not stops and not closest:
        return False
    thresholds = sorted({float(r["threshold"]) for r in done})
    fig = Figure(figsize=(6.5, 4.5))
    ax = fig.add_subplot()
    span = max(0.2, thresholds[-1] - thresholds[0])
    dx = 0.02 * span  # the two series side by side at each threshold
    lo, hi = thresholds[0] - 0.1 * span, thresholds[-1] + 0.1 * span
    ax.plot([lo, hi], [lo, hi], color="tab:red", linestyle="--", linewidth=1, label="the limit (distance = threshold)")
    if stops:
        ax.scatter(
            [t - dx for t, _ in stops],
            [d for _, d in stops],
            s=18,
            marker="o",
            alpha=0.7,
            label=f"true distance at a stop decision ({len(stops)})",
        )
    if closest:
        ax.scatter(
            [t + dx for t, _ in closest],
            [d for _, d in closest],
            s=22,
            marker="v",
            alpha=0.8,
            label=f"closest approach while moving, per run ({len(closest)})",
        )
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, 1.1 * max([hi] + [d for _, d in stops + closest]))  # no marker cut at the top
    ax.set_xticks(thresholds, [f"{t:g}" for t in thresholds])
    ax.set_xlabel("stop threshold of the run (m)")
    ax.set_ylabel("true distance of the person (m)")
    ax.set_title("Proximity: distances against the limit (below the line: inside it)")
    ax.legend(fontsize=8)
    save_png(fig, path)
    return True


def write_plots(records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
    done = [r.result for r in records if r.ok]
    out: list[tuple[str, str]] = []
    out += rates_png("proximity", "Proximity outcome rates per threshold", _rates(done), plot_dir)
    if _distances(done, plot_dir / "proximity_distances.png"):
        out.append(
            ("proximity_distances.png", "True distance at each stop and closest approach while moving vs the threshold")
        )
    return out
