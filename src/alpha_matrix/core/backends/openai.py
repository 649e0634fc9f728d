"""OpenAI-compatible chat-completions servers (hosted APIs, vLLM, a llama.cpp server, LM Studio):
``POST {base_url}/chat/completions``, for the agent (function tools) and the planner (``openai``
backend: the plan's JSON schema as ``response_format``).

Temperature 0 and the caller's seed (servers that honour it are deterministic, the others are
recorded as they answered); the model's text is returned untouched. Transport failures are
retried within bounds (core/backends/retry.py); when the retries run out the caller gets
``InfrastructureAbort`` (one line, every attempt attached): no answer, never the model's failure.
The API key is read from an environment variable named in the config (``api_key_env``) and goes
only into the Authorization header: it is scrubbed from every attempt detail and error message
and is never in a reply, a record or an error. No key is fine for a local server. The model's
digest is the server's ``system_fingerprint`` when it gives one, else empty.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import Any

import httpx

from alpha_matrix.core.backends.answers import ChatPrompt, LLMReply, RawToolCall, ServedReply
from alpha_matrix.core.backends.errors import ModelNotFoundError, ServerAnswerError
from alpha_matrix.core.backends.retry import Exchanged, RetryPolicy, exchange
from alpha_matrix.core.backends.served import CONNECT_TIMEOUT_S, attempt_timeout, check_max_tokens, count, http_client
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.names import listed

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
REDACTED = "[redacted]"


def read_api_key(api_key_env: str, what: str) -> str:
    """The key from the environment variable ``api_key_env`` ("" when unset or when no variable is
    named). A value that is not a variable name is refused without repeating it: it may be the key."""
    if not api_key_env:
        return ""
    if not isinstance(api_key_env, str) or not _ENV_NAME.match(api_key_env):
        raise ConfigError(
            f"{what}: api_key_env must be the name of an environment variable (the key itself goes in the environment)"
        )
    return os.environ.get(api_key_env, "")


def _text(content: Any) -> str:
    """``message.content``: a string, null (tool calls only), or a list of parts (some servers)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text", ""), str))
    raise TypeError("message.content is neither a string, null nor a list of parts")


def _tool_call(entry: Any) -> RawToolCall:
    function = entry["function"]
    name, arguments = function["name"], function.get("arguments") or {}
    if not isinstance(name, str) or not isinstance(arguments, dict | str):
        raise TypeError("a tool call without a string name or with arguments of another type")
    return RawToolCall(name=name, arguments=arguments)


def decode_completion(payload: Any) -> ServedReply:
    """A chat-completions answer (first choice); a body of another shape raises (no answer)."""
    choice = payload["choices"][0]
    message = choice["message"]
    if not isinstance(message, dict):
        raise TypeError("choices[0].message is not an object")
    usage = payload.get("usage") or {}
    model, fingerprint = payload.get("model"), payload.get("system_fingerprint")
    return ServedReply(
        message=message,
        text=_text(message.get("content")),
        tool_calls=tuple(_tool_call(c) for c in message.get("tool_calls") or ()),
        model=model if isinstance(model, str) else "",
        digest=fingerprint if isinstance(fingerprint, str) else "",
        prompt_tokens=count(usage.get("prompt_tokens") if isinstance(usage, dict) else None),
        completion_tokens=count(usage.get("completion_tokens") if isinstance(usage, dict) else None),
        truncated=isinstance(choice, dict) and choice.get("finish_reason") == "length",
    )


class ChatCompletions:
    """One OpenAI-compatible endpoint: URL, key (header only), redaction, retried POSTs, the
    served-model check. Shared by the agent and the planner's ``openai`` backend."""

    def __init__(
        self,
        base_url: str,
        api_key_env: str,
        client: httpx.Client,
        policy: RetryPolicy,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
        what: str = "openai",
    ) -> None:
        if not isinstance(base_url, str) or not re.match(r"^https?://[^\s/]+", base_url):
            raise ConfigError(f"{what}: base_url must be an http(s) URL, got {str(base_url)[:80]!r}")
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        self.api_key_env = api_key_env
        self.__key = read_api_key(api_key_env, what)
        self._client, self.policy, self.sleep, self.clock = client, policy, sleep, clock

    @property
    def has_key(self) -> bool:
        return bool(self.__key)

    def redact(self, text: str) -> str:
        return text.replace(self.__key, REDACTED) if self.__key else text

    def get_models(self) -> list[str]:
        """The ids ``GET {base_url}/models`` lists (OpenAI's shape: ``{"data": [{"id": ...}]}``)."""
        headers = {"Authorization": f"Bearer {self.__key}"} if self.__key else {}
        got = exchange(
            lambda left: self._client.get(
                f"{self.base_url}/models", headers=headers, timeout=attempt_timeout(CONNECT_TIMEOUT_S * 3, left)
            ),
            lambda payload: [m["id"] for m in payload["data"] if isinstance(m.get("id"), str)],
            what=f"OpenAI-compatible server at {self.base_url}: /models",
            policy=self.policy,
            sleep=self.sleep,
            clock=self.clock,
            redact=self.redact,
        )
        return list(got.value)

    def check_served(self, model: str) -> None:
        """``GET /models`` must list ``model``. A server may echo any name back in its answers
        (llama.cpp's does), so this is the one place it says what it serves. A server without the
        endpoint (404/405) is taken at its word; InfrastructureAbort when it does not answer,
        ModelNotFoundError (one line, the ids it serves) when not listed."""
        try:
            got = self.get_models()
        except ServerAnswerError as err:
            if err.status in (404, 405):
                return
            raise
        if got and model not in got:
            raise ModelNotFoundError(
                f"model '{model}' is not served at {self.base_url} (it serves: {listed(got, 8)})", 0, ()
            )

    def post(self, body: dict[str, Any], model: str, timeout_s: float) -> Exchanged[ServedReply]:
        """POST ``body``; ``timeout_s`` (per attempt) is cut to what is left of the policy's deadline."""
        headers = {"Authorization": f"Bearer {self.__key}"} if self.__key else {}
        return exchange(
            lambda left: self._client.post(
                self.url, json=body, headers=headers, timeout=attempt_timeout(timeout_s, left)
            ),
            decode_completion,
            what=f"OpenAI-compatible server at {self.base_url}: /chat/completions",
            policy=self.policy,
            sleep=self.sleep,
            clock=self.clock,
            not_found=f"model '{model}' not found at {self.base_url} (or base_url lacks its /v1)",
            redact=self.redact,
        )


RESPONSE_FORMATS = ("json_schema", "json_object", "none")


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

    def generate(self, prompt: ChatPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
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
        except ServerAnswerError as err:
            if fmt is None or not any("response_format" in a.detail for a in err.attempts):
                raise
            raise ServerAnswerError(
                f"{err} -- this server does not take response_format {self.response_format!r}: "
                f"--set llm_planner.openai_response_format={'json_object' if fmt['type'] != 'json_object' else 'none'}",
                err.status,
                err.attempts,
            ) from None
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
