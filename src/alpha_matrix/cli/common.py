"""What the commands share: --set parsing, the environment check, the resolved graph, the domain."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

import yaml

from alpha_matrix.core.errors import AlphaMatrixError, ConfigError
from alpha_matrix.core.graph import SHARED, Graph
from alpha_matrix.core.planning.params import LLMPlannerParams
from alpha_matrix.core.records import RunStore
from alpha_matrix.core.resolve import resolve_graph


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


def _near(word: str, names: list[str]) -> str:
    """ " (did you mean X?)" for the closest of ``names`` (difflib), or ""."""
    import difflib

    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def check_set_names(items: list[str], config: Path | None, graph_file: str = "graph.yaml", driver: str = "") -> None:
    """Each ``--set NODE.PARAM`` names a node of the graph and a parameter that node has: otherwise
    one line blaming the --set (not params.yaml), with the near name suggested. Nodes of another
    package take any parameter; a graph file that does not read is left to the resolver to report."""
    from alpha_matrix.core.config import load_yaml
    from alpha_matrix.core.graph import PACKAGE, default_config_dir
    from alpha_matrix.core.node_params import PARAM_MODELS

    try:
        raw = load_yaml((config or default_config_dir()) / graph_file)
        nodes = {
            str(n["name"]): (str((n.get("drivers") or {}).get(driver, n["executable"])), str(n.get("package", PACKAGE)))
            for n in raw["nodes"]
        }
    except (ConfigError, KeyError, TypeError):
        return
    for item in items:
        key = item.partition("=")[0]
        node, _, param = key.partition(".")
        if node == SHARED or not param:
            continue
        if node not in nodes:
            raise ConfigError(
                f"--set {key}: no node {node!r} in {graph_file}{_near(node, list(nodes))} (nodes: {', '.join(nodes)})"
            )
        executable, package = nodes[node]
        model = PARAM_MODELS.get(executable)
        if package != PACKAGE or model is None or param in model.model_fields:
            continue
        raise ConfigError(
            f"--set {key}: {node} has no parameter {param!r}{_near(param, list(model.model_fields))} "
            "(`alpha-matrix graph` lists every node's parameters)"
        )


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
    check_set_names(list(args.set), args.config, driver=driver_of(args))
    overrides = parse_sets(args.set)
    for node, values in (extra or {}).items():
        overrides.setdefault(node, {}).update(values)
    return resolve_graph(
        args.config,
        overrides,
        exclude=exclude,
        external=external_nodes(args),
        driver=driver_of(args),
        derive=(partial(_auto_backend, args),),
    )


def _auto_backend(args: argparse.Namespace, graph: Graph) -> dict[str, dict[str, Any]]:
    """The backend "auto" stands for, decided here once, so the config hash (and the run id) name the
    backend that actually runs: a resumed run cannot silently switch models. A model no backend here can serve
    is refused before anything starts."""
    planners = [n for n in graph.nodes if n.executable == "llm_planner" and n.parameters["backend"] == "auto"]
    if not planners:
        refuse_unservable_models(graph)
        return {}
    from alpha_matrix.core.planning.llm_planner import concrete_backend  # here: it brings in the HTTP clients

    values: dict[str, dict[str, Any]] = {}
    for node in planners:
        chosen = getattr(args, "_auto_backend", None) or concrete_backend(LLMPlannerParams(**node.parameters))
        args._auto_backend = chosen  # one choice for every graph of this command (workers, shards)
        refuse_unservable_models(graph, node.name, chosen, auto=True)
        why = ""
        if chosen == "llamacpp":  # the weak embedded model: say so where the user looks, with the way out
            host = node.parameters.get("ollama_host") or os.environ.get("OLLAMA_HOST") or "127.0.0.1:11434"
            why = (
                f" (no Ollama daemon answered at {host}: the embedded 270M model plans, a test of the path, "
                "not of planning; your own model: --llm-backend ollama --arms llm:<model>, README 'Recipes')"
            )
        print(f"{node.name}: backend auto -> {chosen}{why}", file=sys.stderr, flush=True)
        values[node.name] = {"backend": chosen}
    return values


def _model_arms(graph: Graph) -> list[str]:
    """The episode runner's ``llm:<model>`` arms (a model named on the command line)."""
    from alpha_matrix.core.matrix.cells import arm_family, arm_model

    arms = [str(a) for n in graph.nodes if n.executable == "episode_runner" for a in n.parameters.get("arms", ())]
    return [a for a in arms if arm_family(a) == "llm" and arm_model(a)]


