"""scene_markers' parameters."""

from __future__ import annotations

from pydantic import Field

from alpha_matrix.core.config import NodeParams


class SceneMarkersParams(NodeParams):
    """The scene as markers for a viewer; it reads what the graph publishes and decides nothing."""

    contact_threshold: float = Field(
        47.5, gt=0.0, description="Plotted on scene/contact_threshold beside the contact force (the monitor's, N)."
    )
    item_bodies: bool = Field(
        False,
        description=(
            "Draw each suite item's own bodies (the graphs whose bridge spawns them: refusal, ambiguity, injection). "
            "Their scene code is loaded at start, before the node counts as up, so the first episode's markers keep pace."
        ),
    )
    mesh_root: str = Field(
        "",
        description=(
            "Where the robot's mesh files are: the URDF's package:// and file:// names are read under it (a ROS "
            "share directory for a lab's robot). Empty: the simulated Panda's folder in pybullet_data."
        ),
    )
