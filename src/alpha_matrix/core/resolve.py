"""The graph description resolved into node specs: the one resolution both launchers consume.

Both launchers (the launch_ros file and the plain-Python launcher) start what ``resolve_graph``
returns, so the two can never drift. Resolution validates everything up front: every node's
parameters against its model (core/node_params.py), the values set once for the graph, the
driver chosen, and what follows from the graph (acks, screens, waits behind an agent, the run id).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from alpha_matrix.core.config import DECIDE_MARGIN_S, load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.graph import (
    CONTENT_HASHED,
    NOT_HASHED,
    PACKAGE,
    SHARED,
    VIEW_ONLY,
    Graph,
    GraphFile,
    NodeEntry,
    NodeSpec,
    default_config_dir,
)
from alpha_matrix.core.live import NODE as LIVE_NODE
from alpha_matrix.core.matrix.cells import default_run_id
from alpha_matrix.core.matrix.graph import f1_possible, resolve_prompt, runner_arms
from alpha_matrix.core.node_params import PARAM_MODELS, validate_params
from alpha_matrix.core.outcome import MAX_EPISODE_STEPS
from alpha_matrix.core.recorder_params import hashed_topics
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.robot.gate import flow_ack_every
from alpha_matrix.core.robot.params import SimBridgeParams


def _file_digest(config_dir: Path, param: str, value: str) -> str:
    path = Path(value) if value else config_dir / CONTENT_HASHED[param]
    try:
        return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as err:
        raise ConfigError(f"{param}: {path}: cannot read ({err.strerror})") from None


def _param_value(
    entries: list[NodeEntry], params_raw: dict, overrides: dict, shared: dict, ref: str, gpath: Path
) -> Any:
    """A node's parameter value as resolution will give it (``ref`` = "node.param"), for ``when``."""
    node, param = ref.split(".", 1)
    entry = next((e for e in entries if e.name == node), None)
    if entry is None or not _has_param(entry.executable, param):
        raise ConfigError(f"{gpath}: when: {ref}: no such node parameter")
    if param in shared:
        return shared[param]
    if param in overrides.get(node, {}):
        return overrides[node][param]
    section = (params_raw.get(node) or {}).get("ros__parameters") or {}
    if param in section:
        return section[param]
    return PARAM_MODELS[entry.executable].model_fields[param].get_default(call_default_factory=True)


def _has_param(executable: str, key: str) -> bool:
    model = PARAM_MODELS.get(executable)
    return model is not None and key in model.model_fields


def _takes(entry: NodeEntry, key: str) -> bool:
    """Whether a graph-wide (/**) value goes to this node: ours by their parameter models; another
    package's node gets every one, as ROS 2's /** gives it (e.g. L to a driver)."""
    return entry.package != PACKAGE or _has_param(entry.executable, key)


def _shared_values(
    params_raw: dict, overrides: dict[str, dict[str, Any]], entries: list[NodeEntry], ppath: Path
) -> dict[str, Any]:
    """Values declared once for the whole graph: the params file's ``/**`` section (ROS 2's
    wildcard) and ``--set '/**.NAME=V'``. Each goes to every node that has a parameter of that
    name; a node may not set it again (two copies of one value can disagree)."""
    section = params_raw.pop(SHARED, None) or {}
    if not isinstance(section, dict) or set(section) - {"ros__parameters"}:
        raise ConfigError(f"{ppath}: {SHARED}: expected only a 'ros__parameters' mapping")
    shared = {**(section.get("ros__parameters") or {}), **overrides.pop(SHARED, {})}
    for key in shared:
        users = [e.name for e in entries if _takes(e, key)]
        if not users:
            raise ConfigError(f"{ppath}: {SHARED}: {key}: no node of the graph has this parameter")
        for name in users:
            node_section = (params_raw.get(name) or {}).get("ros__parameters") or {}
            if key in node_section or key in overrides.get(name, {}):
                where = f"{ppath}: {name}" if key in node_section else f"--set {name}.{key}"
                raise ConfigError(
                    f"{where}: {key} is set once for the graph, under {SHARED} (--set '{SHARED}.{key}=V')"
                )
    return shared


