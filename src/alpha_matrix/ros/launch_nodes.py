"""The graph as launch_ros `Node` actions, for the project's launch files (`ros2 launch`).

Only the launch files import this (launch_ros comes from vendor/ros2-tools or a ROS install).
Any node exiting ends the launch, like the plain launcher: the job node finishing with 0 is the
normal end; anything else ends it with a non-zero code naming the node.
"""

from __future__ import annotations

import os
from typing import Any

from launch.actions import Shutdown
from launch_ros.actions import Node

from alpha_matrix.core.graph import Graph
from alpha_matrix.core.resolve import launch_parameters
from alpha_matrix.ros.shm import clean_stale_shm
from alpha_matrix.ros.transport import VARIABLES, localhost_udp


def _on_exit(name: str, job: bool):  # noqa: ANN202 - a launch event handler
    def handle(event: Any, context: Any) -> list[Any] | None:  # ProcessExited, LaunchContext
        if context.is_shutdown:  # the launch is stopping the graph: this exit is its own SIGINT's
            return None
        if job and event.returncode == 0:
            return [Shutdown(reason=f"{name} finished")]
        raise RuntimeError(f"node '{name}' exited with code {event.returncode}; stopping the graph")

    return handle


def graph_nodes(graph: Graph) -> list[Node]:
    """One launch_ros Node per node of the resolved graph: its executable, parameters, remappings."""
    clean_stale_shm()  # shared-memory ports a killed process left would lose our messages (ros/shm.py)
    transport = localhost_udp(os.environ)  # the plain launcher's transport (ros/transport.py)
    env = {"PYTHONUNBUFFERED": "1", **{k: transport[k] for k in VARIABLES if k in transport}}
    return [
        Node(
            package=spec.package,
            executable=spec.executable,
            name=spec.name,
            parameters=[launch_parameters(spec)],
            remappings=list(spec.remappings),
            output="screen",
            emulate_tty=False,
            additional_env=env,
            on_exit=_on_exit(spec.name, spec.role == "job"),
        )
        for spec in graph.nodes
        if not spec.external  # brought up on its own
    ]
