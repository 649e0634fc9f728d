"""alpha-matrix suite <name> (a name of core/suites/registry.py): a safety suite through the ROS graph.

The scenario file is validated before anything starts (a bad file is one line, exit 2, and
nothing is written); then the suite's own graph (config/graph_<suite>.yaml) runs every
scenario in separate node processes, the runner appends one record per scenario to
runs/<run_id>/episodes.jsonl (resumable), and report.md, report.html and plots/ are written from the
records alone.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from functools import partial
from pathlib import Path
from typing import Any

from alpha_matrix.cli.common import (
    add_external,
    add_live,
    add_scale_options,
    check_environment,
    check_set_names,
    config_dir_problem,
    driver_of,
    external_nodes,
    first_domain,
    import_behind,
    parse_sets,
    recorded_already,
    shards_on_ray,
)
from alpha_matrix.cli.interrupted import expect_interrupt
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.graph import Graph, default_config_dir
from alpha_matrix.core.matrix.run_options import parse_shard
from alpha_matrix.core.names import RULE as RUN_ID_RULE
from alpha_matrix.core.names import listed, name_part
from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.core.suites import registry

# The suites' pieces (scenario loaders, records, reports) load the simulation (pybullet): the
# registry imports them only when the suite command uses them, so every other command starts light.


def _sha256(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as err:
        raise ConfigError(f"{path}: cannot read ({err.strerror})") from None


def _config_files(suite: str, config: Path, graph: Graph) -> dict[str, dict[str, Any]]:
    """The suite's config file parameter (registry) is empty by default, meaning the package's
    config/<file>; a --config run points every node at its own directory's file instead, so the
    whole graph reads one file."""
    config_file = registry.spec(suite).config_file
    if config_file is None:
        return {}
    param, name = config_file
    path = str((config / name).resolve())
    return {n.name: {param: path} for n in graph.nodes if param in n.parameters and not n.parameters[param]}


# Every suite's graph runs an agent under test (its agent side: core/suites/suite.py).
AGENT_SUITES = registry.SUITE_NAMES


def _agent_overrides(args: argparse.Namespace, overrides: dict[str, dict[str, Any]]) -> None:
    """--agent, --guards and --decide-every as the graph's shared (/**) values."""
    flags = {"agent": "agent", "guards": "guards", "decision_every_frames": "decide_every"}  # param: attribute
    given = {k: getattr(args, a, None) for k, a in flags.items()}  # a Namespace built elsewhere may lack them
    if all(v is None for v in given.values()):
        return
    if args.suite not in AGENT_SUITES:
        flag = next(f"--{flags[k].replace('_', '-')}" for k, v in given.items() if v is not None)
        raise ConfigError(
            f"{flag}: the {args.suite} suite does not run an agent under test yet (only {', '.join(AGENT_SUITES)})"
        )
    if given["decision_every_frames"] is not None and args.suite != "proximity":
        raise ConfigError(
            f"--decide-every: the {args.suite} suite asks the agent at every decision point (proximity only)"
        )
    shared = overrides.setdefault("/**", {})
    if given["agent"] is not None:
        from alpha_matrix.core.agent.spec import parse_agent_spec

        shared["agent"] = parse_agent_spec(given["agent"]).label if given["agent"] else ""
    if given["guards"] is not None:
        shared["guards"] = given["guards"] == "on"
    if given["decision_every_frames"] is not None:
        shared["decision_every_frames"] = given["decision_every_frames"]


def preflight_agent(graph: Graph) -> None:
    """A served model that cannot be reached or is not pulled: one line, before anything starts."""
    from alpha_matrix.core.agent.params import AgentParams
    from alpha_matrix.core.agent.spec import parse_agent_spec
    from alpha_matrix.core.backends.errors import BackendError

    try:
        node = graph.node("agent")
    except ConfigError:
        return
    params = AgentParams.model_validate(node.parameters)
    spec = parse_agent_spec(params.agent, "agent")
    if spec.backend == "replay" and not (Path(params.bags_dir) / spec.model).is_dir():
        raise ConfigError(f"--agent {spec.label}: no bag {Path(params.bags_dir) / spec.model} to replay")
    if spec.backend != "ollama":
        return
    from alpha_matrix.core.agent.agent import ready_backend  # here: it brings in the HTTP clients

    try:
        ready_backend(spec, params, registry.suite, registry.agent_baselines())
    except BackendError as err:  # InfrastructureAbort, ModelNotFoundError, ServerAnswerError among them
        raise AgentUnavailable(f"--agent {spec.label}: {err}") from None


