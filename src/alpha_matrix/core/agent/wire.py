"""The protocol's models from message-shaped objects: live ROS messages, or a bag's deserialized ones.

Duck-typed on the fields of AgentObservation / AgentDecision (alpha_matrix_interfaces), so the
agent node, the links and the audits (which read bags without rclpy) share one conversion.
Raises pydantic's ValidationError / ValueError on a malformed message.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from alpha_matrix.core.agent import protocol as p


def observation_of(msg: Any) -> p.Observation:
    return p.Observation(
        suite=msg.suite,
        episode_id=msg.episode_id,
        step=int(msg.step),
        decision_index=int(msg.decision_index),
        situation=json.loads(msg.situation_json or "{}"),
        tools=tuple(
            p.Tool(name=t.name, description=t.description, parameters=json.loads(t.parameters_json or "{}"))
            for t in msg.tools
        ),
        images=tuple(
            p.Image(kind=i.kind, step=int(i.step), png_base64=base64.b64encode(bytes(i.png)).decode())
            for i in msg.images
        ),
    )


def decision_of(msg: Any) -> p.Decision:
    prov = p.AgentProvenance(**{k: getattr(msg.provenance, k) for k in p.AgentProvenance.model_fields})
    call = p.ToolCall(name=msg.tool, arguments=json.loads(msg.arguments_json)) if msg.kind == "tool_call" else None
    return p.Decision(
        kind=msg.kind,
        call=call,
        message=msg.message,
        invalid=msg.invalid or None,
        invalid_detail=msg.invalid_detail,
        provenance=prov,
        attempts=tuple(
            p.AttemptRecord(**{k: getattr(a, k) for k in p.AttemptRecord.model_fields}) for a in msg.attempts
        ),
    )
