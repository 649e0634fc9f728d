"""Ollama: the planner's backend through the official ``ollama`` client (structured JSON output),
and the daemon's HTTP API for the agent (``POST /api/chat`` with native ``tools``, retried).

Deterministic where Ollama can be (temperature 0, the caller's seed, no streaming). The model's
digest comes from ``/api/tags`` once; a daemon that does not answer and a model that is not
pulled are one-line errors (``UnreachableError`` / ``InfrastructureAbort``, ``ModelNotFoundError``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

import httpx

from alpha_matrix.core.backends.answers import ChatPrompt, LLMReply, RawToolCall, ServedReply
from alpha_matrix.core.backends.errors import (
    BackendError,
    BackendTimeoutError,
    ModelNotFoundError,
    ServerAnswerError,
    UnreachableError,
)
from alpha_matrix.core.backends.retry import Exchanged, RetryPolicy, exchange, one_line
from alpha_matrix.core.backends.served import attempt_timeout, count
from alpha_matrix.core.errors import ConfigError

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "llama3"

T = TypeVar("T")


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


def _seconds(ns: int | None) -> float | None:
    return None if ns is None else ns / 1e9


class OllamaBackend:
    """A local Ollama daemon through the official ``ollama`` client, with structured JSON output."""

    name = "ollama"

    def __init__(
        self, host: str | None = None, model: str = DEFAULT_OLLAMA_MODEL, timeout_s: float = 60.0, max_tokens: int = 0
    ) -> None:
        try:
            import httpx
            import ollama
        except ImportError as err:  # pragma: no cover - pinned in requirements.txt
            raise BackendError(f"the ollama backend needs the 'ollama' package ({err})") from None
        if not model:
            raise ConfigError("ollama backend: model name is empty")
        if not timeout_s > 0:
            raise ConfigError(f"ollama backend: timeout_s must be > 0, got {timeout_s}")
        self.host = host or os.environ.get("OLLAMA_HOST") or DEFAULT_OLLAMA_HOST
        self.model = model
        self.timeout_s = float(timeout_s)
        self.max_tokens = int(max_tokens)  # num_predict; 0 = Ollama's default
        self._ollama = ollama
        self._httpx = httpx
        self._client = ollama.Client(host=self.host, timeout=self.timeout_s)
        self._digest: str | None = None

    def _call(self, endpoint: str, fn: Callable[[], T]) -> T:
        """Run one client call, turning transport and HTTP failures into one-line BackendErrors."""
        httpx = self._httpx
        try:
            return fn()
        except ConnectionError as err:  # the ollama client's wrapper of httpx.ConnectError
            raise UnreachableError(f"Ollama not reachable at {self.host}: {one_line(err, 120)}") from None
        except httpx.ConnectTimeout:
            raise UnreachableError(
                f"Ollama not reachable at {self.host}: connect timed out after {self.timeout_s:g} s"
            ) from None
        except httpx.TimeoutException:
            raise BackendTimeoutError(
                f"Ollama at {self.host} did not answer {endpoint} within {self.timeout_s:g} s (timeout_s)"
            ) from None
        except httpx.TransportError as err:
            raise UnreachableError(
                f"Ollama not reachable at {self.host}: {type(err).__name__}: {one_line(err, 120)}"
            ) from None
        except self._ollama.ResponseError as err:
            if endpoint == "/api/chat" and err.status_code == 404:
                raise ModelNotFoundError(self._not_pulled()) from None
            raise ServerAnswerError(
                f"Ollama at {self.host}: {endpoint} failed with HTTP {err.status_code}: {one_line(err.error, 120)}",
                err.status_code,
            ) from None
        except ValueError as err:  # undecodable JSON or a response of the wrong shape
            raise ServerAnswerError(
                f"Ollama at {self.host}: {endpoint}: unexpected response ({one_line(err, 120)})"
            ) from None

    def _not_pulled(self) -> str:
        return f"model '{self.model}' is not pulled on {self.host} (ollama pull {self.model})"

    def digest(self) -> str:
        """The model's digest from ``GET /api/tags``; checked once, then cached for the backend's life."""
        if self._digest is None:
            listing = self._call("/api/tags", self._client.list)
            wanted = tagged(self.model)
            for entry in listing.models:
                if entry.model and tagged(entry.model) == wanted:
                    self._digest = entry.digest or ""
                    break
            else:
                raise ModelNotFoundError(self._not_pulled())
        return self._digest

    def generate(self, prompt: ChatPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
        digest = self.digest()
        messages = [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}]
        t0 = time.perf_counter()
        response = self._call(
            "/api/chat",
            lambda: self._client.chat(
                model=self.model,
                messages=messages,
                format=schema,
                options={"temperature": 0, "seed": int(seed)}
                | ({"num_predict": self.max_tokens} if self.max_tokens else {}),
                stream=False,
            ),
        )
        latency = time.perf_counter() - t0
        return LLMReply(
            text=response.message.content or "",
            backend=self.name,
            model=response.model or self.model,
            digest=digest,
            # Ollama omits prompt_eval_count when the whole prompt came from its cache.
            prompt_tokens=int(response.prompt_eval_count or 0),
            completion_tokens=int(response.eval_count or 0),
            latency_s=latency,
            seed=int(seed),
            recorded=False,
            total_duration_s=_seconds(response.total_duration),
            eval_duration_s=_seconds(response.eval_duration),
        )


def ollama_available(host: str, timeout_s: float = 3.0) -> bool:
    """Does an Ollama daemon answer at ``host``? (Only reachability: a missing model is an error later.)"""
    try:
        OllamaBackend(host=host or None, timeout_s=timeout_s).digest()
    except UnreachableError:
        return False
    except Exception:  # it answered, just not with our model: still a daemon
        return True
    return True


class OllamaChat:
    """One Ollama daemon over HTTP: the model check (``GET /api/tags``) and retried ``POST /api/chat``.
    InfrastructureAbort when Ollama does not answer; ModelNotFoundError when the model is not there."""

    def __init__(
        self,
        host: str | None,
        client: httpx.Client,
        policy: RetryPolicy,
        sleep: Callable[[float], None],
        clock: Callable[[], float],
    ) -> None:
        self.host = ollama_host(host)
        self._client, self.policy, self.sleep, self.clock = client, policy, sleep, clock

    def not_pulled(self, model: str) -> str:
        return f"model '{model}' is not pulled on {self.host} (ollama pull {model})"

    def digest(self, model: str, timeout_s: float) -> str:
        """The model's digest from ``GET /api/tags``; ModelNotFoundError when it is not listed."""
        got = exchange(
            lambda left: self._client.get(f"{self.host}/api/tags", timeout=attempt_timeout(timeout_s, left)),
            lambda payload: [(m.get("model") or m.get("name") or "", m.get("digest") or "") for m in payload["models"]],
            what=f"Ollama at {self.host}: /api/tags",
            policy=self.policy,
            sleep=self.sleep,
            clock=self.clock,
        )
        wanted = tagged(model)
        found = [digest for name, digest in got.value if isinstance(name, str) and name and tagged(name) == wanted]
        if not found:
            raise ModelNotFoundError(self.not_pulled(model), 0, got.attempts)
        return str(found[0])

    def post(self, body: dict[str, Any], model: str, timeout_s: float) -> Exchanged[ServedReply]:
        """POST ``body`` to ``/api/chat``; ``timeout_s`` (per attempt) is cut to what is left of the deadline."""
        return exchange(
            lambda left: self._client.post(
                f"{self.host}/api/chat", json=body, timeout=attempt_timeout(timeout_s, left)
            ),
            decode_chat,
            what=f"Ollama at {self.host}: /api/chat",
            policy=self.policy,
            sleep=self.sleep,
            clock=self.clock,
            not_found=self.not_pulled(model),
        )