def _ack_every(consumer: str, specs: list[NodeSpec]) -> int:
    """Steps between two acks of ``consumer``: 1 (every batch) unless every bridge it gates holds it
    as a flow consumer (core/robot/gate.flow_ack_every)."""
    every = []
    for s in specs:
        p = s.parameters
        if consumer in p.get("gating_consumers", ()):
            flow = consumer in p.get("flow_consumers", ())
            every.append(flow_ack_every(p["flow_window_steps"], _max_batch(s)) if flow else 1)
    return min(every, default=1)


def _max_batch(bridge: NodeSpec) -> int:
    params = validate_params(bridge.executable, bridge.parameters, bridge.name)
    return params.max_batch_steps() if isinstance(params, SimBridgeParams) else int(bridge.parameters["batch_steps"])


def launch_parameters(spec: NodeSpec) -> dict[str, Any]:
    """A node's parameters as launch_ros takes them: without empty lists, which it cannot type
    (the plain launcher's YAML file carries them). The node declares each list typed with its
    default, so dropping one whose default is empty changes nothing; any other is refused."""
    model = PARAM_MODELS.get(spec.executable) if spec.package == PACKAGE else None
    out = {}
    for key, value in spec.parameters.items():
        if value == [] and model is not None and key in model.model_fields:
            if model.model_fields[key].get_default(call_default_factory=True) != []:
                raise ConfigError(
                    f"{spec.name}: {key}: an empty list cannot go through ros2 launch (its default is not)"
                )
            continue
        out[key] = value
    return out


def _bridge_in_graph(spec: NodeSpec, specs: list[NodeSpec]) -> NodeSpec:
    """A bridge's parameters that follow from the graph: history consumers out of it read nothing,
    nor does the chaos node when no episode has F1 (its delay line serves only F1); the screen
    takes the screened monitors' threshold (none screened: an empty list)."""
    if "screened_consumers" not in spec.parameters:
        return spec
    by_name, f1 = {s.name: s for s in specs}, f1_possible(specs)
    history = [
        n for n in spec.parameters["history_consumers"] if n in by_name and (f1 or by_name[n].executable != "chaos")
    ]
    extra: dict[str, Any] = {"history_consumers": history}
    threshold = _screen_threshold(spec, [m for m in specs if not m.external])  # an external one's is not known
    if threshold is None:
        extra["screened_consumers"] = []
    else:
        extra["screen_contact_threshold"] = threshold
    parameters = {**spec.parameters, **extra}
    validate_params(spec.executable, parameters, spec.name)  # calm batches may now apply: checked here, not at start
    return dataclasses.replace(spec, parameters=parameters)


# Waits behind a decision of the agent under test: derived from its deadline, never set by hand.
AGENT_DERIVED = ("decide_timeout_s", "agent_wait_s")


def _agent_waits(specs: list[NodeSpec]) -> dict[str, float]:
    """What every node waiting behind an agent's decision waits: the agent's own deadline
    (agent.decide_timeout_s) plus a margin, so the agent's abort at its deadline always arrives
    first. Without an agent in the graph, nothing waits on one (agent_wait_s 0)."""
    agent = next((s for s in specs if s.executable == "agent" and s.package == PACKAGE), None)
    if agent is None:
        return {"agent_wait_s": 0.0}
    wait = float(agent.parameters["decide_timeout_s"]) + DECIDE_MARGIN_S
    return {"decide_timeout_s": wait, "agent_wait_s": wait}


def _screen_threshold(bridge: NodeSpec, specs: list[NodeSpec]) -> float | None:
    """The contact threshold of the monitors the bridge screens for (the lowest, if several),
    taken from their own parameters: the bridge's screen must flag whatever theirs does. None when
    it screens for none; an external monitor is not screened (its threshold is not known here)."""
    params = validate_params(bridge.executable, bridge.parameters, bridge.name)
    by_name = {s.name: s for s in specs}
    screened = [by_name[n] for n in params.screened() if n in by_name] if isinstance(params, SimBridgeParams) else []
    if not screened:
        return None
    for m in screened:
        if "contact_threshold" not in m.parameters:
            raise ConfigError(
                f"{bridge.name}: screened_consumers: {m.name} is not a safety monitor (no contact_threshold): "
                "only a consumer that decides where the safety screen flags can be screened"
            )
    return min(float(m.parameters["contact_threshold"]) for m in screened)


