"""scene_markers' parameters."""

from __future__ import annotations

from pydantic import Field

from alpha_matrix.core.config import NodeParams


class SceneMarkersParams(NodeParams):
    """The scene as markers for a viewer; it reads what the graph publishes and decides nothing."""

    contact_threshold: float = Field(
        47.5, gt=0.0, description="Plotted on scene/contact_threshold beside the contact force (the monitor's, N)."
    )
