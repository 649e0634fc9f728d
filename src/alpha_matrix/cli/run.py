"""alpha-matrix run: a batch of episodes (or the fault matrix) through the graph, then the summary and report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from alpha_matrix.cli.common import add_external, check_environment, first_domain, graph_for
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.matrix.cells import ARMS, parse_arms
from alpha_matrix.core.matrix.run_options import RunOptions, run_overrides
from alpha_matrix.core.records import RunStore


def cmd_run(args: argparse.Namespace) -> int:
    from alpha_matrix.core.domains import check_domain_id
    from alpha_matrix.core.names import worker_bag_name
    from alpha_matrix.launcher import graph_env, guarded, run_graphs

    if args.domain_id is not None:
        check_domain_id(args.domain_id)
    options = RunOptions.parse({name: getattr(args, name, None) for name in RunOptions.model_fields})
    overrides, exclude = run_overrides(options)
    runner = overrides.get("episode_runner", {})
    if args.workers < 1:
        raise ConfigError("--workers must be at least 1")
    graph = graph_for(args, overrides, exclude=exclude)
    parse_arms(list(graph.node("episode_runner").parameters["arms"]), set(ARMS))
    check_environment()
    graphs = [graph]
    if args.workers > 1:  # one graph per worker, each on its own domain and with its own bag, one shared run directory
        graphs = []
        for w in range(args.workers):
            shard = {**runner, "run_id": graph.run_id, "shard_count": args.workers, "shard_index": w}
            recorder = {**overrides.get("recorder", {}), "run_id": worker_bag_name(graph.run_id, w)}
            extra = {**overrides, "episode_runner": shard, "recorder": recorder}
            graphs.append(graph_for(args, extra, exclude=exclude))
    # Nothing starts (and nothing is written) while another live run holds runs/<id> or
    # bags/<id>, or a domain, or while a graph is already up on one of our domains.
    with guarded(graph, args.workers, first_domain(args)) as domains:
        if args.workers == 1:
            runs = [(graph, graph_env(domains[0]), "")]
        else:
            runs = [(g, graph_env(d), f"w{w}") for w, (g, d) in enumerate(zip(graphs, domains, strict=True))]
            print(f"workers on ROS domains {', '.join(map(str, domains))}", file=sys.stderr, flush=True)
        code = run_graphs(runs)
        if code == 0:
            from alpha_matrix.core.matrix.report import write_report
            from alpha_matrix.core.matrix.summary import summarize

            runner_params = graph.node("episode_runner").parameters
            run_dir = Path(runner_params["runs_dir"]) / graph.run_id
            if args.workers > 1:
                print(
                    f"\nrun {graph.run_id} ({args.workers} workers)\n" + summarize(RunStore.read_only(run_dir).values())
                )
            print(f"report: {write_report(run_dir)}")
    return code


def register(sub: Any, graph_opts: argparse.ArgumentParser) -> None:
    run = sub.add_parser(
        "run", parents=[graph_opts], help="run a batch of episodes through the graph and print the summary"
    )
    run.add_argument("--episodes", type=int, default=None, help="number of episodes (default from params.yaml)")
    run.add_argument("--first", type=int, default=None, help="index of the first episode")
    run.add_argument("--seed", type=int, default=None, help="master seed (default 42)")
    run.add_argument(
        "--run-id",
        default=None,
        help="run directory name: [A-Za-z0-9._-], up to 128 characters (default: derived from the config hash)",
    )
    run.add_argument("--runs-dir", default=None, help="where run directories go (default runs/)")
    run.add_argument(
        "--domain-id",
        type=int,
        default=None,
        help="ROS_DOMAIN_ID (0..101) of this graph, or of the first with --workers (default $ROS_DOMAIN_ID or 0)",
    )
    run.add_argument(
        "--arms",
        default=None,
        help="comma-separated planner arms: oracle, oracle-text, llm, llm:<model> (several models, one run)",
    )
    run.add_argument(
        "--llm-backend",
        choices=("auto", "ollama", "openai", "llamacpp", "replay"),
        default=None,
        help="the llm arm's backend (default auto: ollama if a daemon answers, else the embedded model; openai: an OpenAI-compatible server, --set llm_planner.openai_base_url=URL)",
    )
    run.add_argument("--replay-from", default=None, help="replay backend: a run directory or a bag of an llm run")
    run.add_argument("--matrix", action="store_true", help="run the 75-cell fault matrix per arm")
    run.add_argument("--no-faults", action="store_true", help="leave the chaos node out of the graph")
    add_external(run)
    run.add_argument("--fault", default=None, help="without --matrix: every episode's fault (none, F1..F4, F1+F2)")
    run.add_argument("--intensity", type=float, default=None, help="without --matrix: the fault intensity in [0, 1]")
    run.add_argument(
        "--task-variant",
        choices=["open_loop", "closed_loop"],
        default=None,
        help="closed_loop: the block is nudged during the approach and the executive re-observes before the grasp",
    )
    run.add_argument(
        "--workers", type=int, default=1, help="graphs side by side on distinct ROS_DOMAIN_IDs (free ones in 1..101)"
    )
    run.set_defaults(func=cmd_run)
