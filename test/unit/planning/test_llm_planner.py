"""The LLM planner core: generation schema, re-asks, backend choice, recorded replies, llama.cpp.

The llama.cpp tests run the real embedded model (Gemma 3 270M from PyPI) with a short token
cap so they stay fast; graph tests run it with the configured cap through the nodes.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from alpha_matrix.core.backends.answers import LLMReply
from alpha_matrix.core.backends.errors import GGUFError, ModelNotFoundError, ReplayError
from alpha_matrix.core.backends.llamacpp import LlamaCppBackend, check_gguf
from alpha_matrix.core.backends.replay import ReplayBackend
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.outcome import ZONE
from alpha_matrix.core.planning.guards import parse_plan_text
from alpha_matrix.core.planning.llm_planner import LLMPlanner, build_backend, concrete_backend
from alpha_matrix.core.planning.oracle import oracle_plan
from alpha_matrix.core.planning.params import LLMPlannerParams
from alpha_matrix.core.planning.plan import generation_schema, plan_to_text
from alpha_matrix.core.planning.prompt import RenderedPrompt, load_prompt, render
from alpha_matrix.core.planning.replay import load_recorded_replies

PROMPT = Path(__file__).resolve().parents[3] / "config" / "prompts" / "pick_place_v1.yaml"
SCENE = {"red": (0.5, -0.1, 0.645), "green": (0.4, 0.2, 0.645)}
TASK = "pick the red block and place it in the zone"
GOOD = plan_to_text(oracle_plan("red", SCENE["red"], ZONE))


class ScriptedBackend:
    """A test double for a model: answers with the given texts in order, logging the prompts."""

    name = "scripted"

    def __init__(self, *texts: str) -> None:
        self.texts, self.prompts = list(texts), []

    def generate(self, prompt: RenderedPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
        self.prompts.append(prompt)
        return LLMReply(self.texts.pop(0), "scripted", "m", "d", 100, 10, 0.5, seed, recorded=False)


def _walk(node: object):
    if isinstance(node, dict):
        yield node
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


def test_generation_schema_is_self_contained():
    schema = generation_schema()
    keys = {k for d in _walk(schema) for k in d}
    assert not keys & {"$ref", "$defs", "discriminator", "title", "description"}
    items = schema["properties"]["steps"]["items"]["oneOf"]
    assert {i["properties"]["action"]["const"] for i in items} == {"MOVE_TO", "GRIP", "RELEASE"}
    assert schema["properties"]["steps"]["maxItems"] == 16 and schema["additionalProperties"] is False


def test_planner_fills_template_provenance_and_never_reasks_by_default():
    backend = ScriptedBackend("not json")
    planner = LLMPlanner(backend, load_prompt(PROMPT))
    reply = planner.plan_text("llm-0000", TASK, SCENE, ZONE, seed=5)
    assert reply.text == "not json" and reply.attempts == 1 and len(backend.prompts) == 1
    assert reply.template_sha256 == load_prompt(PROMPT).sha256 and reply.template_version == "pick_place_v1"
    assert backend.prompts[0] == render(load_prompt(PROMPT), TASK, SCENE, ZONE)


def test_planner_reasks_within_bound_and_sums_costs():
    backend = ScriptedBackend("not json", '{"object": "red"}', GOOD)
    reply = LLMPlanner(backend, load_prompt(PROMPT), retries=2).plan_text("e", TASK, SCENE, ZONE, seed=5)
    assert reply.text == GOOD and reply.attempts == 3
    assert (reply.prompt_tokens, reply.completion_tokens, reply.latency_s) == (300, 30, 1.5)
    assert "rejected (json:" in backend.prompts[1].user and "rejected (schema:" in backend.prompts[2].user
    parse_plan_text(reply.text)
    backend = ScriptedBackend("x", "y")
    reply = LLMPlanner(backend, load_prompt(PROMPT), retries=1).plan_text("e", TASK, SCENE, ZONE, seed=5)
    assert reply.text == "y" and reply.attempts == 2 and not backend.texts  # bounded: the last text stands


def test_replayed_text_keeps_its_original_provenance():
    original = LLMReply("t", "ollama", "llama3", "d", 1, 2, 3.0, 9, False, template_sha256="orig", attempts=2)
    reply = LLMPlanner(ReplayBackend({"e": original}), load_prompt(PROMPT), retries=3).plan_text(
        "e", TASK, SCENE, ZONE, seed=9
    )
    assert reply.recorded and reply.template_sha256 == "orig" and reply.attempts == 2 and reply.text == "t"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_auto_backend_is_ollama_only_when_a_daemon_answers(ollama_server):
    assert concrete_backend(LLMPlannerParams(ollama_host=ollama_server.host)) == "ollama"
    assert concrete_backend(LLMPlannerParams(ollama_host=f"http://127.0.0.1:{_closed_port()}")) == "llamacpp"
    assert concrete_backend(LLMPlannerParams(backend="replay")) == "replay"


def test_build_backend_checks_at_start(ollama_server):
    ollama_server.state.tags = []
    with pytest.raises(ModelNotFoundError, match="not pulled"):
        build_backend(LLMPlannerParams(backend="ollama", ollama_host=ollama_server.host))
    with pytest.raises(ConfigError, match="needs replay_from"):
        build_backend(LLMPlannerParams(backend="replay"))


def test_recorded_replies_need_a_run_or_a_bag(tmp_path):
    with pytest.raises(ReplayError, match="neither a run directory"):
        load_recorded_replies(tmp_path)


def test_gguf_checks(tmp_path):
    with pytest.raises(GGUFError, match="not found"):
        check_gguf(tmp_path / "missing.gguf")
    with pytest.raises(GGUFError, match="not a file"):
        check_gguf(tmp_path)
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"PK\x03\x04 not weights")
    with pytest.raises(GGUFError, match="no GGUF header"):
        check_gguf(fake)
    with pytest.raises(GGUFError, match="no GGUF header"):
        LlamaCppBackend(model_path=str(fake))
    with pytest.raises(ConfigError, match="n_threads must be a positive integer"):
        LlamaCppBackend(n_threads=0)


def test_embedded_model_is_deterministic_and_labelled():
    """The real Gemma 3 270M: same prompt and seed -> same text, also from a fresh instance."""
    prompt = render(load_prompt(PROMPT), TASK, SCENE, ZONE)
    a = LlamaCppBackend(max_tokens=24)
    first = a.generate(prompt, generation_schema(), seed=3)
    again = a.generate(prompt, generation_schema(), seed=3)
    fresh = LlamaCppBackend(max_tokens=24).generate(prompt, generation_schema(), seed=3)
    assert first.text == again.text == fresh.text and first.text.startswith("{")
    assert (first.backend, first.model) == ("llamacpp", "gemma-3-270m-q4_k_m.gguf")
    assert first.digest == "sha256:a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
    assert first.prompt_tokens > 100 and 0 < first.completion_tokens <= 24 and not first.recorded
    json.dumps(first.text)  # plain text, whatever it says
