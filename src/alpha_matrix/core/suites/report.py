"""A suite run's summary and report (report.md, report.html, plots/), from its records alone.

The frame is common (title, plots, wall time); the metrics and tables are the suite's own
(``<suite>/report.py``), and so are its plots (``<suite>/plots.py``), both found through the
registry. The HTML page is the Markdown parsed back into the matrix report's blocks
(core/pages), so both read the same and there is one renderer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from alpha_matrix.core.pages.blocks import PLOTS, Heading, render_html, write_atomic
from alpha_matrix.core.pages.markdown import parse_markdown
from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.records import SuiteRecord, SuiteStore


def summarize_records(suite: str, records: Iterable[SuiteRecord]) -> dict[str, Any]:
    recs = list(records)
    done = [r for r in recs if r.ok]
    out = registry.summarize_results(suite, [r.result for r in done])
    out["not_run"] = len(recs) - len(done)
    out["wall_s"] = round(math.fsum(r.timing.wall_s for r in recs), 2)
    return out


def render_report(
    suite: str, run_id: str, records: Sequence[SuiteRecord], plots: Sequence[tuple[str, str]] = ()
) -> str:
    """The Markdown report; ``plots``: (file name in plots/, alt text) of the PNGs written for it."""
    s = summarize_records(suite, records)
    lines = [f"# Suite `{suite}` through the ROS graph: run `{run_id}`", ""]
    lines += registry.report_lines(suite, records, s)
    if plots:
        lines += ["", "### Plots", ""]
        for name, alt in plots:
            lines += [f"![{alt}]({PLOTS}/{name})", ""]
        lines.pop()
    lines += ["", f"Wall time of the scenarios (sum): {s['wall_s']:.1f} s.", ""]
    return "\n".join(lines)


def markdown_page(text: str) -> str:
    """The HTML page of a report written as Markdown (a suite report, a comparison)."""
    blocks = parse_markdown(text)
    title = next((b.text for b in blocks if isinstance(b, Heading) and b.level == 1), "Report")
    return render_html(blocks, title.replace("`", ""), inline=True)


def write_report(suite: str, run_dir: Path) -> Path:
    """Write report.md, report.html and plots/<suite>_*.png into run_dir; returns the Markdown path."""
    records = SuiteStore.read_only(run_dir)
    plot_dir = run_dir / PLOTS
    plot_dir.mkdir(parents=True, exist_ok=True)
    for old in plot_dir.glob(f"{suite}_*.png"):  # a plot the records no longer give would be wrong
        old.unlink()
    plots = registry.write_plots(suite, records, plot_dir)
    text = render_report(suite, run_dir.name, records, plots)
    path = run_dir / "report.md"
    write_atomic(path, text)
    write_atomic(run_dir / "report.html", markdown_page(text))
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


__all__ = ["markdown_page", "pct", "render_report", "share", "summarize_records", "write_report"]
