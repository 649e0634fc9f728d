"""LLM backends of the planner: one call, the model's raw text back, with its provenance.

A backend never validates or repairs the model's output: malformed text is returned as text
and the executive's guards judge it (an episode outcome, not a crash). What *is* an error here
is anything that prevents an answer — daemon unreachable, model not pulled, timeout — as a
one-line ``LLMError``, so a run stops clearly instead of recording a fake plan.

Backends are selected by name (``make_backend``); new ones (an embedded llama.cpp model)
register with ``register_backend`` and need only the ``Backend`` protocol.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from alpha_matrix.core.errors import AlphaMatrixError, ConfigError
from alpha_matrix.core.lazy import load
from alpha_matrix.core.planning.prompt import RenderedPrompt

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "llama3"

T = TypeVar("T")


class LLMError(AlphaMatrixError):
    """The backend could not produce an answer. ``str(err)`` is one line."""


class LLMUnreachableError(LLMError):
    """The model server cannot be reached (refused, no route, connection dropped)."""


class ModelNotPulledError(LLMError):
    """The server is up but does not have the requested model."""


class LLMTimeoutError(LLMError):
    """The server accepted the request but did not answer within the timeout."""


class ReplayMissError(LLMError):
    """Replay was asked for an episode that the recording does not hold (or holds differently)."""


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


@runtime_checkable
class Backend(Protocol):
    name: str

    def generate(self, prompt: RenderedPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
        """One deterministic generation (temperature 0, fixed seed) constrained to ``schema`` if possible.

        ``episode_id`` identifies the request for backends that replay recordings; live ones ignore it.
        """
        ...


def _one_line(text: object, limit: int = 200) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _tagged(name: str) -> str:
    """Ollama's canonical model name: an untagged name means ``:latest``."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


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
            raise LLMError(f"the ollama backend needs the 'ollama' package ({err})") from None
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
        """Run one client call, turning transport and HTTP failures into one-line LLMErrors."""
        httpx = self._httpx
        try:
            return fn()
        except ConnectionError as err:  # the ollama client's wrapper of httpx.ConnectError
            raise LLMUnreachableError(f"Ollama not reachable at {self.host}: {_one_line(err, 120)}") from None
        except httpx.ConnectTimeout:
            raise LLMUnreachableError(
                f"Ollama not reachable at {self.host}: connect timed out after {self.timeout_s:g} s"
            ) from None
        except httpx.TimeoutException:
            raise LLMTimeoutError(
                f"Ollama at {self.host} did not answer {endpoint} within {self.timeout_s:g} s (timeout_s)"
            ) from None
        except httpx.TransportError as err:
            raise LLMUnreachableError(
                f"Ollama not reachable at {self.host}: {type(err).__name__}: {_one_line(err, 120)}"
            ) from None
        except self._ollama.ResponseError as err:
            if endpoint == "/api/chat" and err.status_code == 404:
                raise ModelNotPulledError(self._not_pulled()) from None
            raise LLMError(
                f"Ollama at {self.host}: {endpoint} failed with HTTP {err.status_code}: {_one_line(err.error, 120)}"
            ) from None
        except ValueError as err:  # undecodable JSON or a response of the wrong shape
            raise LLMError(f"Ollama at {self.host}: {endpoint}: unexpected response ({_one_line(err, 120)})") from None

    def _not_pulled(self) -> str:
        return f"model '{self.model}' is not pulled on {self.host} (ollama pull {self.model})"

    def digest(self) -> str:
        """The model's digest from ``GET /api/tags``; checked once, then cached for the backend's life."""
        if self._digest is None:
            listing = self._call("/api/tags", self._client.list)
            wanted = _tagged(self.model)
            for entry in listing.models:
                if entry.model and _tagged(entry.model) == wanted:
                    self._digest = entry.digest or ""
                    break
            else:
                raise ModelNotPulledError(self._not_pulled())
        return self._digest

    def generate(self, prompt: RenderedPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
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


class ReplayBackend:
    """Re-emits the raw texts of an earlier run by episode id, labelled ``recorded=True``.

    Provenance (backend, model, digest, tokens, latency) stays that of the original generation,
    so a replayed arm says which model produced its plans; the seed must match the recording.
    """

    name = "replay"

    def __init__(self, records: Mapping[str, LLMReply] | Iterable[tuple[str, LLMReply]]) -> None:
        items = records.items() if isinstance(records, Mapping) else records
        self._records: dict[str, LLMReply] = {}
        for episode_id, reply in items:
            if episode_id in self._records:
                raise LLMError(f"replay: episode {episode_id!r} is recorded twice")
            if not isinstance(reply, LLMReply):
                raise LLMError(f"replay: episode {episode_id!r}: expected an LLMReply, got {type(reply).__name__}")
            self._records[episode_id] = reply

    def __len__(self) -> int:
        return len(self._records)

    def generate(self, prompt: RenderedPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
        reply = self._records.get(episode_id)
        if reply is None:
            raise ReplayMissError(
                f"replay: no recorded reply for episode {episode_id!r} ({len(self._records)} recorded)"
            )
        if reply.seed != seed:
            raise ReplayMissError(
                f"replay: episode {episode_id!r} was recorded with seed {reply.seed}, asked with seed {seed}"
            )
        return dataclasses.replace(reply, recorded=True)


# A backend is a class, or "module:Class" for one whose module is imported only when chosen.
BACKENDS: dict[str, Callable[..., Backend] | str] = {
    "ollama": OllamaBackend,
    "replay": ReplayBackend,
    "llamacpp": "alpha_matrix.core.planning.llamacpp:LlamaCppBackend",
    "openai": "alpha_matrix.core.planning.openai:OpenAIBackend",
}


def register_backend(name: str, factory: Callable[..., Backend] | str) -> None:
    """Add a backend by name (a class, or "module:Class" to defer an optional dependency)."""
    if name in BACKENDS:
        raise ConfigError(f"LLM backend {name!r} is already registered")
    BACKENDS[name] = factory


def backend_factory(name: str) -> Callable[..., Backend]:
    """The backend class registered under ``name``, or a one-line ConfigError."""
    factory = BACKENDS.get(name)
    if factory is None:
        raise ConfigError(f"unknown LLM backend {name!r} (known: {', '.join(sorted(BACKENDS))})")
    if isinstance(factory, str):
        factory = load(factory)
    return factory


def make_backend(name: str, **kwargs: Any) -> Backend:
    """Build a backend by name; unknown names and options are one-line ConfigErrors."""
    factory = backend_factory(name)
    params = inspect.signature(factory).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        unknown = sorted(set(kwargs) - set(params))
        if unknown:
            raise ConfigError(
                f"LLM backend {name!r}: unknown option {unknown[0]!r} (known: {', '.join(params) or 'none'})"
            )
    return factory(**kwargs)
