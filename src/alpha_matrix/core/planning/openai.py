"""The planner's ``openai`` backend: any OpenAI-compatible chat-completions server (hosted APIs,
vLLM, a llama.cpp server, LM Studio) writing the plan text.

Same contract as the other backends (core/planning/llm.py): temperature 0, the episode's seed,
the plan's JSON schema as ``response_format`` where the server supports it, the model's text
returned untouched. Transport failures are retried within bounds (core/agent/retry.py); when
the retries run out the planner gets ``LLMInfrastructureAbort`` (an LLMError, one line, every
attempt attached): no answer, so no plan and no model failure. The API key is read from the
environment variable named by ``api_key_env`` and never appears in a reply or an error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from alpha_matrix.core.agent.openai import DEFAULT_API_KEY_ENV, DEFAULT_OPENAI_BASE_URL, ChatCompletions
from alpha_matrix.core.agent.protocol import AttemptRecord, InfrastructureAbort
from alpha_matrix.core.agent.retry import BackendError, ModelNotFoundError, RetryPolicy
from alpha_matrix.core.agent.served import check_max_tokens, http_client
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.planning.llm import LLMError, LLMReply, ModelNotPulledError
from alpha_matrix.core.planning.prompt import RenderedPrompt

RESPONSE_FORMATS = ("json_schema", "json_object", "none")


class LLMInfrastructureAbort(LLMError):
    """The server gave no answer within the retry policy (timeouts, refused, 429, 5xx): counted
    as an infrastructure abort, never as the model's failure. ``attempts`` holds every attempt."""

    def __init__(self, message: str, attempts: tuple[AttemptRecord, ...]) -> None:
        super().__init__(message)
        self.attempts = attempts


def response_format(kind: str, schema: dict) -> dict[str, Any] | None:
    """The plan schema as the API's ``response_format`` (not ``strict``: the plan schema uses
    oneOf/prefixItems, outside OpenAI's strict subset; vLLM and llama.cpp servers enforce it)."""
    if kind == "none" or (kind == "json_schema" and not schema):
        return None
    if kind == "json_object":
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": "plan", "schema": schema, "strict": False}}


class OpenAIBackend:
    """An OpenAI-compatible chat-completions server behind the planner's ``Backend`` protocol."""

    name = "openai"

    def __init__(
        self,
        model: str = "",
        base_url: str = DEFAULT_OPENAI_BASE_URL,
        api_key_env: str = DEFAULT_API_KEY_ENV,
        timeout_s: float = 120.0,
        response_format: str = "json_schema",
        max_tokens: int = 0,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ConfigError("openai backend: model name is empty (llm_planner.openai_model)")
        if response_format not in RESPONSE_FORMATS:
            raise ConfigError(
                f"openai backend: response_format must be one of {', '.join(RESPONSE_FORMATS)}, got {response_format!r}"
            )
        check_max_tokens(max_tokens, "openai backend")
        self.model = model
        self.max_tokens = max_tokens
        self.timeout_s = float(timeout_s)
        self.response_format = response_format
        self._client = http_client(timeout_s, "openai backend")
        try:
            self.endpoint = ChatCompletions(
                base_url,
                api_key_env,
                self._client,
                policy or RetryPolicy(),
                sleep or time.sleep,
                clock or time.perf_counter,
                "openai backend",
            )
        except ConfigError:
            self._client.close()
            raise
        self.base_url = self.endpoint.base_url

    def close(self) -> None:
        self._client.close()

    def generate(self, prompt: RenderedPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}],
            "temperature": 0,
            "seed": int(seed),
        }
        fmt = response_format(self.response_format, schema)
        if fmt is not None:
            body["response_format"] = fmt
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        try:
            got = self.endpoint.post(body, self.model, self.timeout_s)
        except InfrastructureAbort as err:
            raise LLMInfrastructureAbort(str(err), err.attempts) from None
        except ModelNotFoundError as err:
            raise ModelNotPulledError(str(err)) from None
        except BackendError as err:
            raise LLMError(str(err)) from None
        reply = got.value
        return LLMReply(
            text=reply.text,
            backend=self.name,
            model=reply.model or self.model,
            digest=reply.digest,  # the server's system_fingerprint, if it gives one
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            latency_s=got.latency_s,
            seed=int(seed),
            recorded=False,
        )
