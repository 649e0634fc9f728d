"""What the commands share: --set parsing, the environment check, the resolved graph, the domain."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from alpha_matrix.core.config import LLMPlannerParams
from alpha_matrix.core.errors import AlphaMatrixError, ConfigError
from alpha_matrix.core.graph import SHARED, Graph, resolve_graph
from alpha_matrix.core.planning.llm_planner import concrete_backend
from alpha_matrix.core.records import RunStore


def parse_sets(items: list[str]) -> dict[str, dict[str, Any]]:
    """``--set NODE.PARAM=VALUE`` (or ``'/**.PARAM=VALUE'``, a value the whole graph shares)."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        key, sep, value = item.partition("=")
        node, dot, param = key.partition(".")
        if not sep or not dot or not node or not param:
            raise ConfigError(
                f"--set {item!r}: expected NODE.PARAM=VALUE (or '{SHARED}.PARAM=VALUE' for the whole graph)"
            )
        try:
            out.setdefault(node, {})[param] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise ConfigError(f"--set {item!r}: value is not valid YAML") from None
    return out


def check_environment() -> None:
    """Fail early, with the fix, when the ROS environment or the interface build is missing."""
    if importlib.util.find_spec("rclpy") is None:
        raise AlphaMatrixError("rclpy is not importable: run scripts/setup.sh (or source a ROS 2 install)")
    if importlib.util.find_spec("alpha_matrix_interfaces") is None:
        raise AlphaMatrixError(
            "alpha_matrix_interfaces is not built: run scripts/setup.sh (or colcon build and source install/setup.bash)"
        )


def graph_for(
    args: argparse.Namespace, extra: dict[str, dict[str, Any]] | None = None, exclude: tuple[str, ...] = ()
) -> Graph:
    overrides = parse_sets(args.set)
    for node, values in (extra or {}).items():
        overrides.setdefault(node, {}).update(values)
    external = external_nodes(args)
    graph = resolve_graph(args.config, overrides, exclude=exclude, external=external)
    planners = [n for n in graph.nodes if n.executable == "llm_planner" and n.parameters["backend"] == "auto"]
    if not planners:
        return graph
    # "auto" is decided here, once, so the config hash (and the run id) name the backend that
    # actually runs: a resumed run cannot silently switch models.
    for node in planners:
        chosen = getattr(args, "_auto_backend", None) or concrete_backend(LLMPlannerParams(**node.parameters))
        args._auto_backend = chosen
        why = ""
        if chosen == "llamacpp":  # the weak embedded model: say so where the user looks, with the way out
            host = node.parameters.get("ollama_host") or os.environ.get("OLLAMA_HOST") or "127.0.0.1:11434"
            why = (
                f" (no Ollama daemon answered at {host}: the embedded 270M model plans, a test of the path, "
                "not of planning; your own model: --llm-backend ollama --arms llm:<model>, README 'Recipes')"
            )
        print(f"{node.name}: backend auto -> {chosen}{why}", file=sys.stderr, flush=True)
        overrides.setdefault(node.name, {})["backend"] = chosen
    return resolve_graph(args.config, overrides, exclude=exclude, external=external)


def add_external(parser: argparse.ArgumentParser) -> None:
    """--external NODE (repeatable), on the commands that start a graph."""
    parser.add_argument(
        "--external",
        action="append",
        default=[],
        metavar="NODE",
        help="a node already running on the domain, not started here: e.g. your driver as sim_bridge "
        "(README, 'Bring up your driver')",
    )


def external_nodes(args: argparse.Namespace) -> tuple[str, ...]:
    """The nodes --external names (none for a Namespace built without the option)."""
    return tuple(getattr(args, "external", None) or ())


def config_dir_problem(config: Path) -> str | None:
    """What is wrong with a config directory the user named, or None: never silently the default."""
    if config.is_dir():
        return None
    return "not a directory" if config.exists() else "no such directory"


