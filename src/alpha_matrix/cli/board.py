"""alpha-matrix board [RUN_DIRS...]: many runs as one table (core/board/).

Rows are the agents and models (the reference and the always baselines among them) and the matrix
arms; columns the suites and the matrix; each cell the run's headline with its k/n and Wilson
interval, linked to the run's report. Writes board.md, board.html, board.json and plots/ into
--out (default runs/board/); --json prints the JSON document instead of the table.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import ConfigError

BOARD_DIR = "board"


def _run_dirs(args: argparse.Namespace) -> tuple[list[Path], Path]:
    """The run directories given, or every run under the runs directory (as `runs` lists them)."""
    from alpha_matrix.cli.runs import default_runs_dir

    if args.run_dirs:
        return [Path(p) for p in args.run_dirs], Path(args.out or Path(args.run_dirs[0]).parent / BOARD_DIR)
    from alpha_matrix.core.runs_index import list_runs

    runs_dir = Path(args.runs_dir) if args.runs_dir else default_runs_dir(args)
    out = Path(args.out) if args.out else runs_dir / BOARD_DIR
    rows = [r for r in list_runs(runs_dir) if r.status in ("ok", "incomplete") and r.n > 0]
    if not rows:
        raise ConfigError(f"{runs_dir}: no runs with records to put on a board")
    return [r.path for r in rows], out


def cmd_board(args: argparse.Namespace) -> int:
    from alpha_matrix.core.board.board import board_json, build_board
    from alpha_matrix.core.board.page import BOARD_JSON, write_board
    from alpha_matrix.core.board.runs import load_run
    from alpha_matrix.core.pages.blocks import write_atomic

    paths, out = _run_dirs(args)
    out_resolved = out.resolve()
    board = build_board([load_run(p) for p in paths if p.resolve() != out_resolved])
    md = write_board(board, out)
    doc = board_json(board, out)
    write_atomic(out / BOARD_JSON, json.dumps(doc, sort_keys=True, indent=1) + "\n")
    if args.json:
        print(json.dumps(doc, sort_keys=True))
    else:
        print(md.read_text(encoding="utf-8"), end="")
        print(f"written: {md} (and {out / 'board.html'}, {out / BOARD_JSON}, plots/)")
    return 0


def register(sub: Any, graph_opts: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "board",
        parents=[graph_opts],
        help="many runs as one table: agents and models by suite and matrix, headlines, McNemar, provenance",
    )
    p.add_argument("run_dirs", nargs="*", metavar="RUN_DIR", help="run directories (default: every run in --runs-dir)")
    p.add_argument("--runs-dir", default=None, help="where run directories are (default: where `run` writes, runs/)")
    p.add_argument("--out", default=None, help="the board's directory (default: <runs dir>/board)")
    p.add_argument("--json", action="store_true", help="print the board as one JSON document, for scripts")
    p.set_defaults(func=cmd_board)