class AgentUnavailable(ConfigError):
    """The agent's model cannot be reached or is not there (exit 1)."""


def suite_graph(args: argparse.Namespace) -> tuple[Graph, Path]:
    """Resolve the suite's graph, validate the scenario file with the files its nodes read
    (nothing started), and give the runner the suite's context (core/suites/context.py), computed
    once from the resolved graph so --config and --set are honoured and the bag carries it."""
    from alpha_matrix.core.suites.context import context_json

    config = args.config or default_config_dir()
    scenarios = Path(args.scenarios).resolve() if args.scenarios else config / "scenarios" / f"{args.suite}.yaml"
    if getattr(args, "images", None):  # the user's own gauges: the folder checked, as a scenario file
        if args.suite != "gauge" or args.scenarios:
            raise ConfigError("--images DIR: gauge only, and instead of --scenarios")
        from alpha_matrix.core.suites.gauge.user_images import write_images_scenario

        scenarios = write_images_scenario(Path(args.images))
    check_set_names(list(args.set), config, f"graph_{args.suite}.yaml", driver_of(args))
    overrides: dict[str, dict[str, Any]] = parse_sets(list(args.set))
    _agent_overrides(args, overrides)
    probe = getattr(args, "probe", None)  # a Namespace built elsewhere may lack it
    if probe is not None:
        if args.suite != "hazards":
            raise ConfigError(f"--probe: the {args.suite} suite has no outcome probe (hazards only)")
        overrides.setdefault("hazard_executive", {})["probe"] = probe
    runner = overrides.setdefault("suite_runner", {})
    runner.update(suite=args.suite, scenarios=str(scenarios))
    if args.runs_dir is not None:
        runner["runs_dir"] = args.runs_dir
    shard, ray, workers = getattr(args, "shard", None), getattr(args, "ray", None), getattr(args, "workers", 1)
    if shard is not None:
        if ray is not None or workers > 1:
            raise ConfigError("--shard is one share of a run; --ray with --workers N splits the run itself")
        runner["shard_index"], runner["shard_count"] = parse_shard(shard)
    if workers < 1:
        raise ConfigError("--workers must be at least 1")
    if workers > 1 and ray is None:
        raise ConfigError("a suite runs one graph here; --workers N (shards) needs --ray")
    runner["scenarios_sha256"] = _sha256(scenarios)
    if args.run_id:  # validated as a parameter; else derived from the config hash (name_run)
        runner["run_id"] = overrides.setdefault("recorder", {})["run_id"] = args.run_id

    def context(graph: Graph) -> dict[str, dict[str, Any]]:
        """The scenario file checked with the files the graph's nodes read; the suite's context
        (core/suites/context.py) from the graph, so --config and --set are honoured and the bag carries it."""
        try:
            registry.scenario_requests(
                args.suite, scenarios, registry.runner_config_file(args.suite, graph.node("suite_runner").parameters)
            )
        except ConfigError:
            if (other := _suite_of_file(args.suite, scenarios)) is None:
                raise
            raise ConfigError(
                f"{scenarios}: a scenario file of the {other} suite, not of {args.suite} "
                f"(alpha-matrix suite {other} --scenarios {scenarios})"
            ) from None
        return {"suite_runner": {"context_json": context_json(registry.graph_context(args.suite, graph))}}

    graph = resolve_graph(
        config,
        overrides,
        graph_file=f"graph_{args.suite}.yaml",
        external=external_nodes(args),
        driver=driver_of(args),
        derive=(partial(_config_files, args.suite, config), context),
        name_run=lambda digest: args.run_id or f"{args.suite}-{name_part(scenarios.stem)}-{digest[:12]}",
    )
    return graph, Path(graph.node("suite_runner").parameters["runs_dir"]) / graph.run_id


