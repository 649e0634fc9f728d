"""What the served-model agents (Ollama, OpenAI-compatible) share: the HTTP client of
core/backends with bounded timeouts and retries, tools in the function-tool shape, and the
answer's provenance."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Self

from alpha_matrix.core.agent.protocol import AgentPrompt, AgentProvenance, RawAnswer, Tool
from alpha_matrix.core.backends.answers import ServedReply
from alpha_matrix.core.backends.retry import Exchanged, RetryPolicy
from alpha_matrix.core.backends.served import as_json, check_max_tokens, http_client, parse_extra_body
from alpha_matrix.core.errors import ConfigError


def function_tools(tools: tuple[Tool, ...]) -> list[dict[str, Any]]:
    """The offered tools as the chat APIs take them (Ollama and OpenAI share the shape)."""
    return [
        {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]


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
