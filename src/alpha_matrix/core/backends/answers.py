"""What goes to a model and what comes back, as data: the chat prompt a backend reads, the text
generation's reply with its provenance, a served chat answer, its native tool calls and the
transport attempts behind it. The planner and the agent build their records from these."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field


class ChatPrompt(Protocol):
    """A rendered prompt as a backend reads it (the planner's RenderedPrompt, the agent's AgentPrompt)."""

    @property
    def system(self) -> str: ...

    @property
    def user(self) -> str: ...


@dataclass(frozen=True)
class LLMReply:
    """The model's raw text and where it came from; ``recorded`` marks a replayed (not live) answer."""

    text: str
    backend: str
    model: str
    digest: str  # model weights digest where the backend has one, else ""
    prompt_tokens: int
    completion_tokens: int
    latency_s: float  # wall clock of the generation call, measured by us
    seed: int
    recorded: bool
    total_duration_s: float | None = None  # as reported by the server, if it does
    eval_duration_s: float | None = None  # completion time as reported by the server (tokens/s)
    attempts: int = 1  # generations behind this text (1 + re-asks after invalid output)
    template_sha256: str = ""  # the prompt template behind the text (set by the planner; kept by replay)
    template_version: str = ""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AttemptRecord(_Strict):
    """One transport attempt of a live backend: every attempt is recorded, answered or not."""

    attempt: int = Field(ge=1)
    outcome: Literal["answered", "timeout", "refused", "http_429", "http_5xx", "http_other", "transport"]
    status: int = 0  # HTTP status when there was one
    latency_s: float = 0.0
    detail: str = ""  # one line


class RawToolCall(_Strict):
    """A native tool call as the API returned it: arguments as an object or as a JSON string."""

    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)


@dataclass(frozen=True)
class ServedReply:
    """One decoded chat answer: the assistant message as received, and what the record needs of it."""

    message: dict[str, Any]
    text: str
    tool_calls: tuple[RawToolCall, ...]
    model: str
    digest: str
    prompt_tokens: int
    completion_tokens: int
    truncated: bool = False  # the server stopped at the completion cap (finish_reason / done_reason "length")
