"""What a user bounds one decision with: the deadline (agent.decide_timeout_s), the completion cap
(agent.max_tokens, sent as max_tokens / num_predict; a cut answer is a typed invalid decision) and
server-specific settings (agent.extra_body), over real HTTP (scripted_http)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from scripted_http import FakeTime, Reply, ScriptedServer
from test_served_agents import OLLAMA_OK, OPENAI_OK, PROMPT, TAGS, TOOLS, _obs

from alpha_matrix.core.agent.agent import backend_for
from alpha_matrix.core.agent.decide import decide
from alpha_matrix.core.agent.ollama import OllamaAgent
from alpha_matrix.core.agent.openai import OpenAIAgent
from alpha_matrix.core.agent.params import AgentParams
from alpha_matrix.core.agent.protocol import AgentProvenance, InfrastructureAbort, RawAnswer, RawToolCall
from alpha_matrix.core.agent.spec import parse_agent_spec
from alpha_matrix.core.backends.retry import RetryPolicy, exchange
from alpha_matrix.core.backends.served import parse_extra_body
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.registry import suite as suite_named


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def _cut(body: dict, finish: str = "length") -> Reply:
    return Reply(200, {**body, "choices": [{**body["choices"][0], "finish_reason": finish}]})


# ----------------------------------------------------------------------------- the deadline
class _SlowTime(FakeTime):
    """Every request takes ``each`` seconds of the fake clock and times out."""

    def __init__(self, each: float) -> None:
        super().__init__()
        self.each, self.timeouts = each, []

    def send(self, left: float | None):  # noqa: ANN201
        import httpx

        self.timeouts.append(left)
        self.now += min(self.each, left if left is not None else self.each)
        raise httpx.ReadTimeout("timed out")


def test_the_deadline_bounds_every_attempt_and_the_waits_between_them():
    t = _SlowTime(each=50.0)
    policy = RetryPolicy(max_attempts=4, backoff_s=10.0, max_backoff_s=10.0, deadline_s=120.0)
    with pytest.raises(InfrastructureAbort, match="no answer within the deadline of 120 s") as err:
        exchange(t.send, lambda p: p, what="slow", policy=policy, sleep=t.sleep, clock=t.clock)
    # 50 s timeout, 10 s wait, a 60 s attempt times out at 50 s: 10 s are left, as long as the next
    # wait, so no third attempt is sent (it would start at the deadline)
    assert (t.timeouts, t.sleeps) == ([120.0, 60.0], [10.0])
    assert [a.outcome for a in err.value.attempts] == ["timeout"] * len(t.timeouts)
    assert t.now - 100.0 <= 120.0 + 1e-9  # never past the deadline


def test_without_a_deadline_the_attempts_bound_the_exchange():
    t = _SlowTime(each=5.0)
    with pytest.raises(InfrastructureAbort, match="no answer after 4 attempts"):
        exchange(t.send, lambda p: p, what="slow", policy=RetryPolicy(), sleep=t.sleep, clock=t.clock)
    assert t.timeouts == [None] * 4


def test_a_decision_over_the_deadline_is_an_abort_of_that_decision(server):
    """Real HTTP, real clock: a server that holds its answer past a 1.5 s deadline."""
    server.script("/v1/chat/completions", Reply(200, {}, hold=True))
    backend = OpenAIAgent("m", base_url=server.url + "/v1", timeout_s=60.0, policy=RetryPolicy(deadline_s=1.5))
    t0 = time.monotonic()
    with backend, pytest.raises(InfrastructureAbort, match="no answer within the deadline of 2 s") as err:
        backend.answer(_obs(), PROMPT, 0)  # Agent.decide makes this an abort decision (test_agent_core)
    server.release.set()
    assert [a.outcome for a in err.value.attempts] == ["timeout"]  # one attempt, cut to the deadline
    assert 1.4 < time.monotonic() - t0 < 5.0


def test_agent_params_reach_the_served_backends():
    params = AgentParams(agent="openai:m", decide_timeout_s=90.0, max_tokens=64, extra_body='{"top_k": 5}')
    backend = backend_for(parse_agent_spec("openai:m", "agent"), params, suite_named)
    assert (backend.policy.deadline_s, backend.max_tokens, backend.extra) == (90.0, 64, {"top_k": 5})
    backend.close()
    ollama = backend_for(parse_agent_spec("ollama:m", "agent"), params, suite_named)
    assert (ollama.policy.deadline_s, ollama.max_tokens) == (90.0, 64)
    ollama.close()


# ----------------------------------------------------------------------------- the cap
def test_openai_sends_the_cap_and_a_cut_answer_is_a_truncated_decision(server):
    server.script("/v1/chat/completions", _cut(OPENAI_OK.body))
    with OpenAIAgent("m", base_url=server.url + "/v1", max_tokens=64) as backend:
        decision = decide(TOOLS, backend.answer(_obs(), PROMPT, 0))
    assert server.to("/v1/chat/completions")[0].body["max_tokens"] == 64
    assert decision.kind == "invalid" and decision.invalid == "truncated"
    assert decision.invalid_detail.startswith("the answer was cut at max_tokens=64")


def test_a_whole_answer_under_the_cap_is_judged_as_usual(server):
    server.script("/v1/chat/completions", OPENAI_OK)
    with OpenAIAgent("m", base_url=server.url + "/v1", max_tokens=64) as backend:
        decision = decide(TOOLS, backend.answer(_obs(), PROMPT, 0))
    assert decision.kind == "tool_call" and decision.call is not None and decision.call.name == "stop_robot"


def test_ollama_sends_the_cap_as_num_predict_and_extra_body_as_options(server):
    server.script("/api/tags", TAGS)
    server.script("/api/chat", Reply(200, {**OLLAMA_OK.body, "done_reason": "length"}))
    with OllamaAgent("qwen2.5vl:7b", host=server.url, max_tokens=32, extra_body='{"num_ctx": 8192}') as backend:
        decision = decide(TOOLS, backend.answer(_obs(), PROMPT, 0))
    body = server.to("/api/chat")[0].body
    assert body["options"] == {"num_ctx": 8192, "temperature": 0, "seed": 0, "num_predict": 32}
    assert decision.invalid == "truncated"


def test_a_cut_answer_is_truncated_even_when_what_came_before_parses():
    raw = RawAnswer(
        text='{"tool": "continue_task", "arguments": {}}',
        tool_calls=(RawToolCall(name="continue_task"),),
        provenance=AgentProvenance(backend="openai"),
        truncated=True,
    )
    d = decide(_obs().tools, raw)
    assert d.kind == "invalid" and d.invalid == "truncated" and "the server's completion cap" in d.invalid_detail


# ----------------------------------------------------------------------------- extra_body
def test_extra_body_is_merged_into_the_request_and_cannot_override_the_records_terms(server):
    server.script("/v1/chat/completions", OPENAI_OK)
    extra = '{"reasoning_effort": "low", "chat_template_kwargs": {"enable_thinking": false}}'
    with OpenAIAgent("m", base_url=server.url + "/v1", extra_body=extra) as backend:
        backend.answer(_obs(), PROMPT, seed=3)
    body = server.to("/v1/chat/completions")[0].body
    assert body["reasoning_effort"] == "low" and body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["seed"] == 3 and body["temperature"] == 0
    for bad, why in (
        ('{"seed": 1}', "seed set by alpha_matrix itself"),
        ('{"max_tokens": 9, "temperature": 1}', "max_tokens, temperature set by alpha_matrix itself"),
        ("[1]", "must be a JSON object, got a list"),
        ("{nope", "extra_body is not JSON"),
        ('{"x": NaN}', "NaN is not JSON"),
    ):
        with pytest.raises(ConfigError, match=why):
            parse_extra_body(bad)
    assert parse_extra_body("  ") == {}


def test_agent_params_refuse_a_bad_extra_body_in_one_line():
    with pytest.raises(ValueError, match="extra_body: seed set by alpha_matrix itself"):
        AgentParams(extra_body='{"seed": 1}')


def test_extra_body_given_as_a_mapping_is_kept_as_canonical_json():
    from alpha_matrix.cli.common import parse_sets

    value = parse_sets(['agent.extra_body={"reasoning_effort": "low", "a": 1}'])["agent"]["extra_body"]
    assert AgentParams(extra_body=value).extra_body == '{"a": 1, "reasoning_effort": "low"}'


# ----------------------------------------------------------------------------- is the model served?
def test_an_openai_model_the_server_does_not_list_is_one_line_before_any_decision(server):
    from alpha_matrix.core.agent.agent import ready_backend
    from alpha_matrix.core.backends.errors import ModelNotFoundError

    server.script("/v1/models", Reply(200, {"object": "list", "data": [{"id": "gemma3-270m"}, {"id": "qwen"}]}))
    params = AgentParams(agent="openai:gemma3-27m", openai_base_url=server.url + "/v1")
    with pytest.raises(
        ModelNotFoundError, match="model 'gemma3-27m' is not served at .* \\(it serves: gemma3-270m, qwen\\)"
    ):
        ready_backend(parse_agent_spec(params.agent, "agent"), params, suite_named)
    ready_backend(parse_agent_spec("openai:qwen", "agent"), params, suite_named).close()  # listed: ready
    server.script("/v1/models", Reply(404, {"error": "no such endpoint"}))  # a server without the listing
    ready_backend(parse_agent_spec("openai:anything", "agent"), params, suite_named).close()
