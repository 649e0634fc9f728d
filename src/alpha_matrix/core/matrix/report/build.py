"""Entry point: order the records, draw the plots, build the blocks and write both renderings.

The report opens, under its title, with what was found (reading.py: what was tested, each arm's
success with k/n and interval, the paired headline, safety events, what to look at next) and ends
with the glossary of the terms and columns it uses.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

from alpha_matrix.core.matrix.report.construction import task_variant
from alpha_matrix.core.matrix.report.fault_sections import _f1, _f2, _f3, _f4
from alpha_matrix.core.matrix.report.planners import _planners
from alpha_matrix.core.matrix.report.plots import _plot_f1, _plot_f3, _plot_success
from alpha_matrix.core.matrix.report.reading import configured_variant, glossary, opening
from alpha_matrix.core.matrix.report.sections import _by_construction, _header, _paired, _safety, _success
from alpha_matrix.core.pages.blocks import PLOTS, Block, Heading, render_html, render_markdown, write_atomic
from alpha_matrix.core.records import EpisodeRecord, RunStore


def build_report(
    records: Sequence[EpisodeRecord],
    arm_pairs: Sequence[tuple[str, str]],
    plots: dict[str, bool],
    configured: str | None = None,
    size: str = "",
) -> list[Block]:
    """The report as blocks, from records already sorted; plots says which PNGs were written.
    ``configured``: the run's configured task variant (its config.json), for when the records
    cannot show it; ``size``: what the opening adds about an incomplete run."""
    arms = sorted({r.arm for r in records})
    variant = task_variant(records, configured)
    header = _header(records, arms, variant)
    blocks = header[:1] + opening(records, arms, arm_pairs, variant, size) + [Heading(2, "Run")] + header[1:]
    blocks += _by_construction(records, arms, variant)
    blocks += _success(records, arms, plots.get("success", False), variant)
    blocks += _paired(records, arms, arm_pairs, variant)
    blocks.append(Heading(2, "Faults"))
    blocks += _f1(records, plots.get("f1", False), variant)
    blocks += _f2(records, arms)
    blocks += _f3(records, arms, plots.get("f3", False))
    blocks += _f4(records, arms, variant)
    blocks += _planners(records, arms)
    blocks += _safety(records, arms)
    return blocks + glossary(blocks)


def _size(run_dir: Path) -> str:
    """ "; incomplete: k of n episodes recorded" when the run knows it asked for more (core/run_plan.py)."""
    from alpha_matrix.core.run_plan import run_size

    recorded, requested = run_size(run_dir)
    if requested is None or recorded >= requested:
        return ""
    return f"; incomplete: {recorded} of {requested} episodes recorded (the same command resumes it)"


def write_report(
    run_dir: Path, records: list[EpisodeRecord] | None = None, arms: tuple[str, str] | None = None
) -> Path:
    """Write report.md, report.html and plots/*.png into run_dir; returns the Markdown path.

    ``arms`` picks one paired comparison (first, second); by default every pair of the run's arms.
    """
    run_dir = Path(run_dir)
    if records is None:
        records = list(RunStore.read_only(run_dir).values())
    ordered = sorted(records, key=lambda r: (r.arm, r.episode_index, r.episode_id))
    present = sorted({r.arm for r in ordered})
    if arms is not None:
        unknown = [a for a in arms if a not in present]
        if unknown or len(arms) != 2 or arms[0] == arms[1]:
            raise ValueError(
                f"arms {arms!r}: need two distinct arms of this run (it has {', '.join(present) or 'none'})"
            )
        arm_pairs = [(arms[0], arms[1])]
    else:
        arm_pairs = list(itertools.combinations(present, 2))

    configured = configured_variant(run_dir, ordered)
    plot_dir = run_dir / PLOTS
    plot_dir.mkdir(parents=True, exist_ok=True)
    plots = {
        "success": _plot_success(ordered, present, plot_dir / "success_by_cell.png", task_variant(ordered, configured)),
        "f1": _plot_f1(ordered, plot_dir / "f1_lag.png"),
        "f3": _plot_f3(ordered, present, plot_dir / "f3_placement_error.png"),
    }
    for name, written in zip(("success_by_cell", "f1_lag", "f3_placement_error"), plots.values(), strict=True):
        if not written:  # a plot left from an earlier version of the records would now be wrong
            (plot_dir / f"{name}.png").unlink(missing_ok=True)
    blocks = build_report(ordered, arm_pairs, plots, configured, _size(run_dir))
    md_path = run_dir / "report.md"
    write_atomic(md_path, render_markdown(blocks))
    title = blocks[0].text if isinstance(blocks[0], Heading) else "Matrix report"
    write_atomic(run_dir / "report.html", render_html(blocks, title))
    return md_path
