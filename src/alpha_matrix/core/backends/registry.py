"""Text-generation backends by name (the planner's): one call, the model's raw text back, with its
provenance.

A backend never validates or repairs the model's output: malformed text is returned as text
and the caller's guards judge it (an episode outcome, not a crash). What *is* an error here
is anything that prevents an answer — daemon unreachable, model not pulled, timeout — as a
one-line ``BackendError``, so a run stops clearly instead of recording a fake plan.

Backends are selected by name (``make_backend``); new ones (an embedded llama.cpp model)
register with ``register_backend`` and need only the ``Backend`` protocol.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from alpha_matrix.core.backends.answers import ChatPrompt, LLMReply
from alpha_matrix.core.backends.ollama import OllamaBackend
from alpha_matrix.core.backends.replay import ReplayBackend
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.lazy import load


@runtime_checkable
class Backend(Protocol):
    name: str

    def generate(self, prompt: ChatPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
        """One deterministic generation (temperature 0, fixed seed) constrained to ``schema`` if possible.

        ``episode_id`` identifies the request for backends that replay recordings; live ones ignore it.
        """
        ...


# A backend is a class, or "module:Class" for one whose module is imported only when chosen.
BACKENDS: dict[str, Callable[..., Backend] | str] = {
    "ollama": OllamaBackend,
    "replay": ReplayBackend,
    "llamacpp": "alpha_matrix.core.backends.llamacpp:LlamaCppBackend",
    "openai": "alpha_matrix.core.backends.openai:OpenAIBackend",
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
