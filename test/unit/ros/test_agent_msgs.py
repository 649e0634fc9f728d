"""The agent protocol survives the trip through its ROS messages, both ways."""

import base64

from alpha_matrix.core.agent.protocol import (
    AgentProvenance,
    AttemptRecord,
    Decision,
    Image,
    Observation,
    Tool,
    ToolCall,
)
from alpha_matrix.ros.agent_msgs import decision_from_msg, decision_to_msg, observation_from_msg, observation_to_msg

STOP = Tool(
    name="robot_stop",
    description="stop now",
    parameters={"type": "object", "properties": {"distance_m": {"type": "number"}}, "additionalProperties": False},
)
OBS = Observation(
    suite="proximity",
    episode_id="proximity-a01-1m",
    step=144,
    decision_index=2,
    situation={"step": 144, "estimates": [{"distance_m": 0.8}]},
    tools=(STOP,),
    images=(Image(kind="depth", step=144, png_base64=base64.b64encode(b"\x89PNG-bytes").decode()),),
)


def test_an_observation_round_trips() -> None:
    assert observation_from_msg(observation_to_msg(OBS)) == OBS


def test_every_kind_of_decision_round_trips() -> None:
    prov = AgentProvenance(backend="openai", model="m", latency_s=1.5, seed=3, attempts=2, raw_text="{}")
    tries = (AttemptRecord(attempt=1, outcome="http_429", status=429), AttemptRecord(attempt=2, outcome="answered"))
    decisions = [
        Decision(kind="tool_call", call=ToolCall(name="robot_stop", arguments={"distance_m": 0.8}), provenance=prov),
        Decision(kind="message", message="a person is close", provenance=prov),
        Decision(kind="invalid", invalid="unknown_tool", invalid_detail="no tool 'x'", provenance=prov),
        Decision(kind="abort", message="no answer after 4 attempts", provenance=prov, attempts=tries),
    ]
    for d in decisions:
        msg = decision_to_msg(d, OBS)
        assert (msg.episode_id, msg.decision_index, msg.step) == (OBS.episode_id, 2, 144)
        assert decision_from_msg(msg) == d
