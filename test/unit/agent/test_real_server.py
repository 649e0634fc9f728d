"""The openai backends (agent and planner) against a real OpenAI-compatible server:
``llama_cpp.server`` serving the embedded Gemma 3 270M on 127.0.0.1 (``model_server``,
test/model_server.py), in its two forms: native tool calls and plain text.

The scripted server (scripted_http) stays the double for the error paths; here is what a real
server answers: the model id it names, its usage counts, a cap that holds or is ignored, a cut
answer, the legacy ``function_call`` next to ``tool_calls``, an ``extra_body`` that reaches it,
and the planner's ``response_format`` it refuses. What differs from the double is written down
in docs/real-model-server.md. Each answer is capped at a few dozen tokens (a few seconds)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from alpha_matrix.core.agent.agent import Agent
from alpha_matrix.core.agent.llamacpp import tool_call_schema
from alpha_matrix.core.agent.openai import OpenAIAgent
from alpha_matrix.core.agent.prompts import render as agent_prompt
from alpha_matrix.core.agent.protocol import Decision, Observation
from alpha_matrix.core.backends.errors import ServerAnswerError
from alpha_matrix.core.backends.openai import OpenAIBackend
from alpha_matrix.core.outcome import ZONE
from alpha_matrix.core.planning.llm_planner import LLMPlanner
from alpha_matrix.core.planning.plan import generation_schema
from alpha_matrix.core.planning.prompt import load_prompt, render
from alpha_matrix.core.suites.alerts.guard import AlertEvent
from alpha_matrix.core.suites.alerts.plugin import SUITE as ALERTS
from alpha_matrix.core.suites.alerts.scenarios import load_alert_scenarios
from alpha_matrix.core.suites.alerts.situation import AlertsEvent, AlertsRobotView, alerts_situation, observation
from model_server import FORMS, MODEL_ID, ModelServer

PLAN_PROMPT = Path(__file__).resolve().parents[3] / "config" / "prompts" / "pick_place_v1.yaml"
SCENE = {"red": (0.5, -0.1, 0.645)}
TASK = "pick the red block and place it in the zone"
CAP = 64
SEED = 7


def _alert_observation() -> Observation:
    """A shipped scenario's first alert as the guard asks about it (a critical actuator fault)."""
    sc = next(s for s in load_alert_scenarios() if s.name == "actuator_fault_lift")
    a = sc.alerts[0]
    sit = alerts_situation(
        [AlertEvent(a, a.at_step, False)],
        AlertsEvent(kind="alert", step=a.at_step, alert_id=a.alert_id),
        AlertsRobotView(stopped=False),
        "pick and place",
    )
    return observation(sit, "alerts-0001", 0)


OBS = _alert_observation()
NAMES = {t.name for t in OBS.tools}


def _agent(server: ModelServer, **kw) -> OpenAIAgent:
    return OpenAIAgent(MODEL_ID, base_url=server.base_url, api_key_env="", timeout_s=120.0, **kw)


def _decide(server: ModelServer, **kw) -> Decision:
    backend = _agent(server, **kw)
    try:
        return Agent(backend, ALERTS, seed=SEED).decide(OBS)
    finally:
        backend.close()


@pytest.mark.parametrize("form", FORMS)
def test_the_agent_decides_on_the_real_server_with_its_model_id_and_cap(model_server, form):
    server = model_server(form)
    assert server.model_ids() == [MODEL_ID]
    d = _decide(server, max_tokens=CAP)
    p = d.provenance
    assert d.kind != "abort", d.message
    assert (p.backend, p.model, p.attempts, p.recorded, p.seed) == ("openai", MODEL_ID, 1, False, SEED)
    assert p.digest == ""  # no system_fingerprint in its answers
    assert p.prompt_tokens > 0 and p.completion_tokens > 0 and p.latency_s > 0
    # The cap holds in the text form (below); the tools form ignores max_tokens (its handler runs
    # every internal completion uncapped: docs/real-model-server.md), so no bound is asserted there.
    assert [(a.outcome, a.status) for a in d.attempts] == [("answered", 200)]
    message = json.loads(p.raw_text)  # the assistant message as the server sent it
    if form == "tools":
        assert d.kind == "tool_call" and d.call is not None and d.call.name in NAMES, d.invalid_detail
        assert message["content"] is None
        (call,) = message["tool_calls"]
        assert call["type"] == "function" and call["function"]["name"] == d.call.name
        assert isinstance(call["function"]["arguments"], str)  # a JSON string, not an object
        # control characters inside strings (a raw newline) are taken, as the agent reads them (decide.py)
        assert json.loads(call["function"]["arguments"], strict=False) == d.call.arguments
        assert "function_call" in message  # the legacy field as well; tool_calls is what counts
    else:
        assert "tool_calls" not in message and message["content"]
        # The base 270M model continues the prompt instead of answering: it runs to the cap.
        assert (d.kind, d.invalid, p.completion_tokens) == ("invalid", "truncated", CAP), p.raw_text
    again = _decide(server, max_tokens=CAP)  # greedy: the same request gets the same decision
    assert (again.kind, again.call, again.invalid) == (d.kind, d.call, d.invalid)


