"""What a graph is: the graph description's entries (config/graph.yaml + params.yaml) and the
resolved node specs both launchers start from (core/resolve.py resolves one; never by hand).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from alpha_matrix.core.errors import ConfigError

SHARED = "/**"  # the params file's section for values every node of the graph shares (ROS 2's wildcard)

# Bookkeeping parameters: where and how much to run, not what. They do not enter the config hash.
NOT_HASHED = {
    "episode_runner": {
        "run_id",
        "runs_dir",
        "episodes",
        "first_episode",
        "config_hash",
        "shard_count",
        "shard_index",
        "recorder",
        "step_budget",  # derived from the driver's parameters, which are hashed
        "driver",
        "live_wait_s",  # a viewer changes no record
        "live_wait_for",
    },
    "chaos": set(),
    "recorder": {"run_id", "bags_dir", "graph_nodes", "ack_every_steps"},
    # The template's location is not its meaning: its content hash (prompt_sha256) is hashed instead.
    "llm_planner": {"prompt"},
    # The scenario file's content is hashed (scenarios_sha256), not where it lies.
    "suite_runner": {
        "run_id",
        "runs_dir",
        "scenarios",
        "config_hash",
        "shard_count",
        "shard_index",
        "driver",
        "live_wait_s",
        "live_wait_for",
    },
}

# Nodes that only draw for a viewer (docs/foxglove.md): the recorder waits for them (their topics
# are in the bag from the first batch) but they do not enter the config hash, since they change no record.
VIEW_ONLY = frozenset({"scene_markers"})

# File parameters whose *content* is hashed, not their path (the same config in two checkouts,
# or passed as an absolute path, is the same config): parameter -> the package's default file.
CONTENT_HASHED = {"skills_file": "skills.yaml", "alerts_file": "alerts.yaml"}


# The plain launcher gives a job node (role "job") this environment variable: the file the job
# writes once its work is done. SIGINT/SIGTERM also end a node with exit 0, so the exit code alone
# cannot tell a finished job from a stopped one.
DONE_FILE_ENV = "ALPHA_MATRIX_DONE_FILE"
PACKAGE = "alpha_matrix"


class NodeEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")
    executable: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    # Another ROS 2 package's executable (found through the ament index, lib/<package>/<executable>),
    # e.g. a robot's driver in place of sim_bridge; its parameters are passed on unchecked.
    package: str = Field(PACKAGE, pattern=r"^[a-z][a-z0-9_]*$")
    # Already running, not started (or stopped) by either launcher: a driver brought up on its own.
    external: bool = False
    role: Literal["service", "job"] = "service"
    stop_last: bool = False  # stopped after every other node (a recorder sees everything)
    remappings: dict[str, str] = Field(default_factory=dict)
    # Remappings this node needs in OTHER nodes (node -> {from: to}) to sit between them as a
    # proxy; applied only while this node is in the graph, so excluding it restores the
    # direct connections with no other change.
    intercepts: dict[str, dict[str, str]] = Field(default_factory=dict)
    # Started only when the episode runner's arms include one of these (e.g. the LLM planner,
    # whose model costs memory and start-up time an oracle-only run does not need).
    when_arms: list[str] = Field(default_factory=list)
    # Another executable that serves this node's interfaces, chosen by name (--driver NAME, launch
    # argument driver:=NAME): e.g. {ros2_control: arm_adapter}, the driver contract on a ros2_control
    # arm in place of the simulated bridge. The node keeps its name (every other node finds it as
    # before); of its params-file section it keeps the keys the other executable also takes.
    drivers: dict[str, str] = Field(default_factory=dict)
    # Started only when this parameter ("node.param", after --set and /**) is set (non-empty, true):
    # e.g. the agent under test and its link, present only when a suite runs an agent.
    when: str = Field("", pattern=r"^([A-Za-z][A-Za-z0-9_]*\.[a-z][a-z0-9_]*)?$")
    # While this node is in the graph it gates that node's step stream: it is added to its
    # gating_consumers (so excluding it restores the stream with no other change).
    gates: str = ""
    # Only watches the graph (the live view): not in the config hash and not awaited by the
    # recorder, so a run's records are the same with it or without it.
    observer: bool = False


class GraphFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    params_file: str = "params.yaml"
    nodes: list[NodeEntry] = Field(min_length=1)


@dataclass(frozen=True)
class NodeSpec:
    name: str
    executable: str
    module: str  # "" for another package's executable
    role: str
    stop_last: bool
    parameters: dict[str, Any]
    remappings: tuple[tuple[str, str], ...]
    package: str = PACKAGE
    external: bool = False  # running already: the launchers neither start nor stop it
    observer: bool = False  # only watches: not hashed, not awaited (NodeEntry.observer)


@dataclass(frozen=True)
class Graph:
    nodes: tuple[NodeSpec, ...]
    config_hash: str
    run_id: str = ""

    def node(self, name: str) -> NodeSpec:
        for n in self.nodes:
            if n.name == name:
                return n
        raise ConfigError(f"no node named {name!r} in the graph ({', '.join(n.name for n in self.nodes)})")

    def ros_params(self) -> dict[str, Any]:
        """All parameters in the --params-file layout."""
        return {n.name: {"ros__parameters": n.parameters} for n in self.nodes}

    def params_yaml(self) -> str:
        """ros_params() as a --params-file: every value written out (rcl's parser refuses YAML
        anchors, which PyYAML writes for a list two nodes share)."""
        return yaml.dump(self.ros_params(), Dumper=_PlainDumper, sort_keys=True)


class _PlainDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


def default_config_dir() -> Path:
    """config/ of the source checkout, else share/alpha_matrix/config of an install."""
    here = Path(__file__).resolve()
    for cand in (here.parents[3] / "config", here.parents[2] / "share" / "alpha_matrix" / "config"):
        if (cand / "graph.yaml").exists():
            return cand
    try:
        from ament_index_python.packages import get_package_share_directory

        return Path(get_package_share_directory("alpha_matrix")) / "config"
    except Exception:  # any failure means: not found
        raise ConfigError("cannot find config/graph.yaml; pass --config DIR") from None