def first_domain(args: argparse.Namespace) -> int | None:
    """The first graph's domain: --domain-id, else $ROS_DOMAIN_ID, else 0 for one graph and
    the pool (1..101) for --workers."""
    from alpha_matrix.core.domains import default_domain

    if args.domain_id is None and getattr(args, "workers", 1) > 1 and not os.environ.get("ROS_DOMAIN_ID", "").strip():
        return None
    return default_domain(args.domain_id)


def add_scale_options(parser: argparse.ArgumentParser, what: str) -> None:
    """--shard K/N and --ray [ADDRESS], on the commands whose ``what`` (episodes, scenarios) can be split."""
    parser.add_argument(
        "--shard",
        default=None,
        metavar="K/N",
        help=f"run only the {what} at indices i with i mod N == K (one machine's share; `alpha-matrix merge` joins the shares)",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="auto",
        default=None,
        metavar="ADDRESS",
        help="run --workers shards as Ray tasks: on the cluster at ADDRESS (host:port), else $RAY_ADDRESS, else a local Ray",
    )


SHARD_SETS = {"ray", "workers", "domain_id", "runs_dir", "run_id"}  # what each Ray shard's command line sets itself


def rerun_argv(args: argparse.Namespace, drop: set[str]) -> list[str]:
    """The command line (``run`` or ``suite``) that repeats ``args`` as parsed, without the options
    in ``drop`` (from the parser itself, so a new option travels without being listed here)."""
    from alpha_matrix.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = [args.command]
    if args.config is not None:
        out += ["--config", str(Path(args.config).resolve())]
    for item in args.set:
        out += ["--set", item]
    for action in commands.choices[args.command]._actions:
        dest, value = action.dest, getattr(args, action.dest, None)
        if dest in drop | {"help", "config_after", "set_after"}:
            continue
        if not action.option_strings:  # a positional (the suite's name)
            out += [str(value)]
            continue
        flag = action.option_strings[-1]
        if isinstance(action, argparse._StoreTrueAction):
            out += [flag] if value else []
        elif isinstance(action, argparse._AppendAction):
            for item in value or ():
                out += [flag, str(item)]
        elif value is not None and value != action.default:
            out += [flag, str(value)]
    return out


def shards_on_ray(
    args: argparse.Namespace, graph: Graph, run_dir: Path, store: Callable[[Path, str], RunStore[Any]], what: str
) -> int:
    """``run``'s or ``suite``'s ``--ray``: ``--workers`` shards of the same command line as Ray
    tasks, merged into ``run_dir`` (``store``: its kind of records), which this process alone
    writes meanwhile (its run and bag directories held)."""
    from alpha_matrix.core.runlock import lock_dirs
    from alpha_matrix.launcher import graph_dirs
    from alpha_matrix.ray_run import run_on_ray

    run_id = run_dir.name  # a suite's run id is its runner's, not the default graph's
    with lock_dirs(graph_dirs(graph), what):
        return run_on_ray(
            None if args.ray == "auto" else args.ray,
            rerun_argv(args, SHARD_SETS),
            run_id,
            graph.config_hash,
            args.workers,
            run_dir,
            Path(graph.node("recorder").parameters["bags_dir"]) / run_id,
            lambda line: print(line, file=sys.stderr, flush=True),
            store,
        )


def recorded_already(
    graph: Graph, run_dir: Path, config_hash: str, ids: list[str], model: type[Any], what: str
) -> bool:
    """``run_dir`` holds a record of every one of ``ids`` under ``config_hash``: the command has no
    graph to start. Read under the run's locks (no live run appends meanwhile); writes nothing."""
    from alpha_matrix.core.records import all_recorded
    from alpha_matrix.core.runlock import lock_dirs
    from alpha_matrix.launcher import graph_dirs

    if not (run_dir / "manifest.json").exists():
        return False
    lock = lock_dirs(graph_dirs(graph), what)
    try:
        return all_recorded(run_dir, config_hash, ids, model)
    finally:
        lock.discard()
