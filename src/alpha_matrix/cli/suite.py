"""alpha-matrix suite confidence|alerts|proximity: a safety suite through the ROS graph.

The scenario file is validated before anything starts (a bad file is one line, exit 2, and
nothing is written); then the suite's own graph (config/graph_<suite>.yaml) runs every
scenario in separate node processes, the runner appends one record per scenario to
runs/<run_id>/episodes.jsonl (resumable), and report.md is written from the records alone.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

from alpha_matrix.cli.common import check_environment, first_domain, parse_sets
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.graph import Graph, default_config_dir, resolve_graph
from alpha_matrix.core.names import name_part
from alpha_matrix.core.suites import registry

# The suites' pieces (scenario loaders, records, reports) load the simulation (pybullet): the
# registry imports them only when the suite command uses them, so every other command starts light.


def _sha256(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read ({err.strerror})") from None


def _config_file_overrides(suite: str, graph: Graph, config: Path, overrides: dict[str, dict[str, Any]]) -> None:
    """The suite's config file parameter (registry) is empty by default, meaning the package's
    config/<file>; a --config run points every node at its own directory's file instead, so the
    whole graph reads one file."""
    config_file = registry.spec(suite).config_file
    if config_file is None:
        return
    param, name = config_file
    for node in graph.nodes:
        if param in node.parameters and not node.parameters[param]:
            overrides.setdefault(node.name, {})[param] = str((config / name).resolve())


def suite_graph(args: argparse.Namespace) -> tuple[Graph, Path]:
    """Resolve the suite's graph, validate the scenario file with the files its nodes read
    (nothing started), and give the runner the suite's context (core/suites/context.py), computed
    once from the resolved graph so --config and --set are honoured and the bag carries it."""
    from alpha_matrix.core.suites.context import context_json

    config = args.config or default_config_dir()
    scenarios = Path(args.scenarios).resolve() if args.scenarios else config / "scenarios" / f"{args.suite}.yaml"
    overrides: dict[str, dict[str, Any]] = parse_sets(list(args.set))
    runner = overrides.setdefault("suite_runner", {})
    runner.update(suite=args.suite, scenarios=str(scenarios))
    graph_file = f"graph_{args.suite}.yaml"
    _config_file_overrides(args.suite, resolve_graph(config, overrides, graph_file=graph_file), config, overrides)
    graph = resolve_graph(config, overrides, graph_file=graph_file)
    registry.scenario_requests(
        args.suite, scenarios, registry.runner_config_file(args.suite, graph.node("suite_runner").parameters)
    )
    ctx = registry.graph_context(args.suite, graph)
    runner.update(scenarios_sha256=_sha256(scenarios), context_json=context_json(ctx))
    if args.runs_dir is not None:
        runner["runs_dir"] = args.runs_dir
    graph = resolve_graph(config, overrides, graph_file=graph_file)
    run_id = args.run_id or f"{args.suite}-{name_part(scenarios.stem)}-{graph.config_hash[:12]}"
    runner["run_id"] = run_id
    overrides.setdefault("recorder", {})["run_id"] = run_id
    graph = resolve_graph(config, overrides, graph_file=graph_file)
    return graph, Path(graph.node("suite_runner").parameters["runs_dir"]) / run_id


def cmd_suite(args: argparse.Namespace) -> int:
    from alpha_matrix.core.domains import check_domain_id
    from alpha_matrix.core.names import check_run_id
    from alpha_matrix.core.suites.records import SuiteStore
    from alpha_matrix.core.suites.report import summarize_records, write_report
    from alpha_matrix.launcher import graph_env, guarded, run_graph

    if args.run_id is not None:
        check_run_id(args.run_id, "--run-id")
    if args.domain_id is not None:
        check_domain_id(args.domain_id)
    graph, run_dir = suite_graph(args)
    check_environment()
    # Refused before anything starts: runs/<id> or bags/<id> held by a live run, or a graph up on the domain.
    with guarded(graph, 1, first_domain(args), what="suite") as domains:
        code = run_graph(graph, graph_env(domains[0]))
        if code != 0:
            return code
        summary = summarize_records(args.suite, SuiteStore.read_only(run_dir))
        print(f"suite {args.suite}: {json.dumps(summary, sort_keys=True)}")
        print(f"records: {run_dir / 'episodes.jsonl'}")
        print(f"report: {write_report(args.suite, run_dir)}")
    return 0


def register(sub: Any, _graph_opts: argparse.ArgumentParser) -> None:
    p = sub.add_parser("suite", help="run a safety suite (confidence | alerts | proximity) through the ROS graph")
    p.add_argument("suite", choices=registry.SUITE_NAMES)
    p.add_argument("--scenarios", default=None, help="scenario file (default: config/scenarios/<suite>.yaml)")
    p.add_argument(
        "--run-id",
        default=None,
        help="run directory name: [A-Za-z0-9._-], up to 128 characters (default: suite, file and config hash)",
    )
    p.add_argument("--runs-dir", default=None, help="where run directories go (default runs/)")
    p.add_argument(
        "--domain-id", type=int, default=None, help="ROS_DOMAIN_ID (0..101) of the graph (default $ROS_DOMAIN_ID or 0)"
    )
    p.add_argument(
        "--set", dest="set_after", action="append", default=[], metavar="NODE.PARAM=VALUE", help=argparse.SUPPRESS
    )
    p.set_defaults(func=cmd_suite)
