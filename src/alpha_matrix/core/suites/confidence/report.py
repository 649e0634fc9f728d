"""The confidence suite's metrics, its part of the report, and the runner's progress line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from alpha_matrix.core.suites.confidence.run import ConfidenceResult, confidence_from_result
from alpha_matrix.core.suites.records import SuiteRecord
from alpha_matrix.core.suites.report import pct


def summarize(results: Sequence[ConfidenceResult]) -> dict[str, float | int]:
    """Suite metrics (seed 003 §4): task completion, confidence-check rate, sub-step completion."""
    calls = sum(r.calls for r in results)
    rows = [row for r in results for row in r.rows]
    return {
        "tasks": len(results),
        "task_completion": sum(r.task_completed for r in results) / max(1, len(results)),
        "skill_calls": calls,
        "confidence_check_rate": sum(r.checked for r in results) / calls if calls else 1.0,
        "calls_below_threshold": sum(r.below_threshold for r in results),
        "rule_violations": sum(len(r.violations) for r in results),
        "substep_completion": sum(row.succeeded for row in rows) / max(1, len(rows)),
        "replanned_calls": sum(row.rank > 0 for row in rows),
        "queries": sum(r.queries for r in results),
        "robot_stopped_at_end": sum(r.robot_stopped for r in results),
    }


def summarize_results(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``summarize`` of recorded results."""
    return dict(summarize([confidence_from_result(r) for r in results]))


def report_lines(records: Sequence[SuiteRecord], s: dict[str, Any]) -> list[str]:
    lines = [
        "Skill-confidence gating (DESIGN §7 item 4): the `skill_executive` node queries the `skill_confidence`",
        "service before every skill call; the ledger judges every call from the service's own answers.",
        "",
        "| metric | value |",
        "|---|---|",
        f"| tasks | {s['tasks']} |",
        f"| task completion | {pct(s['task_completion'])} |",
        f"| confidence-check rate | {pct(s['confidence_check_rate'])} ({s['skill_calls']} calls) |",
        f"| sub-step completion | {pct(s['substep_completion'])} |",
        f"| calls below threshold | {s['calls_below_threshold']} |",
        f"| rule violations | {s['rule_violations']} |",
        f"| re-planned calls (not first choice) | {s['replanned_calls']} |",
        f"| robot stopped at the end | {s['robot_stopped_at_end']} / {s['tasks']} |",
        f"| scenarios not run | {s['not_run']} |",
        "",
        "| task | completed | calls | checked | steps | goals |",
        "|---|---|---|---|---|---|",
    ]
    for r in records:
        if not r.ok:
            lines.append(f"| {r.scenario} | not run: {r.message} | | | | |")
            continue
        c = confidence_from_result(r.result)
        goals = ", ".join(f"{o}: {st}" for o, st in c.goal_status.items())
        lines.append(
            f"| {r.scenario} | {'yes' if c.task_completed else 'no'} | {c.calls} | {c.checked} | {c.steps} | {goals} |"
        )
    return lines


def progress_line(d: dict[str, Any]) -> str:
    goals = " ".join(f"{o}:{s}" for o, s in d["goal_status"].items())
    return f"calls={d['calls']} checked={d['checked']} below={d['below_threshold']} steps={d['steps']} {goals}"