def _suite_of_file(suite: str, scenarios: Path) -> str | None:
    """The other suite whose loader takes this scenario file (a file given to the wrong suite), or None."""
    for other in registry.SUITE_NAMES:
        if other == suite:
            continue
        try:
            registry.scenario_requests(other, scenarios, None)
        except Exception:  # noqa: BLE001 - any failure: not that suite's file either
            continue
        return other
    return None


def suite_launch_graph(values: dict[str, str]) -> Graph:
    """The graph `ros2 launch alpha_matrix suite.launch.py` starts: its arguments ("" = not given)
    parsed as `alpha-matrix suite` options by the same parser and checks; a bad one is ConfigError."""
    import contextlib
    import io

    from alpha_matrix.cli import build_parser
    from alpha_matrix.cli.launch_args import launch_sets, live_launch_sets
    from alpha_matrix.core.names import check_run_id

    given = {k: v.strip() for k, v in values.items() if v.strip()}
    if "suite" not in given:
        raise ConfigError(f"suite:= is required ({', '.join(registry.SUITE_NAMES)})")
    argv = ["--config", given["config_dir"]] if "config_dir" in given else []
    if "bags_dir" in given:
        argv += ["--set", f"recorder.bags_dir={given['bags_dir']}"]
    for item in launch_sets(given.get("set", "")) + live_launch_sets(given):
        argv += ["--set", item]
    argv += ["suite", given["suite"]]
    for name in ("scenarios", "run_id", "runs_dir", "agent", "guards", "decide_every", "probe", "driver"):
        if name in given:
            argv += [f"--{name.replace('_', '-')}", given[name]]
    for node in given.get("external", "").split(","):
        argv += ["--external", node.strip()] if node.strip() else []
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors):
            args = build_parser().parse_args(argv)
    except SystemExit:  # argparse's own message, one line, in launch terms ("argument --x-y" -> "x_y")
        line = errors.getvalue().strip().splitlines()[-1].split(" error: ", 1)[-1]
        raise ConfigError(re.sub(r"argument (?:--)?([\w-]+)", lambda m: m.group(1).replace("-", "_"), line)) from None
    if args.config is not None and (problem := config_dir_problem(args.config)):
        raise ConfigError(f"config_dir:={args.config}: {problem}")
    if args.run_id is not None:
        check_run_id(args.run_id, "run_id")
    if len(agent_specs(args.agent)) > 1:
        raise ConfigError("agent: one agent per launch; a study of several is `alpha-matrix suite --agent a,b`")
    graph, _run_dir = suite_graph(args)
    preflight_agent(graph)  # an unreachable model: one line (AgentUnavailable is a ConfigError)
    return graph


def cmd_suite(args: argparse.Namespace) -> int:
    from alpha_matrix.core.domains import check_domain_id
    from alpha_matrix.core.names import check_run_id

    if args.run_id is not None:
        check_run_id(args.run_id, "--run-id")
    if args.domain_id is not None:
        check_domain_id(args.domain_id)
    specs = agent_specs(args.agent)
    if len(specs) < 2:
        return _one_run(args)[0]
    return _study(args, specs)


def agent_specs(text: str | None) -> list[str]:
    """``--agent a,b,c``: the agents of a study, each a spec (checked), in order, no repeats."""
    from alpha_matrix.core.agent.spec import parse_agent_spec

    if text is None or "," not in text:
        return [] if text is None else [text]
    labels = [parse_agent_spec(part.strip()).label for part in text.split(",")]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"--agent {text[:80]!r}: an agent named twice")
    return labels


