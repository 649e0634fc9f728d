"""The agent protocol between core models and ROS messages, both ways (no decisions here)."""

from __future__ import annotations

import base64
import json

from alpha_matrix_interfaces.msg import (
    AgentAttempt,
    AgentDecision,
    AgentImage,
    AgentObservation,
    AgentProvenance,
    AgentTool,
)

from alpha_matrix.core.agent import protocol as p
from alpha_matrix.core.agent.wire import decision_of, observation_of


def observation_to_msg(obs: p.Observation) -> AgentObservation:
    return AgentObservation(
        suite=obs.suite,
        episode_id=obs.episode_id,
        step=obs.step,
        decision_index=obs.decision_index,
        situation_json=json.dumps(obs.situation, sort_keys=True),
        tools=[
            AgentTool(name=t.name, description=t.description, parameters_json=json.dumps(t.parameters, sort_keys=True))
            for t in obs.tools
        ],
        images=[AgentImage(kind=i.kind, step=i.step, png=list(base64.b64decode(i.png_base64))) for i in obs.images],
    )


def observation_from_msg(msg: AgentObservation) -> p.Observation:
    """Raises pydantic's ValidationError / ValueError on a malformed observation (the node answers invalid)."""
    return observation_of(msg)


def _provenance_msg(v: p.AgentProvenance) -> AgentProvenance:
    return AgentProvenance(**v.model_dump())


def decision_to_msg(d: p.Decision, obs: p.Observation) -> AgentDecision:
    return AgentDecision(
        episode_id=obs.episode_id,
        decision_index=obs.decision_index,
        step=obs.step,
        kind=d.kind,
        tool=d.call.name if d.call else "",
        arguments_json=json.dumps(d.call.arguments, sort_keys=True) if d.call else "",
        message=d.message,
        invalid=d.invalid or "",
        invalid_detail=d.invalid_detail,
        provenance=_provenance_msg(d.provenance),
        attempts=[AgentAttempt(**a.model_dump()) for a in d.attempts],
    )


def decision_from_msg(msg: AgentDecision) -> p.Decision:
    return decision_of(msg)
