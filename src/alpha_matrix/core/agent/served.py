"""What the served-model agents (Ollama, OpenAI-compatible) share: an HTTP client with bounded
timeouts and retries, tools in the function-tool shape, and the answer's provenance."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

import httpx

from alpha_matrix.core.agent.protocol import AgentPrompt, AgentProvenance, RawAnswer, RawToolCall, Tool
from alpha_matrix.core.agent.retry import Exchanged, RetryPolicy
from alpha_matrix.core.errors import ConfigError

CONNECT_TIMEOUT_S = 10.0  # a server that does not accept a connection in 10 s is not there


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


def function_tools(tools: tuple[Tool, ...]) -> list[dict[str, Any]]:
    """The offered tools as the chat APIs take them (Ollama and OpenAI share the shape)."""
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]


# What the project sets in every request body: extra_body may not change these (the record's own terms).
RESERVED_KEYS = frozenset(
    {"model", "messages", "tools", "tool_choice", "temperature", "seed", "max_tokens", "stream", "num_predict",
     "options", "format", "response_format"}
)  # fmt: skip


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_extra_body(text: str) -> dict[str, Any]:
    """``agent.extra_body``: a JSON object of server-specific settings ({} when empty). Keys the
    project sets itself are refused (a record's seed, temperature and cap must mean what they say)."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text, parse_constant=_not_json)
    except ValueError as err:
        raise ConfigError(f"extra_body is not JSON ({' '.join(str(err).split())[:120]})") from None
    if not isinstance(value, dict):
        raise ConfigError(f"extra_body must be a JSON object, got a {type(value).__name__}")
    if taken := sorted(RESERVED_KEYS & set(value)):
        raise ConfigError(f"extra_body: {', '.join(taken)} set by alpha_matrix itself (use its own parameter)")
    return value


def check_max_tokens(value: Any, what: str) -> None:
    """A completion cap as the served backends (agent and planner) take it: an integer >= 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{what}: max_tokens must be an integer >= 0 (0 = server default), got {value!r}")


def attempt_timeout(timeout_s: float, remaining_s: float | None) -> httpx.Timeout:
    """One attempt's timeout: the configured one, or what is left of the decision's deadline."""
    t = float(timeout_s) if remaining_s is None else max(0.001, min(float(timeout_s), remaining_s))
    return httpx.Timeout(t, connect=min(t, CONNECT_TIMEOUT_S))


def as_json(value: Any) -> str:
    """The exact JSON of what the server said (key order kept, no ASCII escaping) for ``raw_text``."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def http_client(timeout_s: float, what: str) -> httpx.Client:
    if not (isinstance(timeout_s, int | float) and math.isfinite(timeout_s) and timeout_s > 0):
        raise ConfigError(f"{what}: timeout_s must be > 0, got {timeout_s!r}")
    return httpx.Client(timeout=httpx.Timeout(float(timeout_s), connect=min(float(timeout_s), CONNECT_TIMEOUT_S)))


class ServedAgent:
    """A model behind HTTP: one client for the agent's life, a retry policy, injectable sleep/clock."""

    name = "served"

    def __init__(
        self,
        model: str,
        timeout_s: float,
        policy: RetryPolicy | None,
        sleep: Callable[[float], None] | None,
        clock: Callable[[], float] | None,
        max_tokens: int = 0,
        extra_body: str = "",
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigError(f"{self.name} agent: model name is empty")
        check_max_tokens(max_tokens, f"{self.name} agent")
        self.model = model
        self.timeout_s = float(timeout_s)
        self.max_tokens = max_tokens
        self.extra = parse_extra_body(extra_body)
        self.policy = policy or RetryPolicy()
        self.sleep = sleep or time.sleep
        self.clock = clock or time.perf_counter
        self._client = http_client(timeout_s, f"{self.name} agent")

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _answer(self, got: Exchanged[ServedReply], prompt: AgentPrompt, seed: int, digest: str = "") -> RawAnswer:
        reply = got.value
        return RawAnswer(
            text=reply.text,
            tool_calls=reply.tool_calls,
            truncated=reply.truncated,
            max_tokens=self.max_tokens,
            provenance=AgentProvenance(
                backend=self.name,
                model=reply.model or self.model,
                digest=digest or reply.digest,
                prompt_tokens=reply.prompt_tokens,
                completion_tokens=reply.completion_tokens,
                latency_s=got.latency_s,
                seed=int(seed),
                template_sha256=prompt.template_sha256,
                template_version=prompt.template_version,
                attempts=len(got.attempts),
                raw_text=as_json(reply.message),
            ),
            attempts=got.attempts,
        )


def count(value: Any) -> int:
    """A token count as servers report it (absent or null when the prompt came from a cache)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
