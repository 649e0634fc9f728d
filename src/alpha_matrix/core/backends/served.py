"""What the served-model backends (Ollama, OpenAI-compatible; the planner's and the agent's) share:
an HTTP client with bounded timeouts, the request settings a caller may not override, and the
reading of what servers report."""

from __future__ import annotations

import json
import math
from typing import Any

import httpx

from alpha_matrix.core.errors import ConfigError

CONNECT_TIMEOUT_S = 10.0  # a server that does not accept a connection in 10 s is not there


# What the project sets in every request body: extra_body may not change these (the record's own terms).
RESERVED_KEYS = frozenset(
    {"model", "messages", "tools", "tool_choice", "temperature", "seed", "max_tokens", "stream", "num_predict",
     "options", "format", "response_format"}
)  # fmt: skip


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_extra_body(text: str) -> dict[str, Any]:
    """``agent.extra_body``: a JSON object of server-specific settings ({} when empty). Keys the
    project sets itself are refused (a record's seed, temperature and cap must mean what they say)."""
    if not text.strip():
        return {}
    try:
        value = json.loads(text, parse_constant=_not_json)
    except ValueError as err:
        raise ConfigError(f"extra_body is not JSON ({' '.join(str(err).split())[:120]})") from None
    if not isinstance(value, dict):
        raise ConfigError(f"extra_body must be a JSON object, got a {type(value).__name__}")
    if taken := sorted(RESERVED_KEYS & set(value)):
        raise ConfigError(f"extra_body: {', '.join(taken)} set by alpha_matrix itself (use its own parameter)")
    return value


def check_max_tokens(value: Any, what: str) -> None:
    """A completion cap as the served backends (agent and planner) take it: an integer >= 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{what}: max_tokens must be an integer >= 0 (0 = server default), got {value!r}")


def attempt_timeout(timeout_s: float, remaining_s: float | None) -> httpx.Timeout:
    """One attempt's timeout: the configured one, or what is left of the decision's deadline."""
    t = float(timeout_s) if remaining_s is None else max(0.001, min(float(timeout_s), remaining_s))
    return httpx.Timeout(t, connect=min(t, CONNECT_TIMEOUT_S))


def as_json(value: Any) -> str:
    """The exact JSON of what the server said (key order kept, no ASCII escaping) for ``raw_text``."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def http_client(timeout_s: float, what: str) -> httpx.Client:
    if not (isinstance(timeout_s, int | float) and math.isfinite(timeout_s) and timeout_s > 0):
        raise ConfigError(f"{what}: timeout_s must be > 0, got {timeout_s!r}")
    return httpx.Client(timeout=httpx.Timeout(float(timeout_s), connect=min(float(timeout_s), CONNECT_TIMEOUT_S)))


def count(value: Any) -> int:
    """A token count as servers report it (absent or null when the prompt came from a cache)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
