"""The agent protocol: at each decision point an observation goes in, one decision comes out.

The agent is the thing under test. It sees a typed situation (per suite), optionally images,
and the tools it may call; it answers with exactly one tool call or a message to the user.
Its answer is data: parsed and validated against the offered tools (core/agent/decide.py),
never executed, evaluated or dispatched by name. An answer that does not fit is an *invalid*
decision (counted, never executed); a call that never got an answer is an *infrastructure
abort* (counted apart, re-run on resume), never a model failure.

These models are the boundary (pydantic); the ROS messages (AgentObservation, AgentDecision)
carry the same fields, with JSON strings where the content is per suite.
"""

from __future__ import annotations

import json
import time
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

# What a model backend hands over (core/backends): part of the protocol, defined with the backends.
from alpha_matrix.core.backends.answers import AttemptRecord as AttemptRecord
from alpha_matrix.core.backends.answers import RawToolCall as RawToolCall
from alpha_matrix.core.backends.errors import InfrastructureAbort as InfrastructureAbort

PROTOCOL_VERSION = 1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Tool(_Strict):
    """A tool the agent may call at this decision point (OpenAI/Ollama function-tool shape)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Image(_Strict):
    """An image for multimodal models: PNG bytes, base64. Depth is rendered as an 8-bit image."""

    kind: Literal["rgb", "depth"]
    png_base64: str
    step: int = Field(ge=0)


class Observation(_Strict):
    """What the agent sees at one decision point. ``situation`` follows the suite's schema and
    never contains the answer (the scorer's truth stays with the scorer)."""

    suite: str
    episode_id: str
    step: int = Field(ge=0)
    decision_index: int = Field(ge=0)  # 0, 1, ... within the episode (replay keys on it)
    situation: dict[str, Any]
    tools: tuple[Tool, ...] = Field(min_length=1)
    images: tuple[Image, ...] = ()


class ToolCall(_Strict):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


InvalidKind = Literal["no_json", "unknown_tool", "bad_arguments", "no_decision", "truncated"]


class AgentProvenance(_Strict):
    """Where a decision came from; ``raw_text`` is the model's text as it answered (the record keeps it)."""

    backend: str
    model: str = ""
    digest: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0  # wall clock of all attempts, measured by us
    seed: int = 0
    template_sha256: str = ""
    template_version: str = ""
    attempts: int = 1  # transport attempts behind this answer (retries after 429/5xx/timeouts)
    raw_text: str = ""
    recorded: bool = False  # a replayed answer, not a live one


class Decision(_Strict):
    """Exactly one of: a valid tool call, a message to the user, an invalid answer (typed), or an
    abort (no answer at all: the infrastructure's failure, counted apart, never the model's)."""

    kind: Literal["tool_call", "message", "invalid", "abort"]
    call: ToolCall | None = None
    message: str = ""  # kind message: the text for the user; kind abort: why there was no answer
    invalid: InvalidKind | None = None
    invalid_detail: str = ""  # one line: what did not fit
    provenance: AgentProvenance
    attempts: tuple[AttemptRecord, ...] = ()  # live backends: every transport attempt behind it


class AgentPrompt(_Strict):
    """A suite's prompt template rendered for one observation (config/prompts/agent_<suite>_v*.yaml)."""

    system: str
    user: str
    template_sha256: str
    template_version: str


NO_PROMPT = AgentPrompt(system="", user="", template_sha256="", template_version="")  # for backends that read none


class RawAnswer(_Strict):
    """What a backend got back, unjudged: the model's text and/or its native tool calls.
    core/agent/decide.py turns it into a Decision against the offered tools."""

    text: str = ""
    tool_calls: tuple[RawToolCall, ...] = ()
    provenance: AgentProvenance
    attempts: tuple[AttemptRecord, ...] = ()
    truncated: bool = False  # the server stopped at the completion cap: not a whole answer
    max_tokens: int = 0  # the cap that was sent (0 = the server's default)

    @classmethod
    def of_rule(
        cls, call: RawToolCall, prompt: AgentPrompt, seed: int, started: float, backend: str, model: str
    ) -> RawAnswer:
        """A scripted agent's answer: its one call, with the call as the raw text (``started``: the
        perf_counter at which it began deciding)."""
        raw = json.dumps({"tool": call.name, "arguments": call.arguments}, sort_keys=True, separators=(",", ":"))
        provenance = AgentProvenance(
            backend=backend,
            model=model,
            seed=seed,
            latency_s=time.perf_counter() - started,
            template_sha256=prompt.template_sha256,
            template_version=prompt.template_version,
            raw_text=raw,
        )
        return cls(tool_calls=(call,), provenance=provenance)


class AgentBackend(Protocol):
    """Any agent: the scripted reference, a served model (Ollama, OpenAI-compatible), the embedded
    model, or a replay. One answer per observation; deterministic where the backend can be."""

    name: str

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer: ...
