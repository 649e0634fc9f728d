"""ros2 launch alpha_matrix alpha_matrix.launch.py [config_dir:=DIR] [episodes:=N] [run_id:=NAME]

Builds the launch description from the same graph description as the plain-Python
launcher (config/graph.yaml + params.yaml, resolved and validated by
alpha_matrix.core.graph), so the two cannot drift. Any node exiting ends the launch, like
the plain launcher: a job node (the episode runner) ending is the normal end of a run.
"""

from __future__ import annotations

from pathlib import Path

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction, Shutdown
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.graph import default_config_dir, resolve_graph
from alpha_matrix.core.names import check_run_id
from alpha_matrix.ros.shm import clean_stale_shm


def _overrides(episodes: str, run_id: str) -> dict:
    """The runner's overrides from the launch arguments, refused in one line when invalid."""
    runner: dict = {}
    if episodes:
        if not episodes.strip().isdigit():
            raise ConfigError(f"launch argument episodes {episodes[:60]!r}: expected a positive integer")
        runner["episodes"] = int(episodes)
    if run_id:  # a name, never a path: runs/<run_id> and bags/<run_id> stay inside runs/ and bags/
        runner["run_id"] = check_run_id(run_id, "launch argument run_id")
    return {"episode_runner": runner} if runner else {}


def _nodes(context, *args, **kwargs):  # launch API
    config_dir = LaunchConfiguration("config_dir").perform(context)
    episodes = LaunchConfiguration("episodes").perform(context)
    overrides = _overrides(episodes, LaunchConfiguration("run_id").perform(context))
    graph = resolve_graph(Path(config_dir) if config_dir else default_config_dir(), overrides)
    clean_stale_shm()  # shared-memory ports a killed process left would lose our messages (ros/shm.py)
    actions = []
    for spec in graph.nodes:
        reason = f"{spec.name} finished" if spec.role == "job" else f"{spec.name} exited"
        actions.append(
            Node(
                package="alpha_matrix",
                executable=spec.executable,
                name=spec.name,
                parameters=[spec.parameters],
                remappings=list(spec.remappings),
                output="screen",
                emulate_tty=False,
                additional_env={"PYTHONUNBUFFERED": "1"},
                on_exit=Shutdown(reason=reason),
            )
        )
    return actions


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription(
        [
            DeclareLaunchArgument(
                "config_dir", default_value="", description="config directory (default: the package's)"
            ),
            DeclareLaunchArgument(
                "episodes", default_value="", description="episodes for the runner (default from params.yaml)"
            ),
            DeclareLaunchArgument(
                "run_id", default_value="", description="run and bag directory name (default: from the config hash)"
            ),
            OpaqueFunction(function=_nodes),
        ]
    )
