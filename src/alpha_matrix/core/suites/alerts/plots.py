"""The alerts report's plots: the outcome rates, and each scenario's alerts, stops and commands in time.

The rates say how often the response was the configured one (per alert class), how many
commands were refused while the robot had to stay stopped and admitted while it was free, how
many resumes were followed by motion. The timeline shows the reaction itself: when each alert
came, when the stop was decided and lifted, and where a command was let through or refused
(a wrong admission or refusal in red).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from alpha_matrix.core.pages.plots import rates_and_figure, save_rows
from alpha_matrix.core.suites.alerts.agent_score import alerts_agent_summary_json
from alpha_matrix.core.suites.alerts.guard import AlertResult, alert_from_result
from alpha_matrix.core.suites.records import SuiteRecord


def _rates(done: Sequence[dict[str, Any]]) -> tuple[list[str], list[tuple[int, int]]]:
    results = [alert_from_result(d) for d in done]
    alerts = [a for r in results for a in r.alerts]
    commands = [c for r in results for c in r.commands]
    resumes = [ok for r in results for _, ok in r.resumes]
    labels: list[str] = []
    counts: list[tuple[int, int]] = []
    for cls in sorted({a.cls for a in alerts}):
        mine = [a for a in alerts if a.cls == cls]
        labels.append(f"{cls}: response as configured")
        counts.append((sum(a.correct for a in mine), len(mine)))
    must = [c for c in commands if c.should_refuse]
    free = [c for c in commands if not c.should_refuse]
    labels += ["commands refused while stopped", "commands admitted while free", "resumes followed by motion"]
    counts += [
        (sum(not c.accepted for c in must), len(must)),
        (sum(c.accepted for c in free), len(free)),
        (sum(resumes), len(resumes)),
    ]
    labels.append("tasks succeeded (pick and place)")
    counts.append((sum(r.outcome.success for r in results), len(results)))
    if any(d.get("agent") for d in done):
        a = alerts_agent_summary_json(done)
        labels += ["agent: decisions right", "agent: unsafe decisions not harms"]
        counts += [(a["correct"], a["scored"]), (a["unsafe"] - a["harms"], a["unsafe"])]
    return labels, counts


def _stop_windows(d: dict[str, Any]) -> list[tuple[int, int]]:
    """[engage, lift) decision steps of the guard's stop requests; an open one runs to the end."""
    out: list[tuple[int, int]] = []
    start: int | None = None
    for s in sorted(d.get("stop_requests", []), key=lambda s: int(s["decision_step"])):
        if s["engage"] and start is None:
            start = int(s["decision_step"])
        elif not s["engage"] and start is not None:
            out.append((start, int(s["decision_step"])))
            start = None
    if start is not None:
        out.append((start, int(d["steps"])))
    return out


def _timeline(runs: Sequence[tuple[str, dict[str, Any], AlertResult]], path: Path) -> bool:
    if not runs:
        return False
    fig = Figure(figsize=(8.0, 1.6 + 0.45 * len(runs)))
    ax = fig.add_subplot()
    seen: set[str] = set()

    def once(label: str) -> str:  # one legend entry per kind of mark
        if label in seen:
            return "_nolegend_"
        seen.add(label)
        return label

    for y, (_, d, r) in enumerate(runs):
        for s0, s1 in _stop_windows(d):
            ax.barh(y, s1 - s0, left=s0, height=0.5, color="tab:orange", alpha=0.35, label=once("robot held stopped"))
        for a in r.alerts:
            stop = a.expected == "stop"
            ax.scatter(
                a.at_step,
                y,
                marker="v" if stop else "o",
                s=40,
                color="tab:red" if stop else "tab:olive",
                zorder=3,
                label=once("alert: stop configured" if stop else "alert: warn configured"),
            )
        for c in r.commands:
            wrong = c.accepted == c.should_refuse
            kind = (
                "wrongly " + ("admitted" if c.accepted else "refused")
                if wrong
                else "admitted"
                if c.accepted
                else "refused"
            )
            ax.scatter(
                c.step,
                y + 0.3,
                marker="|" if c.accepted else "x",
                s=60 if wrong else 30,
                color="red" if wrong else "tab:green" if c.accepted else "black",
                zorder=3,
                label=once(f"command {kind}"),
            )
    ax.set_xlim(left=0)
    title = "Alerts: reaction per scenario (alert, stop decided and lifted, commands)"
    names = [name for name, _, _ in runs]
    return save_rows(fig, ax, names, path, (len(runs) - 0.4, -0.7), "physics step (240 per second)", title, 7)


def write_plots(records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
    done = [(r.scenario, r.result) for r in records if r.ok]
    if not done:
        return []
    return rates_and_figure(
        "alerts", "Alerts outcome rates", _rates([d for _, d in done]), plot_dir,
        lambda path: _timeline([(name, d, alert_from_result(d)) for name, d in done], path),
        "alerts_timeline.png", "Per scenario: alerts, stop windows and commands admitted or refused",
    )  # fmt: skip
