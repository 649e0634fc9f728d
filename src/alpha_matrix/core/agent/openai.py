"""The agent as a model behind an OpenAI-compatible chat-completions API (hosted APIs, vLLM,
a llama.cpp server, LM Studio): ``POST {base_url}/chat/completions`` with function tools (the
transport, key handling and redaction: core/backends/openai.py).

Temperature 0 and the episode's seed (servers that honour it are deterministic, the others are
recorded as they answered). Images go as ``image_url`` content parts with a ``data:`` URI.
The API key is read from an environment variable named in the config (``api_key_env``) and
goes only into the Authorization header: it is scrubbed from every attempt detail and error
message and is never in a record. No key is fine for a local server. The model's digest is
the server's ``system_fingerprint`` when it gives one, else empty.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alpha_matrix.core.agent.protocol import AgentPrompt, Observation, RawAnswer
from alpha_matrix.core.agent.served import ServedAgent, function_tools
from alpha_matrix.core.backends.openai import DEFAULT_API_KEY_ENV, DEFAULT_OPENAI_BASE_URL, ChatCompletions
from alpha_matrix.core.backends.retry import RetryPolicy
from alpha_matrix.core.errors import ConfigError


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
        """Before the first decision: ``GET /models`` must list the model (ChatCompletions.check_served)."""
        self.endpoint.check_served(self.model)

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
