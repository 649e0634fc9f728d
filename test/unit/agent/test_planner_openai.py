"""The matrix planner's ``openai`` backend (core/backends/openai.py) over real HTTP.

Here beside the agent's tests because it shares their scripted server (scripted_http) and the
retry and key handling of the agent's (ChatCompletions, core/backends/openai.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from scripted_http import FakeTime, Reply, ScriptedServer

from alpha_matrix.core.backends.errors import BackendError, InfrastructureAbort, ModelNotFoundError, ServerAnswerError
from alpha_matrix.core.backends.openai import OpenAIBackend
from alpha_matrix.core.backends.registry import make_backend
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.node_params import validate_params
from alpha_matrix.core.outcome import ZONE
from alpha_matrix.core.planning.llm_planner import LLMPlanner, build_backend
from alpha_matrix.core.planning.oracle import oracle_plan
from alpha_matrix.core.planning.params import LLMPlannerParams
from alpha_matrix.core.planning.plan import generation_schema, plan_to_text
from alpha_matrix.core.planning.prompt import load_prompt, render

PROMPT = Path(__file__).resolve().parents[3] / "config" / "prompts" / "pick_place_v1.yaml"
SCENE = {"red": (0.5, -0.1, 0.645)}
TASK = "pick the red block and place it in the zone"
PLAN = plan_to_text(oracle_plan("red", SCENE["red"], ZONE))
KEY = "sk-planner-0a1b2c3d4e5f"
PATH = "/v1/chat/completions"


def _completion(text: str) -> Reply:
    return Reply(
        200,
        {
            "model": "qwen2.5-7b-instruct",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 400, "completion_tokens": 120},
        },
    )


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def _backend(url: str, fake: FakeTime, **kw) -> OpenAIBackend:
    return OpenAIBackend(
        model="qwen2.5-7b-instruct", base_url=url + "/v1", timeout_s=5.0, sleep=fake.sleep, clock=fake.clock, **kw
    )


def test_plan_text_with_schema_seed_and_provenance(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    fake = FakeTime()
    server.script(PATH, Reply(503, {"error": "loading model"}), _completion(PLAN))
    backend = _backend(server.url, fake)
    planner = LLMPlanner(backend, load_prompt(PROMPT))
    reply = planner.plan_text("ep-1", TASK, SCENE, ZONE, seed=321)

    body = server.to(PATH)[-1].body
    assert (body["model"], body["temperature"], body["seed"]) == ("qwen2.5-7b-instruct", 0, 321)
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "plan", "schema": generation_schema(), "strict": False},
    }
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert server.to(PATH)[-1].headers["authorization"] == f"Bearer {KEY}"

    assert reply.text == PLAN and reply.recorded is False
    assert (reply.backend, reply.model, reply.digest, reply.seed) == ("openai", "qwen2.5-7b-instruct", "", 321)
    assert (reply.prompt_tokens, reply.completion_tokens) == (400, 120)
    assert reply.latency_s == 1.0 and fake.sleeps == [1.0]  # the 503 was retried after the backoff
    assert reply.template_version == "pick_place_v1"
    assert KEY not in repr(reply)
    backend.close()


def test_no_answer_is_a_backend_error_carrying_every_attempt(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.script(PATH, Reply(500, {"error": {"message": f"crashed while serving {KEY}"}}))
    backend = _backend(server.url, FakeTime())
    with pytest.raises(InfrastructureAbort, match="no answer after 4 attempts") as info:
        backend.generate(render(load_prompt(PROMPT), TASK, SCENE, ZONE), generation_schema(), seed=1)
    assert isinstance(info.value, BackendError)  # the node reports it as unavailable: no plan, no model failure
    assert [a.outcome for a in info.value.attempts] == ["http_5xx"] * 4
    assert KEY not in str(info.value) and "\n" not in str(info.value)
    backend.close()


def test_missing_model_and_bad_request_are_one_line_backend_errors(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    prompt = render(load_prompt(PROMPT), TASK, SCENE, ZONE)
    backend = _backend(server.url, FakeTime())
    server.script(PATH, Reply(404, {"error": {"message": "model not found"}}))
    with pytest.raises(ModelNotFoundError, match="model 'qwen2.5-7b-instruct' not found at"):
        backend.generate(prompt, generation_schema(), seed=1)
    server.script(PATH, Reply(400, {"error": {"message": "response_format json_schema is not supported"}}))
    with pytest.raises(ServerAnswerError, match="HTTP 400: response_format json_schema is not supported"):
        backend.generate(prompt, generation_schema(), seed=1)
    assert len(server.to(PATH)) == 2  # neither was retried
    backend.close()


@pytest.mark.parametrize(("kind", "expected"), [("json_object", {"type": "json_object"}), ("none", None)])
def test_response_format_choices(server, kind, expected):
    server.script(PATH, _completion("{}"))
    backend = _backend(server.url, FakeTime(), response_format=kind, api_key_env="")
    backend.generate(render(load_prompt(PROMPT), TASK, SCENE, ZONE), generation_schema(), seed=1)
    assert server.to(PATH)[0].body.get("response_format") == expected
    backend.close()


def test_registered_and_built_from_the_planner_params(server):
    backend = make_backend("openai", model="m", base_url=server.url + "/v1", api_key_env="")
    assert isinstance(backend, OpenAIBackend) and backend.name == "openai"
    backend.close()
    params = LLMPlannerParams(backend="openai", openai_model="m", openai_base_url=server.url + "/v1")
    built = build_backend(params)
    assert isinstance(built, OpenAIBackend) and built.base_url == server.url + "/v1"
    built.close()
    with pytest.raises(ConfigError, match="model name is empty"):
        build_backend(LLMPlannerParams(backend="openai"))
    with pytest.raises(ConfigError, match="response_format must be one of"):
        make_backend("openai", model="m", response_format="grammar")


def test_params_refuse_a_key_where_the_variable_name_goes_without_echo():
    params = {"backend": "openai", "openai_model": "m", "openai_api_key_env": KEY}
    with pytest.raises(ConfigError, match="params.yaml: openai_api_key_env: String should match") as info:
        validate_params("llm_planner", params, "params.yaml")
    assert KEY not in str(info.value)


# llama_cpp.server's answer to the default json_schema response_format, as it gave it (HTTP 500,
# FastAPI's request validation; measured against the real server, docs/real-model-server.md).
LLAMA_CPP_REFUSAL = (
    "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': "
    "\"'text' or 'json_object'\"}}"
)


def test_a_refused_response_format_is_not_retried_and_names_the_setting(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.script(PATH, Reply(500, {"error": {"message": LLAMA_CPP_REFUSAL}}), _completion(PLAN))
    fake = FakeTime()
    backend = _backend(server.url, fake)
    with pytest.raises(ServerAnswerError, match=r"--set llm_planner.openai_response_format=json_object") as err:
        backend.generate(render(load_prompt(PROMPT), TASK, SCENE, ZONE), generation_schema(), seed=1)
    assert len(server.to(PATH)) == 1 and fake.sleeps == []  # the same body would be refused again
    assert [a.outcome for a in err.value.attempts] == ["http_other"]
    backend.close()


def test_a_5xx_that_is_not_a_refused_request_is_still_retried(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server.script(PATH, Reply(500, {"error": {"message": "CUDA out of memory"}}), _completion(PLAN))
    fake = FakeTime()
    backend = _backend(server.url, fake, response_format="json_object")
    reply = backend.generate(render(load_prompt(PROMPT), TASK, SCENE, ZONE), generation_schema(), seed=1)
    assert reply.text == PLAN and len(server.to(PATH)) == 2
    backend.close()