SIM_DRIVER = "sim"
DRIVERS_NAMED = ("arm_adapter",)  # drivers a record names (the simulated bridges are the default)


def driver_choices(gfile_nodes: list[NodeEntry]) -> list[str]:
    return [SIM_DRIVER, *sorted({d for e in gfile_nodes for d in e.drivers})]


def _swap_driver(gfile: GraphFile, driver: str, gpath: Path) -> set[str]:
    """Give the entries that have a ``drivers`` alternative named ``driver`` that executable (in
    place); the names of the entries swapped."""
    if driver in ("", SIM_DRIVER):
        return set()
    if not any(driver in e.drivers for e in gfile.nodes):
        raise ConfigError(
            f"--driver {driver}: {gpath.name} has no node for it (choices: {', '.join(driver_choices(gfile.nodes))})"
        )
    swapped = set()
    for i, e in enumerate(gfile.nodes):
        if driver in e.drivers:
            if e.package != PACKAGE:
                raise ConfigError(f"{gpath}: {e.name}: drivers: only alpha_matrix's own executables can be swapped")
            gfile.nodes[i] = e.model_copy(update={"executable": e.drivers[driver]})
            swapped.add(e.name)
    return swapped


def step_budget(specs: tuple[NodeSpec, ...] | list[NodeSpec]) -> int:
    """The episode step budget of the graph's driver (the smallest, if several nodes have one)."""
    budgets = [int(s.parameters["max_episode_steps"]) for s in specs if "max_episode_steps" in s.parameters]
    return min(budgets, default=MAX_EPISODE_STEPS)


def _driver_path(specs: list[NodeSpec]) -> str:
    """What a record says about its driver: "" for the simulated bridges, else the executable
    (arm_adapter), "external" for one the run did not start."""
    drivers = [s for s in specs if "max_episode_steps" in s.parameters or s.package != PACKAGE]
    for s in drivers:
        if s.external:
            return "external"
        if s.package != PACKAGE:
            return f"{s.package}/{s.executable}"
    return next((s.executable for s in drivers if s.executable in DRIVERS_NAMED), "")


# One step of values that follow from the resolved graph: the graph so far -> {node: {param: value}}.
Derive = Callable[[Graph], dict[str, dict[str, Any]]]


