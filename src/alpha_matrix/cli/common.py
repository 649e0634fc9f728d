"""What the commands share: --set parsing, the environment check, the resolved graph, the domain."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

import yaml

from alpha_matrix.core.config import LLMPlannerParams
from alpha_matrix.core.errors import AlphaMatrixError, ConfigError
from alpha_matrix.core.graph import SHARED, Graph, resolve_graph
from alpha_matrix.core.planning.llm_planner import concrete_backend


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
