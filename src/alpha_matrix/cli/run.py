"""alpha-matrix run: a batch of episodes (or the fault matrix) through the graph, then the summary and report."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from alpha_matrix.cli.common import (
    add_external,
    add_live,
    add_scale_options,
    check_environment,
    first_domain,
    graph_for,
    import_behind,
    preflight_planner,
    recorded_already,
    shards_on_ray,
)
from alpha_matrix.cli.interrupted import expect_interrupt
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.graph import Graph
from alpha_matrix.core.matrix.cells import ARMS, parse_arms
from alpha_matrix.core.matrix.run_options import RunOptions, run_overrides
from alpha_matrix.core.names import RULE as RUN_ID_RULE
from alpha_matrix.core.records import RunStore


def planned_graphs(args: argparse.Namespace) -> tuple[Graph, list[Graph]]:
    """The run's graph and the graph(s) `run` starts with these options: that one, or one per
    worker (its own shard and bag; the run's graph names the run directory and the bag folder)."""
    from alpha_matrix.core.domains import check_domain_id
    from alpha_matrix.core.names import worker_bag_name

    if args.domain_id is not None:
        check_domain_id(args.domain_id)
    options = RunOptions.parse({name: getattr(args, name, None) for name in RunOptions.model_fields})
    overrides, exclude = run_overrides(options)
    runner = overrides.get("episode_runner", {})
    if args.workers < 1:
        raise ConfigError("--workers must be at least 1")
    if options.shard is not None and (args.workers > 1 or getattr(args, "ray", None) is not None):
        raise ConfigError("--shard is one share of a run; --workers and --ray split the run themselves")
    graph = graph_for(args, overrides, exclude=exclude)
    parse_arms(list(graph.node("episode_runner").parameters["arms"]), set(ARMS))
    if args.workers == 1:
        return graph, [graph]
    graphs = []  # one graph per worker, each on its own domain and with its own bag, one shared run directory
    for w in range(args.workers):
        shard = {**runner, "run_id": graph.run_id, "shard_count": args.workers, "shard_index": w}
        recorder = {**overrides.get("recorder", {}), "run_id": worker_bag_name(graph.run_id, w)}
        extra = {**overrides, "episode_runner": shard, "recorder": recorder}
        graphs.append(graph_for(args, extra, exclude=exclude))
    return graph, graphs


def planned_episodes(graphs: list[Graph]) -> list[str]:
    """The episode ids the runners of ``graphs`` (one per worker) run, in run order."""
    from alpha_matrix.core.matrix import episode as batch
    from alpha_matrix.core.matrix.cells import episode_id
    from alpha_matrix.core.matrix.params import EpisodeRunnerParams

    ids = []
    for g in graphs:
        p = EpisodeRunnerParams.model_validate(g.node("episode_runner").parameters)
        ids += [episode_id(arm, i) for i, arm in batch.batch_cells(p, batch.batch_arms(p)[0])[1]]
    return ids


def run_config_hash(graph: Graph) -> str:
    """The config hash the runner records the run under (its manifest's)."""
    from alpha_matrix.core.matrix.episode import config_hash
    from alpha_matrix.core.matrix.params import EpisodeRunnerParams

    return config_hash(EpisodeRunnerParams.model_validate(graph.node("episode_runner").parameters))


def _finished(graph: Graph, graphs: list[Graph], run_dir: Path) -> bool:
    """Every planned episode is recorded under this config: the run only reports (nothing starts)."""
    from alpha_matrix.core.records import EpisodeRecord

    ids = planned_episodes(graphs)
    if not recorded_already(graph, run_dir, run_config_hash(graph), ids, EpisodeRecord, "run"):
        return False
    # Only now: the report brings in matplotlib, which a run that starts its graph imports
    # behind the domain probe (import_behind) and needs only after the graph.
    from alpha_matrix.core.matrix.report import write_report
    from alpha_matrix.core.matrix.summary import summarize

    records = RunStore.read_only(run_dir)
    print(f"run {graph.run_id}: all {len(ids)} episodes already recorded, nothing to start", file=sys.stderr)
    print(f"\nrun {graph.run_id} -> {run_dir / 'episodes.jsonl'}\n" + summarize([records[e] for e in ids]))
    print(f"report: {write_report(run_dir)}")
    return True


def cmd_run(args: argparse.Namespace) -> int:
    from alpha_matrix.core.run_plan import check_same_config, config_view, record_request
    from alpha_matrix.launcher import discard_unrecorded, graph_env, guarded, run_graphs, unmade_dirs

    graph, graphs = planned_graphs(args)
    check_environment()
    run_dir = Path(graph.node("episode_runner").parameters["runs_dir"]) / graph.run_id
    expect_interrupt(run_dir, lambda: planned_episodes(graphs))  # Ctrl-C from here: "interrupted at k/n"
    made_with, view = run_config_hash(graph), config_view(graph)
    check_same_config(run_dir, made_with, view)  # a reused run id with another config: before anything starts
    if _finished(graph, graphs, run_dir):
        return 0
    preflight_planner(graph)  # the llm arm's model reachable and pulled: one line, before anything starts
    request = (made_with, view, planned_episodes(graphs))
    if args.ray is not None:
        return _run_on_ray(args, graph, request)
    made = unmade_dirs(graph)
    import_behind()  # the report's modules, while the probe below waits
    # Nothing starts (and nothing is written) while another live run holds runs/<id> or
    # bags/<id>, or a domain, or while a graph is already up on one of our domains.
    with guarded(graph, args.workers, first_domain(args)) as domains:
        record_request(run_dir, *request)  # the run's size, known from its first moment (alpha-matrix runs)
        if args.workers == 1:
            runs = [(graph, graph_env(domains[0]), "")]
        else:
            runs = [(g, graph_env(d), f"w{w}") for w, (g, d) in enumerate(zip(graphs, domains, strict=True))]
            print(f"workers on ROS domains {', '.join(map(str, domains))}", file=sys.stderr, flush=True)
        code = run_graphs(runs)
        if code != 0:
            discard_unrecorded(made, run_dir, interrupted=code == 130)
        else:
            from alpha_matrix.core.matrix.report import write_report
            from alpha_matrix.core.matrix.summary import summarize

            if args.workers > 1:
                print(
                    f"\nrun {graph.run_id} ({args.workers} workers)\n" + summarize(RunStore.read_only(run_dir).values())
                )
            print(f"report: {write_report(run_dir)}")
    return code


def _run_on_ray(args: argparse.Namespace, graph: Graph, request: tuple[str, dict[str, Any], list[str]]) -> int:
    """The run's episodes as ``--workers`` shards, one Ray task each, merged here into one run."""
    from alpha_matrix.core.matrix.report import write_report
    from alpha_matrix.core.matrix.summary import summarize

    run_dir = Path(graph.node("episode_runner").parameters["runs_dir"]) / graph.run_id
    code = shards_on_ray(args, graph, run_dir, RunStore, "run", request)
    records = RunStore.read_only(run_dir) if (run_dir / "episodes.jsonl").exists() else {}
    print(f"\nrun {graph.run_id} ({args.workers} Ray shards)\n" + summarize(records.values()))
    if records:
        print(f"report: {write_report(run_dir)}")
    return code


def cmd_graph(args: argparse.Namespace) -> int:
    """What `run` with the same options would start, and nothing started."""
    from alpha_matrix.launcher import node_command

    _run_graph, graphs = planned_graphs(args)
    for w, graph in enumerate(graphs):
        head = f"worker {w} of {len(graphs)}: " if len(graphs) > 1 else ""
        print(f"{head}run id: {graph.run_id}\nconfig hash: {graph.config_hash}")
        for n in graph.nodes:
            how = "external: not started here" if n.external else " ".join(node_command(n, Path("<params.yaml>")))
            print(f"\n{n.name} ({n.role}): {how}")
            for k, v in n.parameters.items():
                print(f"  {k}: {v!r}")
        print()
    return 0


def register(sub: Any, graph_opts: argparse.ArgumentParser) -> None:
    run = sub.add_parser(
        "run", parents=[graph_opts], help="run a batch of episodes through the graph and print the summary"
    )
    add_run_arguments(run)
    run.set_defaults(func=cmd_run)
    graph = sub.add_parser(
        "graph", parents=[graph_opts], help="print the graph `run` would start with the same options (a dry run)"
    )
    add_run_arguments(graph)
    graph.set_defaults(func=cmd_graph)


def add_run_arguments(run: argparse.ArgumentParser) -> None:
    run.add_argument("--episodes", type=int, default=None, help="number of episodes (default from params.yaml)")
    run.add_argument("--first", type=int, default=None, help="index of the first episode")
    run.add_argument("--seed", type=int, default=None, help="master seed (default 42)")
    run.add_argument(
        "--run-id",
        default=None,
        help=f"run directory name: {RUN_ID_RULE} (default: derived from the config hash)",
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
    add_live(run)
    run.add_argument("--fault", default=None, help="without --matrix: every episode's fault (none, F1..F4, F1+F2)")
    run.add_argument("--intensity", type=float, default=None, help="without --matrix: the fault intensity in [0, 1]")
    run.add_argument(
        "--task-variant",
        choices=["open_loop", "closed_loop"],
        default=None,
        help="closed_loop: the block is nudged during the approach and the executive re-observes before the grasp",
    )
    run.add_argument(
        "--workers",
        type=int,
        default=1,
        help="graphs side by side on distinct ROS_DOMAIN_IDs (free ones in 1..101); with --ray: the number of shards",
    )
    add_scale_options(run, "episodes")