def resolve_graph(
    config_dir: Path | None = None,
    overrides: dict[str, dict[str, Any]] | None = None,
    exclude: tuple[str, ...] = (),
    graph_file: str = "graph.yaml",
    external: tuple[str, ...] = (),
    driver: str = "",
    derive: Sequence[Derive] = (),
    name_run: Callable[[str], str] | None = None,
) -> Graph:
    """Read, validate and resolve the graph, once; ``overrides`` are per-node parameter values;
    ``external`` names nodes already running (a driver brought up on its own), never started;
    ``driver`` picks the entries' ``drivers`` alternative of that name ("" or "sim": as written).

    ``derive``: values that follow from the resolved graph itself (a suite's context, the config
    files its nodes read, the planner backend "auto" stands for), in order: each step sees the
    graph with the values of the steps before it and returns per-node values, validated like
    overrides. ``name_run``: the run id from the config hash when none is given (default: the
    matrix's, from the runner's arms)."""
    config_dir = config_dir or default_config_dir()
    gpath = config_dir / graph_file
    raw = load_yaml(gpath)
    try:
        gfile = GraphFile.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"])
        msg = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise ConfigError(f"{gpath}: {key}: {msg}") from None
    ppath = config_dir / gfile.params_file
    params_raw = load_yaml(ppath) or {}
    if not isinstance(params_raw, dict):
        raise ConfigError(f"{ppath}: expected a mapping of node names")
    names = [n.name for n in gfile.nodes]
    if len(set(names)) != len(names):
        raise ConfigError(f"{gpath}: duplicate node names")
    overrides = dict(overrides or {})
    shared = _shared_values(params_raw, overrides, gfile.nodes, ppath)  # the graph as written takes them
    swapped = _swap_driver(gfile, driver, gpath)
    for key in params_raw:
        if key not in names:
            raise ConfigError(f"{ppath}: {key}: no node of that name in {gpath.name}")
    for key in overrides:
        if key not in names:
            raise ConfigError(f"override for unknown node {key!r} (nodes: {', '.join(names)})")
    for key in exclude:
        if key not in names:
            raise ConfigError(f"cannot exclude unknown node {key!r} (nodes: {', '.join(names)})")
    for key in external:
        if key not in names:
            raise ConfigError(f"--external {key}: no node of that name (nodes: {', '.join(names)})")

    arms = runner_arms(gfile.nodes, params_raw, overrides)
    exclude = (*exclude, *(e.name for e in gfile.nodes if e.when_arms and not set(e.when_arms) & set(arms)))
    exclude = (
        *exclude,
        *(
            e.name
            for e in gfile.nodes
            if e.when and not _param_value(gfile.nodes, params_raw, overrides, shared, e.when, gpath)
        ),
    )
    present = [e for e in gfile.nodes if e.name not in exclude]
    gated: dict[str, list[str]] = {}
    for e in present:
        if e.gates:
            if e.gates not in names or not _has_param(
                next(g.executable for g in gfile.nodes if g.name == e.gates), "gating_consumers"
            ):
                raise ConfigError(f"{gpath}: {e.name}: gates {e.gates!r}, which is not a node with gating_consumers")
            gated.setdefault(e.gates, []).append(e.name)
    injected: dict[str, dict[str, str]] = {}
    for proxy in present:
        for target, remaps in proxy.intercepts.items():
            if target not in names:
                raise ConfigError(f"{gpath}: {proxy.name}: intercepts unknown node {target!r}")
            injected.setdefault(target, {}).update(remaps)
    specs = []
    for entry in gfile.nodes:
        if entry.name in exclude:
            continue
        section = params_raw.get(entry.name) or {}
        if not isinstance(section, dict) or set(section) - {"ros__parameters"}:
            raise ConfigError(f"{ppath}: {entry.name}: expected only a 'ros__parameters' mapping")
        values = dict(section.get("ros__parameters") or {})
        if entry.name in swapped:  # the simulated bridge's settings stay with it
            values = {k: v for k, v in values.items() if _has_param(entry.executable, k)}
        values.update(overrides.get(entry.name, {}))
        if entry.executable == "episode_runner" and (derived := [k for k in ("step_budget", "driver") if k in values]):
            raise ConfigError(f"{entry.name}.{derived[0]} follows from the graph's driver: set its max_episode_steps")
        if entry.executable != "agent" and (derived := [k for k in AGENT_DERIVED if k in values]):
            raise ConfigError(
                f"{entry.name}.{derived[0]} follows from the agent's deadline: set agent.decide_timeout_s instead"
            )
        values.update({k: v for k, v in shared.items() if _takes(entry, k)})
        if entry.name in gated:
            consumers = values.get("gating_consumers") or []
            values["gating_consumers"] = [*consumers, *(g for g in gated[entry.name] if g not in consumers)]
        if entry.executable == "llm_planner":
            values.update(resolve_prompt(config_dir, values, f"{ppath}: {entry.name}"))
        if entry.package == PACKAGE:
            given = {k: f"--set {entry.name}.{k}={v}" for k, v in overrides.get(entry.name, {}).items()}
            given |= {k: f"{SHARED}.{k}={v}" for k, v in shared.items() if _takes(entry, k)}
            parameters = validate_params(entry.executable, values, f"{ppath}: {entry.name}", given).model_dump(
                mode="json"
            )
            module = f"alpha_matrix.nodes.{entry.executable}"
            if importlib.util.find_spec(module) is None:
                raise ConfigError(f"{gpath}: {entry.name}: no node executable {entry.executable!r}")
        else:  # another package's node: its parameters are its own business
            module, parameters = "", values
        specs.append(
            NodeSpec(
                name=entry.name,
                executable=entry.executable,
                module=module,
                role=entry.role,
                stop_last=entry.stop_last,
                parameters=parameters,
                remappings=tuple(sorted({**entry.remappings, **injected.get(entry.name, {})}.items())),
                package=entry.package,
                external=entry.external or entry.name in external,
                observer=entry.observer,
            )
        )
    graph = _complete(specs, config_dir, name_run)
    for step in derive:
        if values := step(graph):
            specs = [_with_values(s, values[s.name]) if s.name in values else s for s in specs]
            graph = _complete(specs, config_dir, name_run)
    return graph


