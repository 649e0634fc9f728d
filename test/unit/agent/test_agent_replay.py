"""ReplayAgent: recorded answers by (episode id, decision index), labelled recorded, misses one line."""

from __future__ import annotations

import pytest

from alpha_matrix.core.agent.decide import decide
from alpha_matrix.core.agent.protocol import (
    AgentPrompt,
    AgentProvenance,
    AttemptRecord,
    Observation,
    RawAnswer,
    RawToolCall,
    Tool,
)
from alpha_matrix.core.agent.replay import ReplayAgent
from alpha_matrix.core.backends.errors import ReplayError, ReplayMissError

STOP = Tool(name="stop", description="stop", parameters={"type": "object", "properties": {}})
PROMPT = AgentPrompt(system="s", user="u", template_sha256="cd" * 32, template_version="v1")


def prov(seed: int = 3, text: str = "") -> AgentProvenance:
    return AgentProvenance(
        backend="ollama", model="llama3:latest", digest="sha256:" + "ef" * 32, prompt_tokens=120,
        completion_tokens=9, latency_s=0.8, seed=seed, template_sha256="cd" * 32, template_version="v1",
        attempts=2, raw_text=text,
    )  # fmt: skip


def obs(episode_id: str = "ep-1", index: int = 0) -> Observation:
    return Observation(
        suite="proximity", episode_id=episode_id, step=4, decision_index=index, situation={}, tools=(STOP,)
    )


TEXT = RawAnswer(text='{"tool": "stop"}', provenance=prov(text='{"tool": "stop"}'))
NATIVE = RawAnswer(
    tool_calls=(RawToolCall(name="stop", arguments="{}"),),
    provenance=prov(),
    attempts=(AttemptRecord(attempt=1, outcome="http_429", status=429), AttemptRecord(attempt=2, outcome="answered")),
)


def test_recorded_answers_come_back_labelled():
    agent = ReplayAgent([("ep-1", 0, TEXT), ("ep-1", 1, NATIVE), ("ep-2", 0, NATIVE)])
    assert len(agent) == 3 and agent.name == "replay"
    first = agent.answer(obs("ep-1", 0), PROMPT, seed=3)
    assert first.provenance.recorded and not TEXT.provenance.recorded  # the record itself is untouched
    assert first.model_copy(update={"provenance": TEXT.provenance}) == TEXT  # everything else as recorded
    second = agent.answer(obs("ep-1", 1), PROMPT, seed=3)
    assert (second.tool_calls, second.attempts) == (NATIVE.tool_calls, NATIVE.attempts)
    p = second.provenance
    assert (p.backend, p.model, p.digest, p.latency_s, p.attempts, p.recorded) == (
        "ollama", "llama3:latest", "sha256:" + "ef" * 32, 0.8, 2, True
    )  # fmt: skip
    d = decide((STOP,), second)  # judged again against the tools offered now
    assert d.kind == "tool_call" and d.call is not None and d.call.name == "stop" and d.provenance.recorded


def test_a_miss_is_one_line():
    agent = ReplayAgent([("ep-1", 0, TEXT)])
    with pytest.raises(
        ReplayMissError, match=r"^replay: no recorded answer for episode 'ep-1' decision 1 \(1 recorded\)$"
    ):
        agent.answer(obs("ep-1", 1), PROMPT, seed=3)
    with pytest.raises(ReplayMissError, match="episode 'ep-9' decision 0"):
        agent.answer(obs("ep-9", 0), PROMPT, seed=3)
    with pytest.raises(ReplayMissError, match="recorded with seed 3, asked with seed 4"):
        agent.answer(obs("ep-1", 0), PROMPT, seed=4)
    assert issubclass(ReplayMissError, ReplayError)


def test_the_same_answer_twice_is_one_record_two_are_an_error():
    assert len(ReplayAgent(iter([("ep-1", 0, TEXT), ("ep-1", 0, TEXT)]))) == 1
    with pytest.raises(ReplayError, match="decision 0 has two different recorded answers"):
        ReplayAgent([("ep-1", 0, TEXT), ("ep-1", 0, NATIVE)])


@pytest.mark.parametrize(
    ("record", "match"),
    [
        (("ep-1", 0), "not \\(episode_id, decision_index, answer\\)"),
        (None, "not \\(episode_id, decision_index, answer\\)"),
        (("", 0, TEXT), "non-empty string"),
        ((7, 0, TEXT), "non-empty string"),
        (("ep-1", -1, TEXT), "integer >= 0"),
        (("ep-1", True, TEXT), "integer >= 0"),
        (("ep-1", "0", TEXT), "integer >= 0"),
        (("ep-1", 0, {"text": "{}"}), "expected a RawAnswer, got dict"),
    ],
)
def test_malformed_records(record, match):
    with pytest.raises(ReplayError, match=match):
        ReplayAgent([record])


def test_empty_recording_misses_everything():
    with pytest.raises(ReplayMissError, match=r"\(0 recorded\)"):
        ReplayAgent([]).answer(obs(), PROMPT, seed=3)
