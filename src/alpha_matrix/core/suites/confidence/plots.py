"""The confidence report's plots: the outcome rates, and the confidence behind every skill call.

The rates say how many tasks completed by the rules, how many calls were checked first and ran
at or above the threshold, how many sub-steps succeeded and how often the robot was stopped at
the end. The second plot shows, per task, the confidence the service answered for each call and
what became of the call (succeeded, failed, refused by the ledger): a refused or failed call at
high confidence, or a call run at low confidence, is what to look into.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from alpha_matrix.core.pages.plots import rates_and_figure, save_rows
from alpha_matrix.core.suites.confidence.agent_score import confidence_agent_summary_json
from alpha_matrix.core.suites.confidence.run import ConfidenceResult, confidence_from_result
from alpha_matrix.core.suites.records import SuiteRecord


def _rates(done: Sequence[dict[str, Any]]) -> tuple[list[str], list[tuple[int, int]]]:
    results = [confidence_from_result(d) for d in done]
    calls = sum(r.calls for r in results)
    rows = [row for r in results for row in r.rows]
    labels = [
        "tasks completed by the rules",
        "skill calls checked first",
        "skill calls at or above the threshold",
        "sub-steps succeeded",
        "robot stopped at the end",
    ]
    counts = [
        (sum(r.task_completed for r in results), len(results)),
        (sum(r.checked for r in results), calls),
        (calls - sum(r.below_threshold for r in results), calls),
        (sum(row.succeeded for row in rows), len(rows)),
        (sum(r.robot_stopped for r in results), len(results)),
    ]
    if any(d.get("agent") for d in done):
        a = confidence_agent_summary_json(done)
        labels.append("agent: tasks right by the rules")
        counts.append((a["tasks_right"], a["tasks"]))
    return labels, counts


def _calls(runs: Sequence[tuple[str, ConfidenceResult]], path: Path) -> bool:
    if not any(r.rows for _, r in runs):
        return False
    fig = Figure(figsize=(7.5, 1.6 + 0.45 * len(runs)))
    ax = fig.add_subplot()
    kinds = (
        ("succeeded", "o", "tab:green"),
        ("failed", "x", "black"),
        ("refused by the ledger", "s", "tab:red"),
    )
    for label, marker, color in kinds:
        xs, ys = [], []
        for y, (_, r) in enumerate(runs):
            for row in r.rows:
                kind = "refused by the ledger" if row.violation else "succeeded" if row.succeeded else "failed"
                if kind == label:
                    xs.append(row.confidence)
                    ys.append(y + 0.25 * (row.index % 3 - 1) / 2)  # calls of one task apart
        if xs:
            ax.scatter(xs, ys, marker=marker, color=color, s=28, alpha=0.8, label=f"{label} ({len(xs)})")
    ax.set_xlim(0, 1.0)
    title = "Confidence: every skill call and what became of it"
    names = [name for name, _ in runs]
    return save_rows(
        fig, ax, names, path, (len(runs) - 0.5, -0.5), "confidence the service answered for the call", title
    )


def write_plots(records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
    done = [(r.scenario, r.result) for r in records if r.ok]
    if not done:
        return []
    return rates_and_figure(
        "confidence", "Confidence suite outcome rates", _rates([d for _, d in done]), plot_dir,
        lambda path: _calls([(name, confidence_from_result(d)) for name, d in done], path),
        "confidence_calls.png", "Confidence of every skill call per task, and its outcome",
    )  # fmt: skip