def _study(args: argparse.Namespace, specs: list[str]) -> int:
    """Several agents on the same scenarios: one run each (its own run id, so each resumes on its
    own), then every pair compared decision by decision (runs/<study>/study.md)."""
    from alpha_matrix.core.names import check_run_id, name_part
    from alpha_matrix.core.suites.compare import arm_of, compare, comparison_lines
    from alpha_matrix.core.suites.records import SuiteStore

    base = args.run_id or f"study-{args.suite}"
    runs = [
        argparse.Namespace(
            **{**vars(args), "agent": spec, "run_id": check_run_id(f"{base}.{name_part(spec)}", "--run-id")}
        )
        for spec in specs
    ]
    for one in runs:  # every agent reachable, every reused run id of this config, before the first run starts
        graph, run_dir = suite_graph(one)
        _same_config(graph, run_dir)
        try:
            preflight_agent(graph)
        except AgentUnavailable as err:
            print(f"alpha-matrix: error: {err}", file=sys.stderr)
            return 1
    run_dirs = []
    for one in runs:
        print(f"study {base}: agent {one.agent} -> run {one.run_id}")
        code, run_dir = _one_run(one)
        if code != 0:
            return code
        run_dirs.append(run_dir)
    records = {d: list(SuiteStore.read_only(d)) for d in run_dirs}
    lines = [f"# Study {base}: {len(specs)} agents on {args.suite}", ""]
    for i, a in enumerate(run_dirs):
        for b in run_dirs[i + 1 :]:
            c = compare(arm_of(a.name, records[a]), arm_of(b.name, records[b]), records[a], records[b])
            lines += [*("#" + line if line.startswith("# ") else line for line in comparison_lines(c)), ""]
    out = run_dirs[0].parent / base / "study.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines), encoding="utf-8")
    print(f"study: {out}")
    return 0


def _one_run(args: argparse.Namespace) -> tuple[int, Path]:
    from alpha_matrix.core.run_plan import config_view, record_request
    from alpha_matrix.launcher import discard_unrecorded, graph_env, guarded, run_graph, unmade_dirs

    graph, run_dir = suite_graph(args)
    expect_interrupt(run_dir, lambda: _requested(args.suite, graph).values())  # Ctrl-C from here: "interrupted at k/n"
    check_environment()
    _same_config(graph, run_dir)  # a reused run id with another config: before anything starts
    if _finished(args.suite, graph, run_dir):
        _summary(args.suite, graph, run_dir)
        return 0, run_dir
    try:
        preflight_agent(graph)
    except AgentUnavailable as err:
        print(f"alpha-matrix: error: {err}", file=sys.stderr)
        return 1, run_dir
    params = graph.node("suite_runner").parameters
    request = (str(params.get("config_hash", "")), config_view(graph), list(_requested(args.suite, graph).values()))
    if getattr(args, "ray", None) is not None:
        from alpha_matrix.core.suites.records import SuiteStore

        code = shards_on_ray(args, graph, run_dir, SuiteStore, "suite", request)
        if code == 0 or (run_dir / "episodes.jsonl").exists():
            code = max(code, _summary(args.suite, graph, run_dir))
        return code, run_dir
    # Refused before anything starts: runs/<id> or bags/<id> held by a live run, or a graph up on the domain.
    made = unmade_dirs(graph)
    import_behind()  # the summary's and the report's modules, while the probe below waits
    with guarded(graph, 1, first_domain(args), what="suite") as domains:
        record_request(run_dir, *request)  # the run's size, known from its first moment (alpha-matrix runs)
        code = run_graph(graph, graph_env(domains[0]))
        if code == 130:  # Ctrl-C: the command's one line says how far it got (cli/interrupted.py)
            discard_unrecorded(made, run_dir, interrupted=True)
            return code, run_dir
        if code != 0:
            discard_unrecorded(made, run_dir)
            if (run_dir / "episodes.jsonl").exists():
                _summary(args.suite, graph, run_dir)
            return code, run_dir
        code = _summary(args.suite, graph, run_dir)
    return code, run_dir


def _same_config(graph: Graph, run_dir: Path) -> None:
    """A run directory made with another config: one line naming what differs (exit 2)."""
    from alpha_matrix.core.run_plan import check_same_config, config_view

    check_same_config(run_dir, str(graph.node("suite_runner").parameters.get("config_hash", "")), config_view(graph))


def _finished(suite: str, graph: Graph, run_dir: Path) -> bool:
    """Every scenario of the runner's share is recorded under this config: nothing starts (not even
    the agent's model is asked), the run only reports."""
    from alpha_matrix.core.suites.records import SuiteRecord

    params = graph.node("suite_runner").parameters
    ids = list(_requested(suite, graph).values())
    done = recorded_already(graph, run_dir, str(params.get("config_hash", "")), ids, SuiteRecord, "suite")
    if done:
        print(f"suite {suite}: all {len(ids)} scenarios already recorded, nothing to start", file=sys.stderr)
    return done


