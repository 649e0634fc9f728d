"""The board as a page (board.md, board.html through the reports' renderer) and its forest plots.

A cell says, in this order: the suite's headline rate as k/n = x % with its 95 % Wilson interval
(linked to the run's report), harms and guard catches, McNemar against the reference on the paired
decisions, and the median decision latency with the distance a person at 1.6 m/s covers in it.
"""

from __future__ import annotations

import os
from pathlib import Path

from matplotlib.figure import Figure

from alpha_matrix.core.board.board import REFERENCE, WALK_M_S, Board, Cell, walked_m
from alpha_matrix.core.board.runs import MATRIX
from alpha_matrix.core.matrix.stats import wilson
from alpha_matrix.core.pages.blocks import PLOTS, write_atomic
from alpha_matrix.core.pages.plots import save_png
from alpha_matrix.core.suites.report import markdown_page, share

BOARD_MD = "board.md"
BOARD_HTML = "board.html"
BOARD_JSON = "board.json"


def _link(path: Path, out_dir: Path) -> str:
    """The run's report as a link relative to the board ("" when the run has no report written)."""
    for name in ("report.html", "report.md"):
        if (path / name).is_file():
            return os.path.relpath((path / name).resolve(), out_dir.resolve())
    return ""


def cell_text(c: Cell, out_dir: Path) -> str:
    r = c.run
    rate = share(r.k, r.n)
    link = _link(r.path, out_dir)
    parts = [f"[{rate}]({link})" if link else rate]
    if r.harms is not None or r.guard_catches is not None:
        parts.append(
            f"harms {r.harms}, guard catches {r.guard_catches}" + (", guards off" if r.guards is False else "")
        )
    if c.paired is not None:
        p = c.paired
        parts.append(f"McNemar vs reference: {p.pairs} pairs, only ref right {p.only_reference}, "
                     f"only this right {p.only_row}, p = {p.p_exact:.3g}")  # fmt: skip
    elif c.pairing_note:
        parts.append("not paired: " + c.pairing_note.split(":")[0])
    if r.latency_s is not None:
        parts.append(f"latency median {1e3 * r.latency_s:.3g} ms = {walked_m(r.latency_s):.3f} m walked")
    return "; ".join(parts)


def _provenance_rows(board: Board) -> list[str]:
    lines = [
        "| row | backend | model | digest | prompt | code revision | machine | runs |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in board.rows:
        cells = [board.cells[(row, c)] for c in board.columns if (row, c) in board.cells]

        def joined(key: str, cells: list[Cell] = cells) -> str:
            return (
                ", ".join(dict.fromkeys(c.run.provenance.get(key, "") for c in cells if c.run.provenance.get(key)))
                or "-"
            )

        digest = ", ".join(
            dict.fromkeys(c.run.provenance["digest"][:19] for c in cells if c.run.provenance.get("digest"))
        )
        runs = ", ".join(dict.fromkeys(c.run.run_id for c in cells))
        lines.append(
            f"| {row} | {joined('backend')} | {joined('model')} | {digest or '-'} | {joined('prompt')} | "
            f"{joined('code_revision')} | {joined('machine')} | {runs} |"
        )
    return lines


def forest_plots(board: Board, plot_dir: Path) -> list[tuple[str, str]]:
    """One forest plot per column: each row's rate as a point with its 95 % Wilson interval and k/n."""
    plot_dir.mkdir(parents=True, exist_ok=True)
    for old in plot_dir.glob("board_*.png"):
        old.unlink()
    out = []
    for column in board.columns:
        rows = [(row, board.cells[(row, column)].run) for row in board.rows if (row, column) in board.cells]
        fig = Figure(figsize=(7.5, 1.3 + 0.42 * len(rows)))
        ax = fig.add_subplot()
        for y, (_row, r) in enumerate(rows):
            if not r.n:
                ax.text(0.01, y, "0/0: no data", va="center", fontsize=8, color="grey")
                continue
            lo, hi = wilson(r.k, r.n)
            rate = r.k / r.n
            below, above = max(rate - lo, 0.0), max(hi - rate, 0.0)  # k = 0 or n: a bound off by a rounding error
            ax.errorbar(rate, y, xerr=[[below], [above]], fmt="o", color="black", capsize=3, linewidth=1)
            ax.text(1.02, y, f"{r.k}/{r.n}", va="center", fontsize=8)
        ax.set_yticks(range(len(rows)), [row for row, _ in rows], fontsize=8)
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set_xlim(0, 1.12)
        ax.set_xticks([0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
        ax.set_xlabel("rate (point), 95 % Wilson interval (whisker), k/n counted")
        label = rows[0][1].label if column != MATRIX else "episodes succeeded"
        ax.set_title(f"{column}: {label}"[:90], fontsize=9)
        name = f"board_{column}.png"
        save_png(fig, plot_dir / name)
        out.append((name, f"{column}: each row's headline rate with its 95 % Wilson interval and k/n"))
    return out


def board_lines(board: Board, out_dir: Path, plots: list[tuple[str, str]]) -> list[str]:
    n_runs = len({c.run.run_id for c in board.cells.values()})
    lines = [
        "# Board: agents and models across the suites and the matrix",
        "",
        f"{n_runs} run(s) side by side, {len(board.rows)} row(s), {len(board.columns)} column(s); "
        f"{len(board.apart)} run(s) kept apart. Each cell is its run's headline (what its report opens with): "
        "k/n = rate (95 % Wilson interval), linked to the run's report; harms and guard catches where the suite "
        "counts them; McNemar against the `reference` row on the paired decisions (exact p); the median decision "
        f"latency and the distance a person walking at {WALK_M_S} m/s covers in it.",
        "",
        "| row | " + " | ".join(board.columns) + " |",
        "|---|" + "---|" * len(board.columns),
    ]
    for row in board.rows:
        cells = [cell_text(board.cells[(row, c)], out_dir) if (row, c) in board.cells else "-" for c in board.columns]
        lines.append(f"| {row} | " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines += ["", "## What each column counts", ""]
    for column in board.columns:
        labels = dict.fromkeys(board.cells[(r, column)].run.label for r in board.rows if (r, column) in board.cells)
        lines.append(f"- {column}: " + "; ".join(labels))
    lines += ["", "## Provenance", "", *_provenance_rows(board)]
    if board.apart:
        lines += ["", "## Kept apart", "", "Runs that cannot be read beside the others, each with the reason.", ""]
        lines += ["| run | column | reason |", "|---|---|---|"]
        lines += [f"| {a.run_id} | {a.column} | {a.reason.replace('|', '/')} |" for a in board.apart]
    if not any(c.run.agent == REFERENCE for c in board.cells.values()):
        lines += ["", "No `reference` run on the board: nothing to pair against."]
    if plots:
        lines += ["", "## Forest plots", ""]
        for name, alt in plots:
            lines += [f"![{alt}]({PLOTS}/{name})", ""]
        lines.pop()
    return [*lines, ""]


def write_board(board: Board, out_dir: Path) -> Path:
    """board.md, board.html and plots/board_<column>.png into out_dir; returns the Markdown path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    plots = forest_plots(board, out_dir / PLOTS)
    text = "\n".join(board_lines(board, out_dir, plots))
    path = out_dir / BOARD_MD
    write_atomic(path, text)
    write_atomic(out_dir / BOARD_HTML, markdown_page(text))
    return path
