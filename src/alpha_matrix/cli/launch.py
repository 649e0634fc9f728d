"""alpha-matrix launch: keep the graph up until Ctrl-C."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from alpha_matrix.cli.common import add_live, check_environment, first_domain, graph_for


def cmd_launch(args: argparse.Namespace) -> int:
    from alpha_matrix.core.domains import check_domain_id
    from alpha_matrix.launcher import graph_env, guarded, run_graph

    if args.domain_id is not None:
        check_domain_id(args.domain_id)
    graph = graph_for(args, exclude=tuple(args.exclude))
    check_environment()
    with guarded(graph, 1, first_domain(args), what="graph") as domains:
        code = run_graph(graph, graph_env(domains[0]))
    if code == 130:  # Ctrl-C: the way this command ends
        print("alpha-matrix: interrupted; the graph is stopped", file=sys.stderr, flush=True)
    return code


def register(sub: Any, graph_opts: argparse.ArgumentParser) -> None:
    launch = sub.add_parser("launch", parents=[graph_opts], help="start the graph and keep it up until Ctrl-C")
    launch.add_argument("--exclude", action="append", default=[], metavar="NODE", help="leave a node out")
    launch.add_argument(
        "--domain-id", type=int, default=None, help="ROS_DOMAIN_ID (0..101) of the graph (default $ROS_DOMAIN_ID or 0)"
    )
    add_live(launch)
    launch.set_defaults(func=cmd_launch)
