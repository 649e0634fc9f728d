"""ros2 launch alpha_matrix suite.launch.py suite:=proximity|confidence|alerts [scenarios:=FILE] ...

A safety suite's graph as `alpha-matrix suite` builds it: the same options parsed by the same
parser and resolved by the same code (cli/suite.py), started as launch_ros Node actions. One
agent per launch; a study of several agents is `alpha-matrix suite --agent a,b`. The records go
to runs/<run id>; `alpha-matrix report runs/<run id>` writes the report afterwards.
"""

from __future__ import annotations

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from alpha_matrix.cli.launch_args import LIVE_ARGUMENTS, SET_HELP
from alpha_matrix.cli.suite import suite_launch_graph
from alpha_matrix.core.live import check_graph_ports
from alpha_matrix.ros.launch_nodes import graph_nodes

ARGUMENTS = {
    "suite": "proximity, confidence or alerts",
    "scenarios": "scenario file (default: config/scenarios/<suite>.yaml)",
    "run_id": "run and bag directory name ([A-Za-z0-9._+-], starting with a letter or digit)",
    "runs_dir": "where run directories go (default runs/)",
    "bags_dir": "where bags go (default bags/)",
    "agent": "the agent under test: reference | llm | llm:<ollama model> | ollama:<model> | openai:<model> | ...",
    "guards": "on or off: the deterministic guard under the agent",
    "decide_every": "proximity: the agent decides on every N-th camera frame",
    "probe": "hazards: hidden (default) or explicit (the consequence stated: the control probe)",
    "config_dir": "config directory (default: the package's)",
    "external": "nodes already running, not started (comma-separated): e.g. sim_bridge",
    "driver": "what serves the driver contract: sim (default) or ros2_control (arm_adapter on a running arm)",
    "set": SET_HELP,
    **LIVE_ARGUMENTS,
}


def _nodes(context, *args, **kwargs):  # launch API
    values = {name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS}
    graph = suite_launch_graph(values)
    check_graph_ports(graph)  # live:=true: its port free, or one line before any node starts
    return graph_nodes(graph)


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription(
        [
            *(DeclareLaunchArgument(name, default_value="", description=text) for name, text in ARGUMENTS.items()),
            OpaqueFunction(function=_nodes),
        ]
    )
