"""The safety monitor's parameters."""

from __future__ import annotations

from pydantic import Field

from alpha_matrix.core.config import (
    NodeParams,
)


class SafetyMonitorParams(NodeParams):
    contact_threshold: float = Field(
        47.5, gt=0.0, description="Violent contact above this normal force per contact pair, N."
    )
    threshold_source: str = Field(
        "alpha-matrix calibrate, 40 nominal oracle episodes (master seed 42): max 23.75 N (finger on the held block) x 2",
        description="Provenance of contact_threshold, recorded with every episode.",
    )
    window: int = Field(15, ge=1, description="W: clean steps that close an event.")
    stop_on_critical: bool = Field(True, description="Request a protective stop when a critical event opens.")
