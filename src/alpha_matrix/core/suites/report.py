"""A suite run's summary and report (report.md, report.html, plots/), from its records alone.

The frame is common: the title, the opening lines (what was tested, the headline rate with its
k/n and interval, the safety events, what to look at next: core/pages/reading.py), the plots,
the wall time and the glossary at the end. The headline -- what "right" is and what a harm is --,
the metrics, tables, terms and plots are the suite's own (``<suite>/report.py``,
``<suite>/plots.py``), found through the registry. ``headline`` gives the same headline as one
line, for the ``suite`` command to end with. The HTML page is the Markdown parsed back into the
matrix report's blocks (core/pages), so both read the same and there is one renderer.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from alpha_matrix.core.names import listed
from alpha_matrix.core.pages.blocks import PLOTS, Heading, render_html, write_atomic
from alpha_matrix.core.pages.markdown import parse_markdown
from alpha_matrix.core.pages.reading import Headline, Opening, Rate, Term, count, markdown_glossary, used_terms
from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.records import SuiteRecord, SuiteStore


def summarize_records(suite: str, records: Iterable[SuiteRecord]) -> dict[str, Any]:
    recs = list(records)
    done = [r for r in recs if r.ok]
    out = registry.summarize_results(suite, [r.result for r in done])
    out["not_run"] = len(recs) - len(done)
    out["wall_s"] = round(math.fsum(r.timing.wall_s for r in recs), 2)
    return out


# Terms of the frame, in every suite report that uses them.
COMMON_TERMS: tuple[Term, ...] = (
    ("95 % Wilson interval", "the range that holds the true rate with 95 % confidence given k of n (Wilson "
     "score interval); wide when n is small"),
    ("k/n", "k counted out of n: the sample size a rate was counted from, always printed with it"),
    ("not run", "a scenario without a result (the message says why); counted apart, never scored; the same "
     "command runs it again"),
    ("Wall time", "real time the scenarios took, summed; the simulated outcome does not depend on it"),
)  # fmt: skip


def opening(suite: str, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> Opening:
    """The report's first lines: the suite's reading of its records and its headline."""
    r = registry.reading(suite, records, summary)
    tested = r.tested + (f"; {summary['not_run']} scenario(s) not run" if summary.get("not_run") else "")
    return Opening.of(tested, registry.headline(suite, summary), r.next)


def render_report(
    suite: str, run_id: str, records: Sequence[SuiteRecord], plots: Sequence[tuple[str, str]] = ()
) -> str:
    """The Markdown report; ``plots``: (file name in plots/, alt text) of the PNGs written for it."""
    s = summarize_records(suite, records)
    lines = [f"# Suite `{suite}` through the ROS graph: run `{run_id}`", ""]
    lines += [f"- {line}" for line in opening(suite, records, s).lines()] + [""]
    lines += registry.report_lines(suite, records, s)
    if plots:
        lines += ["", "### Plots", ""]
        for name, alt in plots:
            lines += [f"![{alt}]({PLOTS}/{name})", ""]
        lines.pop()
    lines += ["", f"Wall time of the scenarios (sum): {s['wall_s']:.1f} s."]
    body = "\n".join(lines).replace("\\|", "|")
    terms = used_terms([*registry.reading(suite, records, s).terms, *COMMON_TERMS], body)
    glossary = markdown_glossary(terms)
    return "\n".join([*lines, *([""] + glossary if glossary else []), ""])


def headline(suite: str, records_or_summary: Sequence[SuiteRecord] | Mapping[str, Any]) -> str:
    """The run's headline in one line, as its report opens with it: the suite's rate (k/n, 95 %
    Wilson interval) and safety events. Takes the records, or the summary ``summarize_records``
    gives (summary.json)."""
    if isinstance(records_or_summary, Mapping):
        summary = dict(records_or_summary)
    else:
        summary = summarize_records(suite, records_or_summary)
    line = f"suite {suite}: {registry.headline(suite, summary).line()}"
    return line + (f"; {summary['not_run']} scenario(s) not run" if summary.get("not_run") else "")


def agent_headline(agent: Mapping[str, Any], robot: str) -> Headline:
    """The headline of a run where an agent decides and its decisions are scored one by one (its
    summary's ``correct`` of ``scored``, ``harms``, ``guard_catches``), then what the robot did."""
    return Headline(
        Rate("agent decisions right", agent["correct"], agent["scored"]),
        f"{count(agent['harms'], 'harm')} (an unsafe decision that reached the robot), "
        f"{count(agent['guard_catches'], 'guard catch', 'guard catches')}; " + robot,
    )


def not_run_next(records: Sequence[Any]) -> str:
    """What to look at next when scenarios were recorded as not run (runs of older versions: a run
    now leaves them unrecorded and runs them again), or "" when there are none."""
    names = [r.scenario for r in records if not getattr(r, "ok", False)]
    return f"the scenarios not run ({listed(names)}): run the same command again to resume" if names else ""


def what_next(records: Sequence[Any], looks: Sequence[tuple[object, str]], otherwise: str) -> str:
    """A report's "look next": the first look whose condition holds, else the scenarios not run,
    else ``otherwise``."""
    return next((text for cond, text in looks if cond), "") or not_run_next(records) or otherwise


def rate_plot(
    records: Sequence[Any],
    plot_dir: Path,
    name: str,
    title: str,
    alt: str,
    rows: Callable[[list[dict[str, Any]]], list[tuple[str, int, int]]],
) -> list[tuple[str, str]]:
    """A suite's one rate figure (Wilson intervals) of the recorded results' ``rows`` (label, k, n):
    none when nothing was recorded."""
    from alpha_matrix.core.pages.plots import rate_figure, save_png

    done = [r.result for r in records if getattr(r, "ok", False) and r.result]
    if not done:
        return []
    labelled = rows(done)
    save_png(rate_figure([x[0] for x in labelled], [(x[1], x[2]) for x in labelled], title), plot_dir / name)
    return [(name, alt)]


def paired_rows(
    groups: Iterable[tuple[str, Mapping[str, int]]], *pairs: tuple[str, str, str]
) -> list[tuple[str, int, int]]:
    """``rate_plot`` rows: for each (group, counts), one row per (label, k key, n key) of ``pairs``."""
    return [(f"{g}: {label}", int(v[k]), int(v[n])) for g, v in groups for label, k, n in pairs]


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


def scenario_table(records: Sequence[SuiteRecord], header: str, row: Callable[[SuiteRecord], str]) -> list[str]:
    """A markdown table of one row per scenario (``row`` of a record that ran); a scenario that
    did not run says why in its row."""
    cols = header.count("|") - 1
    rows = [row(r) if r.ok else f"| {r.scenario} | not run: {r.message} |" + " |" * (cols - 2) for r in records]
    return [header, "|" + "---|" * cols, *rows]


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


__all__ = [
    "paired_rows",
    "scenario_table",
    "COMMON_TERMS",
    "headline",
    "listed",
    "markdown_page",
    "opening",
    "pct",
    "render_report",
    "share",
    "summarize_records",
    "write_report",
]