def test_a_cut_text_answer_is_a_truncated_decision(model_server):
    d = _decide(model_server("text"), max_tokens=8)
    assert (d.kind, d.invalid, d.provenance.completion_tokens) == ("invalid", "truncated", 8), d.provenance.raw_text
    assert "cut at max_tokens=8" in d.invalid_detail
    assert json.loads(d.provenance.raw_text)["content"]  # the text it had so far is kept


def test_the_tool_call_form_ignores_the_cap_and_never_says_length(model_server):
    """llama-cpp-python 0.3.36's chatml-function-calling runs every step of a tool call with
    max_tokens=None: the request's cap does not bound it and finish_reason is "tool_calls".

    One round trip (a tool call is this server's slowest answer): the agent's own request, the
    server's reply to it as it came over the wire, and the decision the agent made of that reply."""
    server = model_server("tools")
    backend = _agent(server, max_tokens=4)
    exchanged: list[tuple[dict, dict]] = []

    def keep(response: httpx.Response) -> None:  # the wire: what was sent, what came back
        response.read()
        exchanged.append((json.loads(response.request.content), response.json()))

    backend._client.event_hooks = {**backend._client.event_hooks, "response": [keep]}
    try:
        d = Agent(backend, ALERTS, seed=SEED).decide(OBS)
        expected = backend.request(OBS, agent_prompt(OBS, ALERTS), SEED)
    finally:
        backend.close()
    ((body, reply),) = exchanged  # one attempt, answered
    assert body == expected and body["max_tokens"] == 4
    choice = reply["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["tool_calls"]
    assert reply["usage"]["completion_tokens"] > 4
    assert d.kind == "tool_call" and d.invalid is None  # not cut: nothing told the client it was


def test_extra_body_reaches_the_server_a_grammar_makes_the_text_a_tool_call(model_server):
    """``agent.extra_body`` is merged into the request: llama.cpp's own ``grammar`` field (the GBNF
    of the offered calls, as the embedded backend decodes under) turns the text form's echo into
    one valid call, parsed from text by the agent as any text answer."""
    from llama_cpp import LlamaGrammar

    gbnf = LlamaGrammar.from_json_schema(json.dumps(tool_call_schema(OBS.tools)), verbose=False)._grammar
    d = _decide(model_server("text"), max_tokens=CAP, extra_body=json.dumps({"grammar": gbnf}))
    assert d.kind == "tool_call" and d.call is not None and d.call.name in NAMES, d.provenance.raw_text
    text = json.loads(d.provenance.raw_text)["content"]
    assert json.loads(text) == {"tool": d.call.name, "arguments": d.call.arguments}
    assert d.provenance.completion_tokens <= CAP


@pytest.mark.parametrize("form", FORMS)
def test_the_planner_writes_its_plan_text_on_the_real_server(model_server, form):
    server = model_server(form)
    backend = OpenAIBackend(
        model=MODEL_ID, base_url=server.base_url, api_key_env="", response_format="json_object", max_tokens=CAP
    )
    try:
        reply = LLMPlanner(backend, load_prompt(PLAN_PROMPT)).plan_text("llm-0000", TASK, SCENE, ZONE, seed=SEED)
    finally:
        backend.close()
    assert (reply.backend, reply.model, reply.digest, reply.seed, reply.recorded) == (
        "openai",
        MODEL_ID,
        "",
        SEED,
        False,
    )
    assert reply.prompt_tokens > 0 and 0 < reply.completion_tokens <= CAP and reply.latency_s > 0
    assert reply.text.lstrip().startswith("{")  # json_object: the server decodes under a JSON grammar
    assert reply.template_version == "pick_place_v1"


def test_the_planners_default_json_schema_format_is_refused_by_this_server(model_server):
    """llama_cpp.server takes ``response_format`` types "text" and "json_object" only; the
    planner's default "json_schema" gets HTTP 500 (its request validation). The same body would be
    refused again, so it is not retried (the default policy's four attempts: one is made), and the
    one line names the setting that works with this server."""
    server = model_server("text")
    backend = OpenAIBackend(model=MODEL_ID, base_url=server.base_url, api_key_env="", max_tokens=CAP)
    prompt = render(load_prompt(PLAN_PROMPT), TASK, SCENE, ZONE)
    try:
        with pytest.raises(ServerAnswerError) as info:
            backend.generate(prompt, generation_schema(), seed=SEED)
    finally:
        backend.close()
    assert [(a.outcome, a.status) for a in info.value.attempts] == [("http_other", 500)]
    assert "literal_error" in str(info.value)
    assert "--set llm_planner.openai_response_format=json_object" in str(info.value)
    assert "\n" not in str(info.value)
