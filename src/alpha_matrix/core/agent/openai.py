"""The agent as a model behind an OpenAI-compatible chat-completions API (hosted APIs, vLLM,
a llama.cpp server, LM Studio): ``POST {base_url}/chat/completions`` with function tools.

Temperature 0 and the episode's seed (servers that honour it are deterministic, the others are
recorded as they answered). Images go as ``image_url`` content parts with a ``data:`` URI.
The API key is read from an environment variable named in the config (``api_key_env``) and
goes only into the Authorization header: it is scrubbed from every attempt detail and error
message and is never in a record. No key is fine for a local server. The model's digest is
the server's ``system_fingerprint`` when it gives one, else empty.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any

import httpx

from alpha_matrix.core.agent.protocol import AgentPrompt, Observation, RawAnswer, RawToolCall
from alpha_matrix.core.agent.retry import BackendError, Exchanged, ModelNotFoundError, RetryPolicy, exchange
from alpha_matrix.core.agent.served import (
    CONNECT_TIMEOUT_S,
    ServedAgent,
    ServedReply,
    attempt_timeout,
    count,
    function_tools,
)
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
    """One OpenAI-compatible endpoint: URL, key (header only), redaction, retried POSTs.
    Shared by the agent and the planner's ``openai`` backend."""

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


class OpenAIAgent(ServedAgent):
    """A model behind an OpenAI-compatible chat-completions API, with tool calling and vision."""

    name = "openai"

    def __init__(
        self,
        model: str,
        base_url: str = DEFAULT_OPENAI_BASE_URL,
        api_key_env: str = DEFAULT_API_KEY_ENV,
        timeout_s: float = 120.0,
        max_tokens: int = 0,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] | None = None,
        extra_body: str = "",
    ) -> None:
        super().__init__(model, timeout_s, policy, sleep, clock, max_tokens, extra_body)
        try:
            self.endpoint = ChatCompletions(
                base_url, api_key_env, self._client, self.policy, self.sleep, self.clock, "openai agent"
            )
        except ConfigError:
            self.close()
            raise
        self.base_url = self.endpoint.base_url

    def served(self) -> None:
        """Before the first decision: ``GET /models`` must list the model. A server may echo any
        name back in its answers (llama.cpp's does), so this is the one place it says what it
        serves. A server without the endpoint (404/405) is taken at its word; InfrastructureAbort
        when it does not answer, ModelNotFoundError (one line, the ids it serves) when not listed."""
        try:
            got = self.endpoint.get_models()
        except BackendError as err:
            if err.status in (404, 405):
                return
            raise
        if got and self.model not in got:
            raise ModelNotFoundError(
                f"model '{self.model}' is not served at {self.base_url} (it serves: {listed(got, 8)})", 0, ()
            )

    def request(self, obs: Observation, prompt: AgentPrompt, seed: int) -> dict[str, Any]:
        """The chat-completions body for one decision (no key: that goes in a header)."""
        content: str | list[dict[str, Any]] = prompt.user
        if obs.images:
            content = [{"type": "text", "text": prompt.user}] + [
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{image.png_base64}"}}
                for image in obs.images
            ]
        messages = ([{"role": "system", "content": prompt.system}] if prompt.system else []) + [
            {"role": "user", "content": content}
        ]
        body: dict[str, Any] = {
            **self.extra,  # server-specific settings first: the project's own keys are never among them
            "model": self.model,
            "messages": messages,
            "tools": function_tools(obs.tools),
            "tool_choice": "auto",
            "temperature": 0,
            "seed": int(seed),
        }
        if self.max_tokens:
            body["max_tokens"] = self.max_tokens
        return body

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        got = self.endpoint.post(self.request(obs, prompt, seed), self.model, self.timeout_s)
        return self._answer(got, prompt, seed)
