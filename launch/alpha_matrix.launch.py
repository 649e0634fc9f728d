"""ros2 launch alpha_matrix alpha_matrix.launch.py [config_dir:=DIR] [episodes:=N]

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

from alpha_matrix.core.graph import default_config_dir, resolve_graph


def _nodes(context, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202 - launch API
    config_dir = LaunchConfiguration("config_dir").perform(context)
    episodes = LaunchConfiguration("episodes").perform(context)
    overrides = {"episode_runner": {"episodes": int(episodes)}} if episodes else {}
    graph = resolve_graph(Path(config_dir) if config_dir else default_config_dir(), overrides)
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
            OpaqueFunction(function=_nodes),
        ]
    )