def _requested(suite: str, graph: Graph) -> dict[str, str]:
    """Scenario name -> episode id, of the scenarios this run's share is asked to run."""
    from alpha_matrix.core.shards import in_share
    from alpha_matrix.core.suites.records import episode_id

    params = graph.node("suite_runner").parameters
    count, index = int(params.get("shard_count", 1)), int(params.get("shard_index", 0))
    requests = registry.runner_requests(params)
    return {r[0]: episode_id(suite, r[0]) for i, r in enumerate(requests) if in_share(i, index, count)}


def _summary(suite: str, graph: Graph, run_dir: Path) -> int:
    """Write summary.json and the report from the records; 1 when a requested scenario is not
    recorded (named: the same command runs it again), else 0."""
    from alpha_matrix.core.suites.records import SuiteStore
    from alpha_matrix.core.suites.report import headline, summarize_records, write_report

    store = SuiteStore.read_only(run_dir)
    requested = _requested(suite, graph)
    recorded = {r.episode_id for r in store}
    missing = [name for name, eid in requested.items() if eid not in recorded]
    summary = summarize_records(suite, store)
    path = run_dir / "summary.json"  # derived from the records, rewritten with the report
    path.write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    print(f"suite {suite}: {len(requested) - len(missing)} of {len(requested)} scenarios recorded")
    if missing:
        print(f"not recorded: {listed(missing)} (run the same command again to run them)")
    print(f"records: {run_dir / 'episodes.jsonl'}")
    print(f"summary: {path}")
    print(f"report: {write_report(suite, run_dir)} (and report.html, plots/)")
    print(headline(suite, summary))
    return 1 if missing else 0


def register(sub: Any, graph_opts: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "suite",
        parents=[graph_opts],
        help=f"run a safety suite ({' | '.join(registry.SUITE_NAMES)}) through the ROS graph",
    )
    p.add_argument("suite", choices=registry.SUITE_NAMES)
    p.add_argument("--scenarios", default=None, help="scenario file (default: config/scenarios/<suite>.yaml)")
    p.add_argument(
        "--images", default=None, metavar="DIR",
        help="gauge: read your own gauge images in DIR (a face file per gauge or image: min, max, unit, sweep)",
    )  # fmt: skip
    p.add_argument(
        "--run-id",
        default=None,
        help=f"run directory name: {RUN_ID_RULE} (default: suite, file and config hash)",
    )
    p.add_argument("--runs-dir", default=None, help="where run directories go (default runs/)")
    add_external(p)
    add_live(p)
    p.add_argument(
        "--domain-id", type=int, default=None, help="ROS_DOMAIN_ID (0..101) of the graph (default $ROS_DOMAIN_ID or 0)"
    )
    p.add_argument(
        "--agent",
        default=None,
        metavar="SPEC",
        help="the agent under test: reference | llm (embedded) | llm:<ollama model> | ollama:<model> "
        "| openai:<model> | always:<tool> | replay:<run_id>; several, comma-separated (a study: one run each, "
        "every pair compared in runs/<run id>/study.md); default: none (the scripted executive decides)",
    )
    p.add_argument(
        "--guards",
        choices=("on", "off"),
        default=None,
        help="the deterministic guard under the agent: the detector's stops, the confidence gate, the alert guard, the constraint guard (default on; off measures the agent alone)",
    )
    p.add_argument(
        "--decide-every",
        type=int,
        default=None,
        metavar="N",
        help="proximity: the agent decides on every N-th camera frame (default 1 = 0.1 s; the published evaluation's 5 s = 50)",
    )
    p.add_argument(
        "--probe",
        choices=("hidden", "explicit"),
        default=None,
        help="hazards: explicit states each scenario's consequence to the world model (the control probe; "
        "default hidden)",
    )
    p.add_argument("--workers", type=int, default=1, metavar="N", help="with --ray: the number of shards (default 1)")
    add_scale_options(p, "scenarios")
    p.set_defaults(func=cmd_suite)
