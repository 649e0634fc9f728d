"""alpha-matrix runs: the run directories under runs/, one row each (core/runs_index.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def default_runs_dir(args: argparse.Namespace) -> Path:
    """Where ``run`` writes its run directories: the resolved graph's episode_runner.runs_dir
    (so --config and --set count here as they do there; the suites' default is the same)."""
    from alpha_matrix.cli.common import check_set_names, parse_sets
    from alpha_matrix.core.resolve import resolve_graph

    check_set_names(list(args.set), args.config)
    graph = resolve_graph(args.config, parse_sets(args.set))
    return Path(graph.node("episode_runner").parameters["runs_dir"])


def cmd_runs(args: argparse.Namespace) -> int:
    from alpha_matrix.core.runs_index import format_runs, list_runs

    runs_dir = Path(args.runs_dir) if args.runs_dir else default_runs_dir(args)
    rows = list_runs(runs_dir)
    if args.json:
        for row in rows:
            print(json.dumps(row.as_json(), sort_keys=True))
    else:
        print(format_runs(rows, runs_dir))
    return 0


def register(sub: Any, graph_opts: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "runs",
        parents=[graph_opts],
        help="list the runs: id, start, kind, arms or agent, n, success, model, last audit (read-only)",
    )
    p.add_argument("--runs-dir", default=None, help="where run directories are (default: where `run` writes, runs/)")
    p.add_argument("--json", action="store_true", help="one JSON object per run and line, for scripts")
    p.set_defaults(func=cmd_runs)
