"""The agent as a model served by Ollama: ``POST /api/chat`` with native ``tools``.

Deterministic where Ollama can be (temperature 0, the episode's seed, no streaming). Images
(rgb and depth renders) go with the user message as base64 (``images``) for multimodal models
such as gemma3, qwen2.5vl or llava. The answer is returned unjudged: the assistant message's
text and native tool calls, with the exact JSON of that message as ``raw_text``. The model's
digest comes from ``/api/tags`` once; a model that is not there is a one-line error.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from alpha_matrix.core.agent.protocol import AgentPrompt, Observation, RawAnswer, RawToolCall
from alpha_matrix.core.agent.retry import ModelNotFoundError, RetryPolicy, exchange
from alpha_matrix.core.agent.served import ServedAgent, ServedReply, attempt_timeout, count, function_tools
from alpha_matrix.core.planning.llm import DEFAULT_OLLAMA_HOST


def tagged(name: str) -> str:
    """Ollama's canonical model name: an untagged name means ``:latest``."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def ollama_host(host: str | None) -> str:
    url = (host or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST).rstrip("/")
    return url if "://" in url else f"http://{url}"


def _tool_call(entry: Any) -> RawToolCall:
    function = entry["function"]
    name, arguments = function["name"], function.get("arguments", {})
    if not isinstance(name, str) or not isinstance(arguments, dict | str):
        raise TypeError("a tool call without a string name or with arguments of another type")
    return RawToolCall(name=name, arguments=arguments)


def decode_chat(payload: Any) -> ServedReply:
    """An ``/api/chat`` answer (stream false); a body of another shape raises (no answer)."""
    message = payload["message"]
    if not isinstance(message, dict):
        raise TypeError("message is not an object")
    content = message.get("content") or ""
    if not isinstance(content, str):
        raise TypeError("message.content is not a string")
    model = payload.get("model")
    return ServedReply(
        message=message,
        text=content,
        tool_calls=tuple(_tool_call(c) for c in message.get("tool_calls") or ()),
        model=model if isinstance(model, str) else "",
        digest="",
        # Ollama omits prompt_eval_count when the whole prompt came from its cache.
        prompt_tokens=count(payload.get("prompt_eval_count")),
        completion_tokens=count(payload.get("eval_count")),
        truncated=payload.get("done_reason") == "length",
    )


class OllamaAgent(ServedAgent):
    """An Ollama model with tool calling (and vision, if the model has it)."""

    name = "ollama"

    def __init__(
        self,
        model: str,
        host: str | None = None,
        timeout_s: float = 120.0,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] | None = None,
        max_tokens: int = 0,
        extra_body: str = "",
    ) -> None:
        super().__init__(model, timeout_s, policy, sleep, clock, max_tokens, extra_body)
        self.host = ollama_host(host)
        self._digest: str | None = None

    def _not_pulled(self) -> str:
        return f"model '{self.model}' is not pulled on {self.host} (ollama pull {self.model})"

    def digest(self) -> str:
        """The model's digest from ``GET /api/tags``: checked once, then cached for the agent's life.
        InfrastructureAbort when Ollama does not answer; ModelNotFoundError when the model is not there."""
        if self._digest is None:
            got = exchange(
                lambda left: self._client.get(f"{self.host}/api/tags", timeout=attempt_timeout(self.timeout_s, left)),
                lambda payload: [
                    (m.get("model") or m.get("name") or "", m.get("digest") or "") for m in payload["models"]
                ],
                what=f"Ollama at {self.host}: /api/tags",
                policy=self.policy,
                sleep=self.sleep,
                clock=self.clock,
            )
            wanted = tagged(self.model)
            found = [
                digest for model, digest in got.value if isinstance(model, str) and model and tagged(model) == wanted
            ]
            if not found:
                raise ModelNotFoundError(self._not_pulled(), 0, got.attempts)
            self._digest = str(found[0])
        return self._digest

    def request(self, obs: Observation, prompt: AgentPrompt, seed: int) -> dict[str, Any]:
        """The ``/api/chat`` body for one decision."""
        user: dict[str, Any] = {"role": "user", "content": prompt.user}
        if obs.images:
            user["images"] = [image.png_base64 for image in obs.images]
        messages = ([{"role": "system", "content": prompt.system}] if prompt.system else []) + [user]
        return {
            "model": self.model,
            "messages": messages,
            "tools": function_tools(obs.tools),
            "stream": False,
            # Ollama's server-specific settings are options (num_ctx, think, ...): extra_body goes there.
            "options": {**self.extra, "temperature": 0, "seed": int(seed)}
            | ({"num_predict": self.max_tokens} if self.max_tokens else {}),
        }

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        digest = self.digest()
        body = self.request(obs, prompt, seed)
        got = exchange(
            lambda left: self._client.post(
                f"{self.host}/api/chat", json=body, timeout=attempt_timeout(self.timeout_s, left)
            ),
            decode_chat,
            what=f"Ollama at {self.host}: /api/chat",
            policy=self.policy,
            sleep=self.sleep,
            clock=self.clock,
            not_found=self._not_pulled(),
        )
        return self._answer(got, prompt, seed, digest)
