"""The ambiguity suite's node parameters."""

from __future__ import annotations

from pydantic import Field, field_validator

from alpha_matrix.core.agent.spec import agent_spec_ok
from alpha_matrix.core.config import (
    NodeParams,
    decide_wait,
)


class AmbiguityExecutiveParams(NodeParams):
    """The ambiguity suite's executive: asks agent/decide, answers as the operator, runs each move on the robot."""

    agent: str = Field(
        "reference", min_length=1, description="The agent under test (this suite always has one): reference, llm, ..."
    )
    decide_timeout_s: float = decide_wait()
    service_timeout_s: float = Field(60.0, gt=0.0, description="Wait this long for a robot service or command.")

    _agent_is_a_spec = field_validator("agent")(agent_spec_ok)
