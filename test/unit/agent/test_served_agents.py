"""The Ollama and OpenAI-compatible agents over real HTTP (scripted_http): request shape, native
tool calls reaching the RawAnswer, provenance, every attempt recorded, infrastructure aborts
apart from answers, and the API key nowhere but in the Authorization header."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest
from scripted_http import FakeTime, Reply, ScriptedServer, closed_port_url

from alpha_matrix.core.agent.ollama import OllamaAgent
from alpha_matrix.core.agent.openai import OpenAIAgent
from alpha_matrix.core.agent.protocol import AgentPrompt, Image, InfrastructureAbort, Observation, RawToolCall, Tool
from alpha_matrix.core.backends.errors import ModelNotFoundError, ServerAnswerError
from alpha_matrix.core.backends.retry import RetryPolicy
from alpha_matrix.core.errors import ConfigError

DIGEST = "sha256:" + "cd" * 32
KEY = "sk-test-7f3a9c1e5b2d4f6a8c0e"
PNG_B64 = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(32))).decode()

TOOLS = (
    Tool(
        name="stop_robot",
        description="Stop the arm now.",
        parameters={"type": "object", "properties": {"reason": {"type": "string"}}, "required": ["reason"]},
    ),
    Tool(name="continue_task", description="Carry on."),
)
PROMPT = AgentPrompt(
    system="You supervise a robot arm.",
    user="A person is 0.4 m from the gripper. Decide.",
    template_sha256="ef" * 32,
    template_version="agent_proximity_v1",
)
TAGS = Reply(200, {"models": [{"name": "qwen2.5vl:7b", "model": "qwen2.5vl:7b", "digest": DIGEST}]})
OLLAMA_MESSAGE = {
    "role": "assistant",
    "content": "",
    "tool_calls": [{"function": {"name": "stop_robot", "arguments": {"reason": "person within 0.5 m"}}}],
}
OLLAMA_OK = Reply(
    200,
    {
        "model": "qwen2.5vl:7b",
        "created_at": "2025-01-01T00:00:00Z",
        "message": OLLAMA_MESSAGE,
        "done": True,
        "prompt_eval_count": 311,
        "eval_count": 24,
    },
)
OPENAI_MESSAGE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "stop_robot", "arguments": '{"reason": "person within 0.5 m"}'},
        }
    ],
}
OPENAI_OK = Reply(
    200,
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_0123abcd",
        "choices": [{"index": 0, "message": OPENAI_MESSAGE, "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 290, "completion_tokens": 31, "total_tokens": 321},
    },
)


def _obs(images: bool = False) -> Observation:
    return Observation(
        suite="proximity",
        episode_id="proximity-0001",
        step=480,
        decision_index=0,
        situation={"distance_m": 0.4},
        tools=TOOLS,
        images=(Image(kind="rgb", png_base64=PNG_B64, step=480),) if images else (),
    )


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


@pytest.fixture
def fake() -> FakeTime:
    return FakeTime()


def _ollama(url: str, fake: FakeTime, **kw) -> OllamaAgent:
    return OllamaAgent("qwen2.5vl:7b", host=url, timeout_s=5.0, sleep=fake.sleep, clock=fake.clock, **kw)


def _openai(url: str, fake: FakeTime, **kw) -> OpenAIAgent:
    kw.setdefault("timeout_s", 5.0)
    return OpenAIAgent("gpt-4o-mini", base_url=url + "/v1", sleep=fake.sleep, clock=fake.clock, **kw)


# ----------------------------------------------------------------------------- Ollama


def test_ollama_native_tool_call_reaches_the_answer_and_provenance(server, fake):
    server.script("/api/tags", TAGS)
    server.script("/api/chat", OLLAMA_OK)
    with _ollama(server.url, fake) as agent:
        answer = agent.answer(_obs(), PROMPT, seed=1234)
        agent.answer(_obs(), PROMPT, seed=1234)  # the digest is cached: one /api/tags in all

    body = server.to("/api/chat")[0].body
    assert body["model"] == "qwen2.5vl:7b" and body["stream"] is False
    assert body["options"] == {"temperature": 0, "seed": 1234}
    assert body["messages"] == [
        {"role": "system", "content": PROMPT.system},
        {"role": "user", "content": PROMPT.user},
    ]
    assert [t["function"]["name"] for t in body["tools"]] == ["stop_robot", "continue_task"]
    assert body["tools"][0] == {
        "type": "function",
        "function": {"name": "stop_robot", "description": TOOLS[0].description, "parameters": TOOLS[0].parameters},
    }
    assert len(server.to("/api/tags")) == 1

    assert answer.text == ""
    assert answer.tool_calls == (RawToolCall(name="stop_robot", arguments={"reason": "person within 0.5 m"}),)
    p = answer.provenance
    assert (p.backend, p.model, p.digest, p.seed) == ("ollama", "qwen2.5vl:7b", DIGEST, 1234)
    assert (p.prompt_tokens, p.completion_tokens, p.attempts, p.recorded) == (311, 24, 1, False)
    assert (p.template_sha256, p.template_version) == (PROMPT.template_sha256, PROMPT.template_version)
    assert json.loads(p.raw_text) == OLLAMA_MESSAGE  # exactly what the model said
    assert [(a.attempt, a.outcome, a.status) for a in answer.attempts] == [(1, "answered", 200)]


def test_ollama_sends_the_image_as_base64_with_the_user_message(server, fake):
    server.script("/api/tags", TAGS)
    server.script("/api/chat", OLLAMA_OK)
    with _ollama(server.url, fake) as agent:
        answer = agent.answer(_obs(images=True), PROMPT, seed=7)
    seen = server.to("/api/chat")[0]
    user = seen.body["messages"][-1]
    assert user["role"] == "user" and user["images"] == [PNG_B64]
    assert PNG_B64.encode() in seen.raw
    assert "images" not in seen.body["messages"][0]
    assert answer.tool_calls[0].name == "stop_robot"


def test_ollama_429_then_200_records_both_attempts(server, fake):
    server.script("/api/tags", TAGS)
    server.script("/api/chat", Reply(429, {"error": "server busy"}), OLLAMA_OK)
    with _ollama(server.url, fake) as agent:
        answer = agent.answer(_obs(), PROMPT, seed=1)
    assert answer.provenance.attempts == 2
    assert [(a.attempt, a.outcome, a.status) for a in answer.attempts] == [(1, "http_429", 429), (2, "answered", 200)]
    assert answer.provenance.latency_s == fake.sleeps[0] == 1.0
    assert answer.tool_calls[0].arguments == {"reason": "person within 0.5 m"}


def test_ollama_500_until_out_of_attempts_is_an_infrastructure_abort(server, fake):
    server.script("/api/tags", TAGS)
    server.script("/api/chat", Reply(500, {"error": "llama runner process has terminated"}))
    with _ollama(server.url, fake) as agent, pytest.raises(InfrastructureAbort) as info:
        agent.answer(_obs(), PROMPT, seed=1)
    attempts = info.value.attempts
    assert [(a.attempt, a.outcome, a.status) for a in attempts] == [(n, "http_5xx", 500) for n in (1, 2, 3, 4)]
    assert len(server.to("/api/chat")) == 4 and fake.sleeps == [1.0, 2.0, 4.0]
    assert str(info.value).startswith(f"Ollama at {server.url}: /api/chat: no answer after 4 attempts")
    assert "\n" not in str(info.value)


def test_ollama_unreachable_is_one_line_infrastructure_abort(fake):
    url = closed_port_url()
    with _ollama(url, fake, policy=RetryPolicy(max_attempts=3)) as agent, pytest.raises(InfrastructureAbort) as info:
        agent.answer(_obs(), PROMPT, seed=1)
    assert str(info.value).startswith(
        f"Ollama at {url}: /api/tags: no answer after 3 attempts (refused, refused, refused)"
    )
    assert "\n" not in str(info.value) and [a.outcome for a in info.value.attempts] == ["refused"] * 3


def test_ollama_model_not_pulled_is_one_line_without_a_chat(server, fake):
    server.script("/api/tags", Reply(200, {"models": [{"model": "llama3.1:latest", "digest": DIGEST}]}))
    with _ollama(server.url, fake) as agent, pytest.raises(ModelNotFoundError) as info:
        agent.answer(_obs(), PROMPT, seed=1)
    assert str(info.value) == f"model 'qwen2.5vl:7b' is not pulled on {server.url} (ollama pull qwen2.5vl:7b)"
    assert server.to("/api/chat") == []


def test_ollama_chat_404_is_not_pulled_without_retries(server, fake):
    server.script("/api/tags", TAGS)
    server.script("/api/chat", Reply(404, {"error": 'model "qwen2.5vl:7b" not found, try pulling it first'}))
    with _ollama(server.url, fake) as agent, pytest.raises(ModelNotFoundError, match="is not pulled on") as info:
        agent.answer(_obs(), PROMPT, seed=1)
    assert "\n" not in str(info.value) and len(server.to("/api/chat")) == 1 and fake.sleeps == []
    assert [(a.outcome, a.status) for a in info.value.attempts] == [("http_other", 404)]


def test_ollama_model_without_tool_support_is_a_one_line_error(server, fake):
    server.script("/api/tags", TAGS)
    server.script("/api/chat", Reply(400, {"error": "registry.ollama.ai/library/qwen2.5vl:7b does not support tools"}))
    with (
        _ollama(server.url, fake) as agent,
        pytest.raises(ServerAnswerError, match="HTTP 400: .* does not support tools"),
    ):
        agent.answer(_obs(), PROMPT, seed=1)
    assert len(server.to("/api/chat")) == 1


def test_ollama_untagged_name_matches_latest(server, fake):
    server.script("/api/tags", Reply(200, {"models": [{"model": "gemma3:latest", "digest": DIGEST}]}))
    with OllamaAgent("gemma3", host=server.url, sleep=fake.sleep, clock=fake.clock) as agent:
        assert agent.digest() == DIGEST


def test_ollama_host_from_environment(monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:1")
    with OllamaAgent("m") as agent:
        assert agent.host == "http://127.0.0.1:1"
    with pytest.raises(ConfigError, match="model name is empty"):
        OllamaAgent("")


# ----------------------------------------------------------------------------- OpenAI-compatible


def test_openai_tool_call_with_key_only_in_the_authorization_header(server, fake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.script("/v1/chat/completions", OPENAI_OK)
    with _openai(server.url, fake, max_tokens=256) as agent:
        answer = agent.answer(_obs(), PROMPT, seed=99)

    seen = server.to("/v1/chat/completions")[0]
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert KEY.encode() not in seen.raw  # the key is in the header, not the body
    body = seen.body
    assert (body["model"], body["tool_choice"], body["temperature"], body["seed"]) == ("gpt-4o-mini", "auto", 0, 99)
    assert body["max_tokens"] == 256
    assert body["messages"] == [
        {"role": "system", "content": PROMPT.system},
        {"role": "user", "content": PROMPT.user},
    ]
    assert [t["type"] for t in body["tools"]] == ["function", "function"]
    assert body["tools"][0]["function"]["parameters"] == TOOLS[0].parameters

    assert answer.text == ""
    assert answer.tool_calls == (RawToolCall(name="stop_robot", arguments='{"reason": "person within 0.5 m"}'),)
    p = answer.provenance
    assert (p.backend, p.model, p.digest, p.seed) == ("openai", "gpt-4o-mini-2024-07-18", "fp_0123abcd", 99)
    assert (p.prompt_tokens, p.completion_tokens, p.attempts) == (290, 31, 1)
    assert json.loads(p.raw_text) == OPENAI_MESSAGE
    assert KEY not in answer.model_dump_json() and KEY[-8:] not in answer.model_dump_json()
    assert KEY not in repr(agent) and KEY not in repr(vars(agent))


def test_openai_without_a_key_sends_no_authorization(server, fake, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.script("/v1/chat/completions", OPENAI_OK)
    with _openai(server.url, fake) as agent:
        agent.answer(_obs(), PROMPT, seed=0)
    assert "authorization" not in server.to("/v1/chat/completions")[0].headers


def test_openai_reads_the_key_from_the_configured_variable(server, fake, monkeypatch):
    monkeypatch.setenv("LOCAL_VLLM_KEY", KEY)
    server.script("/v1/chat/completions", OPENAI_OK)
    with _openai(server.url, fake, api_key_env="LOCAL_VLLM_KEY") as agent:
        agent.answer(_obs(), PROMPT, seed=0)
    assert server.to("/v1/chat/completions")[0].headers["authorization"] == f"Bearer {KEY}"


def test_a_key_given_as_the_variable_name_is_refused_without_echo(fake):
    with pytest.raises(ConfigError, match="api_key_env must be the name of an environment variable") as info:
        _openai("http://127.0.0.1:1", fake, api_key_env=KEY)
    assert KEY not in str(info.value)


def test_openai_sends_images_as_data_uri_content_parts(server, fake, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.script("/v1/chat/completions", OPENAI_OK)
    with _openai(server.url, fake) as agent:
        agent.answer(_obs(images=True), PROMPT, seed=0)
    user = server.to("/v1/chat/completions")[0].body["messages"][-1]
    assert user["content"] == [
        {"type": "text", "text": PROMPT.user},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}},
    ]


def test_openai_text_answer_and_no_fingerprint(server, fake, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    message = {"role": "assistant", "content": "I will stop the robot."}
    server.script("/v1/chat/completions", Reply(200, {"model": "local", "choices": [{"index": 0, "message": message}]}))
    with _openai(server.url, fake) as agent:
        answer = agent.answer(_obs(), PROMPT, seed=0)
    assert (answer.text, answer.tool_calls) == ("I will stop the robot.", ())
    p = answer.provenance
    assert (p.digest, p.prompt_tokens, p.completion_tokens, p.model) == ("", 0, 0, "local")


def test_openai_429_then_200_and_5xx_until_out_never_leak_the_key(server, fake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    echo = {"error": {"message": f"upstream rejected Bearer {KEY}"}}
    server.script("/v1/chat/completions", Reply(429, echo, {"Retry-After": "2"}), OPENAI_OK)
    with _openai(server.url, fake) as agent:
        answer = agent.answer(_obs(), PROMPT, seed=0)
        assert [(a.outcome, a.status) for a in answer.attempts] == [("http_429", 429), ("answered", 200)]
        assert answer.provenance.attempts == 2 and fake.sleeps == [2.0]
        assert KEY not in answer.model_dump_json() and "[redacted]" in answer.attempts[0].detail

        server.script("/v1/chat/completions", Reply(502, echo))
        with pytest.raises(InfrastructureAbort) as info:
            agent.answer(_obs(), PROMPT, seed=0)
    assert [(a.outcome, a.status) for a in info.value.attempts] == [("http_5xx", 502)] * 4
    assert KEY not in str(info.value) and all(KEY not in a.model_dump_json() for a in info.value.attempts)
    assert all(r.headers["authorization"] == f"Bearer {KEY}" for r in server.to("/v1/chat/completions"))


def test_openai_401_is_one_line_and_never_repeats_the_body(server, fake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    masked = KEY[:6] + "*" * 10 + KEY[-4:]
    server.script("/v1/chat/completions", Reply(401, {"error": {"message": f"Incorrect API key provided: {masked}"}}))
    with (
        _openai(server.url, fake) as agent,
        pytest.raises(ServerAnswerError, match="HTTP 401: authentication refused") as info,
    ):
        agent.answer(_obs(), PROMPT, seed=0)
    assert masked not in str(info.value) and masked not in info.value.attempts[0].detail
    assert len(server.to("/v1/chat/completions")) == 1


def test_openai_404_is_model_not_found(server, fake, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    server.script("/v1/chat/completions", Reply(404, {"error": {"message": "The model `gpt-4o-mini` does not exist"}}))
    with _openai(server.url, fake) as agent, pytest.raises(ModelNotFoundError) as info:
        agent.answer(_obs(), PROMPT, seed=0)
    assert str(info.value).startswith(f"model 'gpt-4o-mini' not found at {server.url}/v1")
    assert "does not exist" in str(info.value) and len(server.to("/v1/chat/completions")) == 1


def test_openai_refused_is_an_infrastructure_abort(fake, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with _openai(closed_port_url(), fake, policy=RetryPolicy(max_attempts=2)) as agent:
        with pytest.raises(InfrastructureAbort, match="no answer after 2 attempts \\(refused, refused\\)"):
            agent.answer(_obs(), PROMPT, seed=0)


def test_openai_bad_base_url_is_a_config_error(fake):
    with pytest.raises(ConfigError, match="base_url must be an http"):
        OpenAIAgent("m", base_url="localhost:8000/v1")


def test_a_key_at_the_cut_of_a_long_error_is_scrubbed_before_the_cut(server, fake, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.script("/v1/chat/completions", Reply(503, {"error": {"message": "x" * 180 + KEY + " y" * 50}}))
    with _openai(server.url, fake, policy=RetryPolicy(max_attempts=1)) as agent:
        with pytest.raises(InfrastructureAbort) as info:
            agent.answer(_obs(), PROMPT, seed=0)
    detail = info.value.attempts[0].detail
    assert len(detail) <= 200 and KEY[:8] not in detail and KEY[:8] not in str(info.value)
