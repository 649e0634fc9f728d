"""The skill-confidence suite's node parameters."""

from __future__ import annotations

from pydantic import Field, field_validator

from alpha_matrix.core.agent.spec import agent_spec_ok
from alpha_matrix.core.config import (
    NodeParams,
    agent_spec,
    decide_wait,
    guards,
    reaction_latency,
)


class SkillConfidenceParams(NodeParams):
    skills_file: str = Field("", description="skills.yaml (emulator config); empty = the package's config/skills.yaml.")


class SkillExecutiveParams(NodeParams):
    skills_file: str = Field("", description="skills.yaml (threshold, retries, scene); empty = the package's.")
    settle_steps: int = Field(120, ge=0, le=1260, description="Settle after reset before the first observation.")
    stop_hold_steps: int = Field(60, ge=1, le=1260, description="Hold after the last skill before the final stop.")
    reaction_latency_steps: int = reaction_latency()
    service_timeout_s: float = Field(60.0, gt=0.0)
    agent: str = agent_spec()
    guards: bool = guards()  # the confidence gate refuses a call unchecked or below threshold; off: it runs
    max_decisions: int = Field(
        80,
        ge=1,
        le=10_000,
        description="An agent's decisions per task; then the robot is stopped (the budget is spent).",
    )
    decide_timeout_s: float = decide_wait()

    _agent_is_a_spec = field_validator("agent")(agent_spec_ok)
