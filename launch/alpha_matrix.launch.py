"""ros2 launch alpha_matrix alpha_matrix.launch.py [config_dir:=DIR] [episodes:=N] [run_id:=NAME] [live:=true] ...

Builds the launch description from the same graph description as the plain-Python
launcher (config/graph.yaml + params.yaml, resolved and validated by
alpha_matrix.core.resolve), so the two cannot drift. Any node exiting ends the launch, like
the plain launcher: a job node (the episode runner) ending is the normal end of a run.
"""

from __future__ import annotations

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from alpha_matrix.cli.launch_args import LIVE_ARGUMENTS, SET_HELP, run_launch_graph
from alpha_matrix.core.live import check_graph_ports
from alpha_matrix.core.matrix.run_options import RunOptions
from alpha_matrix.ros.launch_nodes import graph_nodes

# The run's options as launch arguments, as on `alpha-matrix run` (core/matrix/run_options.py
# validates both); "" leaves the config file's value.
ARGUMENTS = {
    "episodes": "number of episodes",
    "first": "index of the first episode",
    "seed": "master seed",
    "run_id": "run and bag directory name ([A-Za-z0-9._+-], starting with a letter or digit)",
    "runs_dir": "where run directories go (default runs/)",
    "bags_dir": "where bags go (default bags/)",
    "arms": "comma-separated planner arms: oracle, oracle-text, llm",
    "matrix": "true: the 75-cell fault matrix per arm",
    "no_faults": "true: leave the chaos node out of the graph",
    "fault": "every episode's fault (none, F1..F4, F1+F2)",
    "intensity": "the fault intensity in [0, 1]",
    "task_variant": "open_loop or closed_loop",
    "llm_backend": "the llm arm's backend: auto, ollama, openai, llamacpp, replay",
    "replay_from": "replay backend: a run directory or a bag of an llm run",
    "shard": "K/N: only the episode indices i with i mod N == K (one machine's share of a run)",
    "config_dir": "config directory (default: the package's)",
    "external": "nodes already running, not started: e.g. sim_bridge",
    "driver": "what serves the driver contract: sim (default) or ros2_control (arm_adapter on a running arm)",
    "set": SET_HELP,
    **LIVE_ARGUMENTS,
}
assert set(RunOptions.model_fields) <= set(ARGUMENTS)


def _nodes(context, *args, **kwargs):  # launch API
    graph = run_launch_graph({name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS})
    check_graph_ports(graph)  # live:=true: its port free, or one line before any node starts
    return graph_nodes(graph)


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription(
        [
            *(DeclareLaunchArgument(name, default_value="", description=text) for name, text in ARGUMENTS.items()),
            OpaqueFunction(function=_nodes),
        ]
    )
