"""The LLM planner's decisions, ROS-free: which backend, which prompt, and the bounded re-ask.

The node (``nodes/llm_planner.py``) only translates messages. The text that comes back is the
model's, untouched: the planner checks it only to decide on a re-ask (``retries``), never
repairs it, and the executive validates whatever is finally delivered.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from alpha_matrix.core.backends.answers import LLMReply
from alpha_matrix.core.backends.ollama import OllamaBackend, ollama_available
from alpha_matrix.core.backends.registry import Backend, make_backend
from alpha_matrix.core.backends.replay import ReplayBackend
from alpha_matrix.core.backends.retry import RetryPolicy
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.names import MODEL_NAME
from alpha_matrix.core.planning.guards import parse_plan_text
from alpha_matrix.core.planning.params import LLMPlannerParams
from alpha_matrix.core.planning.plan import PlanError, generation_schema
from alpha_matrix.core.planning.prompt import PromptTemplate, RenderedPrompt, load_prompt, render
from alpha_matrix.core.planning.replay import load_recorded_replies

Vec3 = tuple[float, float, float]

REASK = "Your previous reply was rejected ({reason}). Reply again with one JSON object in the reply format."


def concrete_backend(params: LLMPlannerParams) -> str:
    """``auto`` resolved once, before a run: ollama if a daemon answers, else the embedded model."""
    if params.backend != "auto":
        return params.backend
    return "ollama" if ollama_available(params.ollama_host) else "llamacpp"


def build_backend(params: LLMPlannerParams, model: str = "", name: str = "") -> Backend:
    """The configured backend (``name``: already resolved from ``auto``), loaded and checked now (a
    bad GGUF, replay source or unpulled model fails here). ``model`` (an ``llm:<model>`` arm)
    replaces the configured Ollama or OpenAI-compatible model."""
    name = name or concrete_backend(params)
    if model and not MODEL_NAME.fullmatch(model):
        raise ConfigError(f"llm_planner: {model[:80]!r} is not a model name")
    if model and name in ("llamacpp", "replay"):
        raise ConfigError(
            f"llm_planner: backend {name} cannot serve model {model!r} "
            "(an llm:<model> arm needs backend ollama or openai; a replay serves every arm as one)"
        )
    if name == "ollama":
        backend = OllamaBackend(
            host=params.ollama_host or None,
            model=model or params.ollama_model,
            timeout_s=params.timeout_s,
            max_tokens=params.max_tokens,
        )
        backend.digest()  # reachable and pulled, or a one-line error before the first episode
        return backend
    if name == "llamacpp":
        return make_backend(
            "llamacpp",
            model_path=params.gguf_path,
            n_threads=params.n_threads,
            n_ctx=params.n_ctx,
            max_tokens=params.max_tokens,
        )
    if name == "openai":
        return make_backend(
            "openai",
            model=model or params.openai_model,
            base_url=params.openai_base_url,
            api_key_env=params.openai_api_key_env,
            timeout_s=params.timeout_s,
            response_format=params.openai_response_format,
            max_tokens=params.max_tokens,
            policy=RetryPolicy(deadline_s=params.timeout_s),  # one generation, retries included, within timeout_s
        )
    if not params.replay_from:
        raise ConfigError("llm_planner: backend replay needs replay_from (a run directory or a bag)")
    return ReplayBackend(load_recorded_replies(Path(params.replay_from)))


def load_template(path: Path, expected_sha256: str = "") -> PromptTemplate:
    template = load_prompt(path)
    if expected_sha256 and template.sha256 != expected_sha256:
        raise ConfigError(f"{path}: prompt template changed after the graph was resolved")
    return template


class LLMPlanner:
    """Prompt from observed facts -> the backend's raw text, with provenance and bounded re-asks."""

    def __init__(self, backend: Backend, template: PromptTemplate, retries: int = 0) -> None:
        self.backend = backend
        self.template = template
        self.retries = retries
        self.schema = generation_schema()

    def plan_text(self, episode_id: str, task: str, scene: Mapping[str, Vec3], zone: Vec3, seed: int) -> LLMReply:
        """One plan text. BackendError (unreachable, timeout, replay miss) propagates: no answer, no plan."""
        prompt = render(self.template, task, scene, zone)
        reply = self.backend.generate(prompt, self.schema, seed, episode_id=episode_id)
        if reply.recorded:
            return reply  # a recording already is the final text, with its original provenance
        reply = dataclasses.replace(
            reply, template_sha256=prompt.template_sha256, template_version=prompt.template_version
        )
        for _ in range(self.retries):
            try:
                parse_plan_text(reply.text)
                break
            except PlanError as err:
                again = RenderedPrompt(
                    system=prompt.system,
                    user=prompt.user + "\n" + REASK.format(reason=f"{err.kind}: {err.reason}") + "\n",
                    template_sha256=prompt.template_sha256,
                    template_version=prompt.template_version,
                )
                retry = self.backend.generate(again, self.schema, seed, episode_id=episode_id)
                reply = dataclasses.replace(
                    retry,
                    prompt_tokens=reply.prompt_tokens + retry.prompt_tokens,
                    completion_tokens=reply.completion_tokens + retry.completion_tokens,
                    latency_s=reply.latency_s + retry.latency_s,
                    attempts=reply.attempts + 1,
                    template_sha256=prompt.template_sha256,
                    template_version=prompt.template_version,
                )
        return reply
