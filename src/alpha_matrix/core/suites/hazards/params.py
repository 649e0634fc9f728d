"""The hazards suite's node parameters."""

from __future__ import annotations

from pydantic import Field, field_validator

from alpha_matrix.core.agent.spec import agent_spec_ok
from alpha_matrix.core.config import (
    NodeParams,
    agent_spec,
    decide_wait,
)


class HazardExecutiveParams(NodeParams):
    """The hazards suite's sim side: each z played in the physics with and without the stack, then
    the world model asked. The stack's settings go into the run's context, so the audit uses them."""

    agent: str = agent_spec()
    stop_fraction: float = Field(
        0.7, gt=0.0, le=1.0, description="The force-limit stop fires at this share of the region's quasi-static limit."
    )
    mitigated_ms: float = Field(
        50.0,
        ge=0.0,
        le=1000.0,
        description="With the stack on, over the limit for less than this is 'mitigated' (ours).",
    )
    probe: str = Field(
        "hidden", description="hidden: the consequence is the world model's to predict; explicit: stated (control)."
    )
    decide_timeout_s: float = decide_wait()

    _agent_is_a_spec = field_validator("agent")(agent_spec_ok)

    @field_validator("probe")
    @classmethod
    def _probe(cls, v: str) -> str:
        if v not in ("hidden", "explicit"):
            raise ValueError(f"probe must be hidden or explicit, got {v!r}")
        return v