def _with_values(spec: NodeSpec, values: dict[str, Any]) -> NodeSpec:
    """A node with derived values, validated as an override would be."""
    parameters = {**spec.parameters, **values}
    if spec.package == PACKAGE:
        given = {k: f"{spec.name}.{k}={v}" for k, v in values.items()}
        parameters = validate_params(spec.executable, parameters, spec.name, given).model_dump(mode="json")
    return dataclasses.replace(spec, parameters=parameters)


def _complete(specs: list[NodeSpec], config_dir: Path, name_run: Callable[[str], str] | None) -> Graph:
    """The config hash of the validated nodes, the run id, and what follows from the whole graph."""
    hashed = [
        {
            "name": s.name,
            "executable": s.executable,
            **({"package": s.package} if s.package != PACKAGE else {}),
            **({"external": True} if s.external else {}),  # a run against a driver of its own is another run
            "remappings": s.remappings,
            "parameters": {
                k: _file_digest(config_dir, k, v)
                if k in CONTENT_HASHED
                else hashed_topics(v)
                if (s.executable, k) == ("recorder", "topics")
                else v
                for k, v in s.parameters.items()
                if k not in NOT_HASHED.get(s.executable, ())
            },
        }
        for s in specs
        if not s.observer and s.executable not in VIEW_ONLY  # a watcher is no part of what the run is
    ]
    digest = hashlib.sha256(canonical_json(hashed).encode()).hexdigest()
    # One run id for the records and the bag: given, or derived from the arm and the config hash
    # (so re-running the same config resumes the same run).
    runners = [s for s in specs if s.executable == "episode_runner"]
    run_id = next((r.parameters["run_id"] for r in runners if r.parameters["run_id"]), "")
    if not run_id:
        run_id = (
            name_run(digest)
            if name_run
            else default_run_id(runners[0].parameters["arms"] if runners else ["graph"], digest)
        )
    recorder = next((s.name for s in specs if s.executable == "recorder"), "")
    live = next((s.parameters for s in specs if s.executable == LIVE_NODE), None)
    specs = [_bridge_in_graph(s, specs) for s in specs]  # first: the consumers' acks follow from the bridges'
    waits = _agent_waits(specs)
    final = []
    for s in specs:
        extra: dict[str, Any] = {k: v for k, v in waits.items() if k in s.parameters and s.executable != "agent"}
        if s.role == "job" and "recorder" in s.parameters:  # the graph says whether a bag backs the records
            extra["recorder"] = recorder
        if "config_hash" in s.parameters:
            extra["config_hash"] = digest
        if "step_budget" in s.parameters:  # outcomes are judged against the driver's own budget
            extra["step_budget"] = step_budget(specs)
        if "driver" in s.parameters and s.role == "job":  # every record names its driver path
            extra["driver"] = _driver_path(specs)
        if "live_wait_s" in s.parameters and s.role == "job" and live is not None:  # held for its viewer
            extra |= {"live_wait_s": live.get("wait_s", 0.0), "live_wait_for": list(live.get("wait_for", []))}
        if "run_id" in s.parameters and not s.parameters["run_id"]:
            extra["run_id"] = run_id
        if s.executable == "recorder":  # its ready check waits for every node it must hear from
            extra["graph_nodes"] = [n.name for n in specs if n.name != s.name and not n.observer]
        if "ack_every_steps" in s.parameters:  # a flow consumer acks as sparsely as its bridge allows
            extra["ack_every_steps"] = _ack_every(s.name, specs)
        final.append(dataclasses.replace(s, parameters={**s.parameters, **extra}))
    return Graph(nodes=tuple(final), config_hash=digest, run_id=run_id)
