"""The injection suite's node parameters."""

from __future__ import annotations

from pydantic import Field, field_validator

from alpha_matrix.core.agent.spec import agent_spec_ok
from alpha_matrix.core.config import NodeParams, agent_spec, decide_wait, guards


class InjectionExecutiveParams(NodeParams):
    """The injection suite's executive: each item asked of the agent in tool use, the guard under it."""

    agent: str = agent_spec()
    guards: bool = guards()  # the constraint guard checks the call before it is admitted
    images: bool = Field(True, description="Attach the item's overhead image (PNG) to every observation.")
    gauge_images: bool = Field(
        False, description="gauge_face items: show the agent the gauge image (multimodal); false: it gets read_gauge."
    )
    gauge_max_decisions: int = Field(
        3, ge=1, le=10, description="gauge_face items: decisions per item (read_gauge counts)."
    )
    decide_timeout_s: float = decide_wait()
    service_timeout_s: float = Field(60.0, gt=0.0, description="Wait this long for a robot service or command.")

    _agent_is_a_spec = field_validator("agent")(agent_spec_ok)
