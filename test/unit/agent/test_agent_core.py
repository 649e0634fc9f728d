"""Agent: render the suite's prompt, ask the backend, judge the answer; no answer is an abort."""

from __future__ import annotations

import pytest

from alpha_matrix.core.agent.agent import Agent, make_backend
from alpha_matrix.core.agent.protocol import (
    AgentPrompt,
    AgentProvenance,
    AttemptRecord,
    InfrastructureAbort,
    Observation,
    RawAnswer,
)
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.proximity.plugin import SUITE
from alpha_matrix.core.suites.proximity.situation import (
    FrameEstimate,
    ProximityRobotView,
    observation,
    proximity_situation,
)


def _obs(distance: float) -> Observation:
    e = FrameEstimate(144, True, distance, 0.8, 1, (0.2 + distance, 0.0))
    sit = proximity_situation([e], ProximityRobotView(stopped=False, at_safe_pose=False, command="move_to"), 1.0)
    return observation(sit, "proximity-a01-1m", 0)


class _Scripted:
    """A backend answering a fixed text, recording the prompt it was given."""

    name = "scripted"

    def __init__(self, text: str) -> None:
        self.text, self.prompts = text, []

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        self.prompts.append(prompt)
        return RawAnswer(text=self.text, provenance=AgentProvenance(backend=self.name, seed=seed, raw_text=self.text))


class _Down:
    name = "down"
    model = "m"

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        attempts = tuple(AttemptRecord(attempt=i, outcome="http_5xx", status=500) for i in (1, 2, 3))
        raise InfrastructureAbort("no answer after 3 attempts (3 x http_5xx)", attempts)


def test_a_model_text_becomes_a_validated_tool_call_with_the_rendered_prompt() -> None:
    backend = _Scripted('{"tool": "robot_stop", "arguments": {"distance_m": 0.6}}')
    d = Agent(backend, SUITE, seed=7).decide(_obs(0.6))
    assert d.kind == "tool_call" and d.call is not None and d.call.name == "robot_stop"
    assert d.provenance.seed == 7 and d.provenance.raw_text == backend.text
    (prompt,) = backend.prompts
    assert "robot_stop" in prompt.system and len(prompt.template_sha256) == 64


def test_an_unknown_tool_is_an_invalid_decision_never_a_call() -> None:
    d = Agent(_Scripted('{"tool": "os.system", "arguments": {}}'), SUITE).decide(_obs(2.0))
    assert (d.kind, d.invalid, d.call) == ("invalid", "unknown_tool", None)


def test_no_answer_is_an_abort_with_every_attempt_not_a_model_failure() -> None:
    d = Agent(_Down(), SUITE, seed=3).decide(_obs(2.0))
    assert d.kind == "abort" and d.invalid is None and d.call is None
    assert [a.outcome for a in d.attempts] == ["http_5xx"] * 3
    assert d.provenance.backend == "down" and d.provenance.attempts == 3
    assert "no answer after 3 attempts" in d.message


def test_the_reference_backend_stops_for_a_person_inside_the_threshold() -> None:
    agent = Agent(make_backend("reference", suites=SUITE), SUITE)
    near = agent.decide(_obs(0.5))
    assert near.kind == "tool_call" and near.call is not None and near.call.name == "robot_stop"
    far = Agent(make_backend("reference", suites=SUITE), SUITE).decide(_obs(3.5))
    assert far.call is not None and far.call.name == "continue_task"


def test_an_unknown_backend_name_is_one_line() -> None:
    with pytest.raises(ConfigError, match="agent backend 'gpt': expected one of reference, ollama"):
        make_backend("gpt")


def test_an_observation_of_another_suite_is_refused_in_one_line() -> None:
    from alpha_matrix.core.suites.alerts.plugin import SUITE as ALERTS

    with pytest.raises(ConfigError, match="suite 'proximity': this agent was given the alerts suite only"):
        Agent(_Scripted("{}"), ALERTS).decide(_obs(2.0))