def _ollama_host(params: dict[str, Any]) -> str:
    return str(params.get("ollama_host") or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434")


def refuse_unservable_models(graph: Graph, planner: str = "", backend: str = "", auto: bool = False) -> None:
    """An ``llm:<model>`` arm asks Ollama or an OpenAI-compatible server for that model: the
    embedded model or a replay cannot serve it. One line before anything starts, never a silent
    substitute (``auto`` fell back to the embedded model: no Ollama daemon answered)."""
    nodes = [n for n in graph.nodes if n.executable == "llm_planner" and (not planner or n.name == planner)]
    arms = _model_arms(graph)
    for node in nodes:
        chosen = backend or str(node.parameters["backend"])
        if not arms or chosen not in ("llamacpp", "replay"):
            continue
        model = arms[0].partition(":")[2]
        if auto:
            raise ConfigError(
                f"--arms {arms[0]}: no Ollama daemon answered at {_ollama_host(node.parameters)}, and the embedded "
                f"model (--llm-backend auto's fallback) cannot serve {model}: start Ollama there and `ollama pull "
                f"{model}`, or name the server (--llm-backend ollama|openai)"
            )
        raise ConfigError(
            f"--arms {arms[0]}: --llm-backend {chosen} cannot serve a named model (an llm:<model> arm needs "
            "--llm-backend ollama or openai; the embedded model and a replay are the plain `llm` arm)"
        )


def preflight_planner(graph: Graph) -> None:
    """The llm arm's Ollama daemon answers and has every model the arms ask for: checked once,
    before anything starts, one ConfigError line naming the arm (the planner node would otherwise
    fail seconds into the run, once per attempt). Other backends are checked by their node."""
    for node in (n for n in graph.nodes if n.executable == "llm_planner" and not n.external):
        params = LLMPlannerParams(**node.parameters)
        if params.backend != "ollama":
            continue
        # Here, not above: the HTTP client is imported only when there is a daemon to ask.
        from alpha_matrix.core.backends.errors import BackendError
        from alpha_matrix.core.backends.ollama import OllamaBackend
        from alpha_matrix.core.matrix.cells import arm_family, arm_model

        arms = [str(a) for n in graph.nodes if n.executable == "episode_runner" for a in n.parameters["arms"]]
        models: dict[str, str] = {}  # model -> the first arm that asks for it
        for a in arms:
            if arm_family(a) == "llm":
                models.setdefault(arm_model(a) or params.ollama_model, a)
        for model, arm in models.items():
            backend = OllamaBackend(host=params.ollama_host or None, model=model, timeout_s=min(params.timeout_s, 10.0))
            try:
                backend.digest()
            except BackendError as err:
                raise ConfigError(f"arm {arm}: {err} (nothing was started)") from None


def add_live(parser: argparse.ArgumentParser) -> None:
    """--live and --live-port, on the commands that start a graph (docs/node-graph.md, 'Watching live')."""
    parser.add_argument(
        "--live",
        action="store_true",
        help="serve the graph's topics over the Foxglove WebSocket protocol while it runs (ws://127.0.0.1:8765; "
        "open it in Foxglove); it only watches: the records are the same",
    )
    parser.add_argument(
        "--live-port", type=int, default=None, metavar="PORT", help="the live view's port (default 8765)"
    )
    parser.add_argument(
        "--live-wait",
        type=float,
        default=None,
        metavar="SECONDS",
        help="hold the first episode until a viewer watches the live view, up to SECONDS (then run anyway)",
    )


def live_options(args: argparse.Namespace) -> list[str]:
    """--live [--live-port N] [--live-wait S] as --set items for the graph's foxglove_live entry (none
    without --live)."""
    from alpha_matrix.core.live import live_sets, wait_seconds

    live, port, wait = getattr(args, "live", False), getattr(args, "live_port", None), getattr(args, "live_wait", None)
    if port is not None and not live:
        raise ConfigError("--live-port is the live view's port: give --live too")
    if wait is not None and not live:
        raise ConfigError("--live-wait holds the run for a viewer of the live view: give --live too")
    if wait is not None:
        wait_seconds(wait, f"--live-wait {wait:g}")
    if not live:
        return []
    if getattr(args, "workers", 1) > 1:
        raise ConfigError("--live watches one graph: it does not go with --workers (or --ray)")
    if port is not None and not 1 <= port <= 65535:
        raise ConfigError(f"--live-port {port}: a port from 1 to 65535")
    return live_sets(port, wait_s=wait)


def add_external(parser: argparse.ArgumentParser) -> None:
    """--external NODE (repeatable) and --driver NAME, on the commands that start a graph."""
    parser.add_argument(
        "--driver",
        default="",
        metavar="NAME",
        help="what serves the driver contract: sim (the simulated bridge, default) or ros2_control (the arm_adapter "
        "on a ros2_control arm already running: docs/arm-adapter.md)",
    )
    parser.add_argument(
        "--external",
        action="append",
        default=[],
        metavar="NODE",
        help="a node already running on the domain, not started here: e.g. your driver as sim_bridge "
        "(docs/driver-contract.md, 'Bring up your driver')",
    )


def driver_of(args: argparse.Namespace) -> str:
    """The --driver choice ("" for a Namespace built without the option)."""
    return str(getattr(args, "driver", None) or "")


def external_nodes(args: argparse.Namespace) -> tuple[str, ...]:
    """The nodes --external names (none for a Namespace built without the option)."""
    return tuple(getattr(args, "external", None) or ())


def config_dir_problem(config: Path) -> str | None:
    """What is wrong with a config directory the user named, or None: never silently the default."""
    if config.is_dir():
        return None
    return "not a directory" if config.exists() else "no such directory"


# What a command's summary and report import once its graph has stopped: Wilson intervals and
# McNemar (statsmodels, which brings pandas, and scipy.stats) and the PNG plots (matplotlib's
# Figure and Agg canvas). About a second of CPU, in that order, after the graph. The commands
# that start a graph import them behind the domain probe instead (``import_behind``): the probe
# waits out $ALPHA_MATRIX_DOMAIN_PROBE_S (3 s by default) with the CPU idle.
REPORT_MODULES = (
    "statsmodels.stats.proportion",
    "statsmodels.stats.contingency_tables",
    "scipy.stats",
    "matplotlib.figure",
    "matplotlib.backends.backend_agg",
)


def import_behind(modules: Iterable[str] = REPORT_MODULES) -> threading.Thread:
    """Import ``modules`` on a daemon thread while this one goes on (the domain probe, the graph).

    Only a head start: the code that uses a module imports it where it always did, and waits for
    this thread's import of it if that is still running (Python's module lock), so nothing it
    reads changes. A module that fails to import here is left alone: its own import fails the
    same way where it is used, and says so there."""

    def load() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001, S112 - reported by the import where the module is used
                continue

    thread = threading.Thread(target=load, name="import_behind", daemon=True)
    thread.start()
    return thread


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
    args: argparse.Namespace,
    graph: Graph,
    run_dir: Path,
    store: Callable[[Path, str], RunStore[Any]],
    what: str,
    request: tuple[str, dict[str, Any], list[str]] | None = None,
) -> int:
    """``run``'s or ``suite``'s ``--ray``: ``--workers`` shards of the same command line as Ray
    tasks, merged into ``run_dir`` (``store``: its kind of records), which this process alone
    writes meanwhile (its run and bag directories held). ``request``: (config hash, config view,
    episode ids) recorded as the run's size first (core/run_plan.py)."""
    from alpha_matrix.core.run_plan import record_request
    from alpha_matrix.core.runlock import lock_dirs
    from alpha_matrix.launcher import graph_dirs
    from alpha_matrix.ray_run import run_on_ray

    run_id = run_dir.name  # a suite's run id is its runner's, not the default graph's
    made = not run_dir.exists()
    with lock_dirs(graph_dirs(graph), what):
        if request is not None:
            record_request(run_dir, *request)
        try:
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
        finally:
            if made and not (run_dir / "episodes.jsonl").exists():  # nothing merged: no run to list
                shutil.rmtree(run_dir, ignore_errors=True)


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
