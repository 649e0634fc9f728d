"""ros2 launch alpha_matrix ros2_control_arm.launch.py [controller:=...] [suite:=alerts] [episodes:=N] ...

The graph against a ros2_control arm that is already running (its controller manager, a
joint_trajectory_controller, a gripper action controller, joint_state_broadcaster, a
force/torque broadcaster, robot_state_publisher): every node of config/graph.yaml (or of the
suite's graph) with the arm_adapter serving the driver contract as node `sim_bridge`. The arm
arguments default to ros2_control's names (docs/arm-adapter.md); `suite:=NAME` runs that suite's
graph instead of the episode runner's (the suites whose graph has a driver to swap: alerts).
The same resolver as `alpha-matrix run --driver ros2_control` and `suite --driver ros2_control`.
"""

from __future__ import annotations

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration

from alpha_matrix.cli.launch_args import ARM_ARGUMENTS, SET_HELP, arm_sets, run_launch_graph
from alpha_matrix.cli.suite import suite_launch_graph
from alpha_matrix.ros.launch_nodes import graph_nodes

ARGUMENTS = {
    **{name: text for name, (_param, text) in ARM_ARGUMENTS.items()},
    "suite": "a suite to run instead of the episodes (alerts); empty: alpha-matrix run's graph",
    "scenarios": "suite: scenario file (default: config/scenarios/<suite>.yaml)",
    "agent": "suite: the agent under test (reference | llm | ollama:<model> | openai:<model> | ...)",
    "guards": "suite: on or off",
    "episodes": "number of episodes",
    "seed": "master seed",
    "arms": "comma-separated planner arms: oracle, oracle-text, llm",
    "matrix": "true: the 75-cell fault matrix per arm",
    "no_faults": "true: leave the chaos node out of the graph",
    "run_id": "run and bag directory name ([A-Za-z0-9._+-], starting with a letter or digit)",
    "runs_dir": "where run directories go (default runs/)",
    "bags_dir": "where bags go (default bags/)",
    "config_dir": "config directory (default: the package's)",
    "set": SET_HELP,
}
SUITE_ONLY = ("suite", "scenarios", "agent", "guards")
RUN_ONLY = ("episodes", "seed", "arms", "matrix", "no_faults")


def _nodes(context, *args, **kwargs):  # launch API
    values = {name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS}
    sets = ";".join([*arm_sets(values), values["set"]])
    common = {k: values[k] for k in ("run_id", "runs_dir", "bags_dir", "config_dir")}
    if values["suite"].strip():
        suite = {k: values[k] for k in SUITE_ONLY}
        return graph_nodes(suite_launch_graph({**common, **suite, "driver": "ros2_control", "set": sets}))
    run = {k: values[k] for k in RUN_ONLY}
    return graph_nodes(run_launch_graph({**common, **run, "driver": "ros2_control", "set": sets}))


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription(
        [
            *(DeclareLaunchArgument(name, default_value="", description=text) for name, text in ARGUMENTS.items()),
            OpaqueFunction(function=_nodes),
        ]
    )
