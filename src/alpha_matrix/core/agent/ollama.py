"""The agent as a model served by Ollama: ``POST /api/chat`` with native ``tools``
(the transport: core/backends/ollama.py).

Deterministic where Ollama can be (temperature 0, the episode's seed, no streaming). Images
(rgb and depth renders) go with the user message as base64 (``images``) for multimodal models
such as gemma3, qwen2.5vl or llava. The answer is returned unjudged: the assistant message's
text and native tool calls, with the exact JSON of that message as ``raw_text``. The model's
digest comes from ``/api/tags`` once; a model that is not there is a one-line error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from alpha_matrix.core.agent.protocol import AgentPrompt, Observation, RawAnswer
from alpha_matrix.core.agent.served import ServedAgent, function_tools
from alpha_matrix.core.backends.ollama import OllamaChat
from alpha_matrix.core.backends.retry import RetryPolicy


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
        self.endpoint = OllamaChat(host, self._client, self.policy, self.sleep, self.clock)
        self.host = self.endpoint.host
        self._digest: str | None = None

    def digest(self) -> str:
        """The model's digest from ``GET /api/tags``: checked once, then cached for the agent's life.
        InfrastructureAbort when Ollama does not answer; ModelNotFoundError when the model is not there."""
        if self._digest is None:
            self._digest = self.endpoint.digest(self.model, self.timeout_s)
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
        got = self.endpoint.post(body, self.model, self.timeout_s)
        return self._answer(got, prompt, seed, digest)
