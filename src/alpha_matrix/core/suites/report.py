"""A suite run's summary and Markdown report, from its records alone.

The frame is common (title, scenarios not run, wall time); the metrics and tables are the
suite's own (``<suite>/report.py``, found through the registry).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.records import SuiteRecord, SuiteStore


def summarize_records(suite: str, records: Iterable[SuiteRecord]) -> dict[str, Any]:
    recs = list(records)
    done = [r for r in recs if r.ok]
    out = registry.summarize_results(suite, [r.result for r in done])
    out["not_run"] = len(recs) - len(done)
    out["wall_s"] = round(sum(r.timing.wall_s for r in recs), 2)
    return out


def render_report(suite: str, run_id: str, records: Sequence[SuiteRecord]) -> str:
    s = summarize_records(suite, records)
    lines = [f"# Suite `{suite}` through the ROS graph: run `{run_id}`", ""]
    lines += registry.report_lines(suite, records, s)
    lines += ["", f"Wall time of the scenarios (sum): {s['wall_s']:.1f} s.", ""]
    return "\n".join(lines)


def write_report(suite: str, run_dir: Path) -> Path:
    records = SuiteStore.read_only(run_dir)
    path = run_dir / "report.md"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(render_report(suite, run_dir.name, records), encoding="utf-8")
    os.replace(tmp, path)
    return path


def pct(x: float) -> str:
    """A rate as the confidence and alerts reports print it."""
    return f"{100.0 * x:.1f} %"


def share(k: int, n: int) -> str:
    """``k/n = x % (95 % Wilson interval)``; n/a when n is 0."""
    from alpha_matrix.core.matrix.stats import wilson

    if not n:
        return "n/a"
    lo, hi = wilson(k, n)
    return f"{k}/{n} = {100.0 * k / n:.1f} % ({100.0 * lo:.1f} – {100.0 * hi:.1f} %)"


__all__ = ["pct", "render_report", "share", "summarize_records", "write_report"]
