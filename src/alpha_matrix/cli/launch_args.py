"""Launch arguments -> the resolved graph, for the project's launch files (`ros2 launch`).

The launch files only declare arguments and turn the graph into launch_ros actions; the graph
comes from here, by the same resolver and checks as `alpha-matrix run` and `suite`.
"""

from __future__ import annotations

import math
from pathlib import Path

from alpha_matrix.cli.common import check_set_names, parse_sets
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.graph import Graph, default_config_dir
from alpha_matrix.core.live import live_sets, wait_seconds
from alpha_matrix.core.matrix.run_options import RunOptions, run_overrides
from alpha_matrix.core.resolve import resolve_graph

SET_HELP = "NODE.PARAM=VALUE items separated by ';', as --set (e.g. sim_bridge.batch_steps=8)"

# ros2_control_arm.launch.py's arguments -> the arm_adapter parameter each sets (docs/arm-adapter.md).
ARM_ARGUMENTS = {
    "controller": ("controller", "the arm's joint_trajectory_controller"),
    "trajectory_action": ("trajectory_action", "its FollowJointTrajectory action, under the controller"),
    "gripper_controller": ("gripper_controller", "the gripper's action controller"),
    "gripper_action": ("gripper_action", "its GripperCommand action, under the gripper controller"),
    "ft_broadcaster": ("ft_broadcaster", "the force/torque broadcaster (<it>/wrench)"),
    "joint_states": ("joint_states_topic", "joint_state_broadcaster's topic"),
    "robot_description": ("robot_description_topic", "the URDF topic (transient local)"),
    "reset_service": ("reset_service", "Reset.srv that rebuilds the scene ('none': the arm goes home)"),
    "observe_service": ("observe_service", "Observe.srv of the perception stack"),
    "arm_joints": ("arm_joints", "the trajectory's joints, e.g. [j1, j2, ...]"),
    "finger_joints": ("finger_joints", "the finger joints, e.g. [f1, f2]"),
    "base_frame": ("base_frame", "the URDF frame placed at base_xyz/base_rpy in the world"),
    "tool_frame": ("tool_frame", "the grasp frame move_to places"),
    "ft_frame": ("ft_frame", "the F/T sensor's link"),
    "base_xyz": ("base_xyz", "base_frame's world position, [x, y, z] m"),
}


LIVE_ARGUMENTS = {
    "live": "true: serve the graph's topics over the Foxglove WebSocket protocol (ws://127.0.0.1:8765)",
    "live_port": "the live view's port (default 8765)",
    "live_wait": "seconds: hold the first episode until a viewer watches the live view (then run anyway)",
}


def live_launch_sets(values: dict[str, str]) -> list[str]:
    """``live:=true [live_port:=N] [live_wait:=S]`` as --set items for the foxglove_live entry, as
    --live gives them."""
    live, port = values.get("live", "").strip().lower(), values.get("live_port", "").strip()
    wait = values.get("live_wait", "").strip()
    if live not in ("", "true", "false"):
        raise ConfigError(f"live:={live}: true or false")
    if port and live != "true":
        raise ConfigError("live_port:= is the live view's port: give live:=true too")
    if wait and live != "true":
        raise ConfigError("live_wait:= holds the run for a viewer of the live view: give live:=true too")
    if live != "true":
        return []
    if port and not (port.isdigit() and 1 <= int(port) <= 65535):
        raise ConfigError(f"live_port:={port}: a port from 1 to 65535")
    return live_sets(int(port) if port else None, wait_s=_wait_given(wait) if wait else None)


def _wait_given(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan  # not a number: refused as one that is out of range
    return wait_seconds(seconds, f"live_wait:={text}")


def launch_sets(text: str) -> list[str]:
    """``set:=`` as --set items (';'-separated, blanks dropped)."""
    return [item.strip() for item in text.split(";") if item.strip()]


def arm_sets(values: dict[str, str]) -> list[str]:
    """The arm arguments given ("" = the adapter's default, ros2_control's name) as --set items."""
    out = []
    for arg, (param, _help) in ARM_ARGUMENTS.items():
        value = values.get(arg, "").strip()
        if value:
            out.append(f"sim_bridge.{param}={'' if value == 'none' else value}")
    return out


def run_launch_graph(values: dict[str, str]) -> Graph:
    """The matrix/episode graph of a launch: RunOptions' arguments, config_dir, external, driver, set."""
    options = RunOptions.parse({k: v for k, v in values.items() if k in RunOptions.model_fields}, style="launch")
    overrides, exclude = run_overrides(options, style="launch")
    config_dir = values.get("config_dir", "").strip()
    config = Path(config_dir) if config_dir else default_config_dir()
    if config_dir and not config.is_dir():
        raise ConfigError(f"config_dir:={config_dir}: no such directory")
    driver = values.get("driver", "").strip()
    sets = launch_sets(values.get("set", "")) + live_launch_sets(values)
    check_set_names(sets, config, driver=driver)
    for node, params in parse_sets(sets).items():
        overrides.setdefault(node, {}).update(params)
    external = tuple(n.strip() for n in values.get("external", "").split(",") if n.strip())
    return resolve_graph(config, overrides, exclude=exclude, external=external, driver=driver)
