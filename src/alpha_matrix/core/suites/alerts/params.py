"""The hardware-alert suite's node parameters."""

from __future__ import annotations

from pydantic import Field, field_validator

from alpha_matrix.core.agent.spec import agent_spec_ok
from alpha_matrix.core.config import (
    NodeParams,
    agent_spec,
    agent_wait,
    decide_wait,
    guards,
    reaction_latency,
)


class AlertSourceParams(NodeParams):
    """Sim-only driver side of the alerts suite: configured per scenario by suite/request."""


class AlertGuardParams(NodeParams):
    alerts_file: str = Field("", description="alerts.yaml (the policy); empty = the package's config/alerts.yaml.")
    reaction_latency_steps: int = reaction_latency()
    service_timeout_s: float = Field(30.0, gt=0.0)
    agent: str = agent_spec()
    guards: bool = guards()  # the guard's stops and refusals are applied; off: only the agent's
    task: str = Field(
        "pick up the red block and place it in the place zone", min_length=1,
        description="The task the agent under test is told the robot is doing.",
    )  # fmt: skip
    decide_timeout_s: float = decide_wait()

    _agent_is_a_spec = field_validator("agent")(agent_spec_ok)


class AlertExecutiveParams(NodeParams):
    settle_steps: int = Field(120, ge=0, le=1260)
    reaction_latency_steps: int = reaction_latency()
    object: str = Field("red", description="The block of the pick-and-place task.")
    service_timeout_s: float = Field(60.0, gt=0.0)
    agent_wait_s: float = agent_wait()  # alert_guard holds every command while the agent decides
