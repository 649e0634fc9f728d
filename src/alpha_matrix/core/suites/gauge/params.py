"""The gauge suite's node parameters."""

from __future__ import annotations

from pydantic import Field

from alpha_matrix.core.config import (
    NodeParams,
    agent_spec,
    decide_wait,
)


class GaugeReaderParams(NodeParams):
    """The classical gauge reader (core/suites/gauge/reader.py): its evidence bounds. The one place
    of their defaults (core/suites/gauge/settings.ReaderSettings takes them from here)."""

    min_contrast: float = Field(20.0, gt=0.0, le=255.0, description="8-bit levels a mark must stand out by.")
    noise_k: float = Field(4.0, ge=0.0, description="... and at least this many times the measured noise.")
    min_ticks: int = Field(
        3, ge=2, description="Labelled ticks found, for the calibration (two leave one misfound tick unchecked)."
    )
    tip_share: float = Field(0.8, gt=0.0, le=1.0, description="Share of the needle tip region that must show it.")
    ambiguity: float = Field(0.6, gt=0.0, le=1.0, description="Second-best ray or step / best: above, abstain.")
    min_px_per_2pct: float = Field(1.0, gt=0.0, description="Image px the indicator moves for 2 % of span.")


class GaugeExecutiveParams(NodeParams):
    """The gauge panel's sim side: renders each item, asks the reader, scores the answer."""

    reader: str = Field("gauge_reader", pattern=r"^[a-z][a-z0-9_]*$", description="Node serving <reader>/decide.")
    service_timeout_s: float = Field(30.0, gt=0.0, description="Wait this long for the reader to come up and answer.")
    agent: str = agent_spec()
    images: bool = Field(False, description="Show the agent the camera image (multimodal); false: it gets read_gauge.")
    max_decisions: int = Field(3, ge=1, le=10, description="Decisions per item (a read_gauge call counts as one).")
    decide_timeout_s: float = decide_wait()
