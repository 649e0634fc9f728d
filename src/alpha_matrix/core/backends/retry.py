"""One HTTP exchange with a served model, retried within bounds, every attempt on the record.

A live backend can fail to answer for reasons that say nothing about the model: the server is
down (refused), slow (timeout), rate limited (429) or broken (5xx), or the connection dropped
(transport). Those attempts are retried with capped exponential backoff (``Retry-After`` is
honoured, capped too) and, when the attempts run out, raise ``InfrastructureAbort`` carrying
every attempt: counted apart from the model's failures and re-run on resume. So does an
exchange that outlives its deadline (``RetryPolicy.deadline_s``: one decision's whole budget, the
agent's ``decide_timeout_s``): each attempt gets at most what is left of it. An HTTP answer
that retrying cannot change (400, 401, 404, a 200 whose body is not the API's shape) is a
one-line ``ServerAnswerError`` at once: a configuration problem that stops the run.

Sleep and clock are injected, so tests run the whole policy without waiting.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import httpx

from alpha_matrix.core.backends.answers import AttemptRecord
from alpha_matrix.core.backends.errors import InfrastructureAbort, ModelNotFoundError, ServerAnswerError
from alpha_matrix.core.errors import ConfigError

T = TypeVar("T")

RETRYABLE = frozenset({"timeout", "refused", "http_429", "http_5xx", "transport"})


@dataclass(frozen=True)
class RetryPolicy:
    """How long to keep asking. Worst case per exchange: ``max_attempts`` timeouts plus
    ``max_attempts - 1`` waits of at most ``max(max_backoff_s, max_retry_after_s)``."""

    max_attempts: int = 4
    backoff_s: float = 1.0  # the wait before the second attempt
    backoff_factor: float = 2.0
    max_backoff_s: float = 8.0
    max_retry_after_s: float = 30.0
    deadline_s: float | None = None  # the whole exchange, waits included (agent.decide_timeout_s); None = unbounded

    def __post_init__(self) -> None:
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ConfigError(f"retry policy: max_attempts must be a positive integer, got {self.max_attempts!r}")
        for key in ("backoff_s", "max_backoff_s", "max_retry_after_s"):
            value = getattr(self, key)
            if not (isinstance(value, int | float) and math.isfinite(value) and value >= 0):
                raise ConfigError(f"retry policy: {key} must be a finite number >= 0, got {value!r}")
        if self.deadline_s is not None and not (
            isinstance(self.deadline_s, int | float) and math.isfinite(self.deadline_s) and self.deadline_s > 0
        ):
            raise ConfigError(f"retry policy: deadline_s must be a finite number > 0, got {self.deadline_s!r}")
        if not (math.isfinite(self.backoff_factor) and self.backoff_factor >= 1):
            raise ConfigError(f"retry policy: backoff_factor must be >= 1, got {self.backoff_factor!r}")

    def delay(self, attempt: int, retry_after_s: float | None = None) -> float:
        """The wait after failed attempt ``attempt`` (1-based): the backoff, or the server's
        ``Retry-After`` when it asks for longer (never beyond ``max_retry_after_s``)."""
        backoff = min(self.max_backoff_s, self.backoff_s * self.backoff_factor ** (attempt - 1))
        if retry_after_s is None:
            return backoff
        return max(backoff, min(retry_after_s, self.max_retry_after_s))


@dataclass(frozen=True)
class Exchanged(Generic[T]):
    """A decoded answer, the attempts behind it (the last one ``answered``) and their wall clock."""

    value: T
    attempts: tuple[AttemptRecord, ...]
    latency_s: float  # first attempt's start to the answer, backoff waits included


def one_line(text: object, limit: int = 200) -> str:
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def retry_after_s(value: str | None, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> float | None:
    """``Retry-After`` as seconds (delta-seconds or an HTTP date), None when absent or unreadable."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - now()).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def _refused(err: BaseException) -> bool:
    seen: BaseException | None = err
    for _ in range(8):  # httpx.ConnectError <- httpcore.ConnectError <- ConnectionRefusedError
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def classify_error(err: httpx.TransportError) -> str:
    """The outcome of an attempt that got no HTTP answer."""
    if isinstance(err, httpx.TimeoutException):
        return "timeout"
    if isinstance(err, httpx.ConnectError) and _refused(err):
        return "refused"
    return "transport"


def classify_status(status: int) -> str:
    """The outcome of an attempt that got an HTTP status (2xx is decided by the body)."""
    if 200 <= status < 300:
        return "answered"
    if status == 429:
        return "http_429"
    if status == 408:  # the server timed out waiting for us: as retryable as our own timeout
        return "timeout"
    if 500 <= status < 600:
        return "http_5xx"
    return "http_other"


def rejects_request(text: str) -> bool:
    """A 5xx whose words say the request itself was invalid: FastAPI servers (llama.cpp's Python
    server) answer a request-body validation error with HTTP 500 ("1 validation error: ... 'loc':
    ('body', ...)"). Retrying sends the same body: it is refused like a 4xx."""
    return "validation error" in text and "'body'" in text


def error_text(response: httpx.Response) -> str:
    """The server's own words about an error: Ollama's ``{"error": "..."}``, the OpenAI
    ``{"error": {"message": "..."}}``, or the start of the body. Not for 401/403: an
    authentication error may quote (part of) the key, so its body is never repeated. Long: it
    is cut to one record line only after redaction (a cut key would escape the scrub)."""
    if response.status_code in (401, 403):
        return "authentication refused (the body is not repeated: it may quote the key)"
    try:
        payload = response.json()
    except ValueError:
        return one_line(response.text, 1000)
    if isinstance(payload, dict):
        error = payload.get("error", payload.get("message", payload))
        if isinstance(error, dict):
            error = error.get("message", error)
        return one_line(error, 1000)
    return one_line(payload, 1000)


def exchange(
    send: Callable[[float | None], httpx.Response],
    decode: Callable[[Any], T],
    *,
    what: str,
    policy: RetryPolicy,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.perf_counter,
    not_found: str = "",
    redact: Callable[[str], str] = lambda s: s,
) -> Exchanged[T]:
    """Send until an answer decodes, a non-retryable answer comes, or the attempts or the
    policy's deadline run out.

    ``send(left)`` makes one request, bounded by ``left`` seconds (what remains of the deadline;
    None without one); ``decode`` turns the JSON body of a 2xx into the value and
    raises ValueError/KeyError/TypeError when it is not the API's shape. ``what`` names the
    server and endpoint in messages; ``not_found`` opens the message of a 404 (a ModelNotFoundError);
    ``redact`` scrubs every detail and message (a secret never reaches a record).
    """
    what = one_line(redact(what))
    attempts: list[AttemptRecord] = []

    def record(n: int, outcome: str, status: int, t0: float, detail: str) -> None:
        attempts.append(
            AttemptRecord.model_validate(
                {
                    "attempt": n,
                    "outcome": outcome,
                    "status": status,
                    "latency_s": max(0.0, clock() - t0),
                    "detail": one_line(redact(detail)),
                }
            )
        )

    start = clock()

    def left() -> float | None:
        return None if policy.deadline_s is None else policy.deadline_s - (clock() - start)

    for n in range(1, policy.max_attempts + 1):
        t0 = clock()
        retry_after: float | None = None
        status = 0
        try:
            response = send(left())
        except httpx.TransportError as err:
            outcome = classify_error(err)
            detail = f"{type(err).__name__}: {err}" if str(err) else type(err).__name__
        else:
            status = response.status_code
            outcome = classify_status(status)
            if outcome == "answered":
                try:
                    value = decode(response.json())
                except (ValueError, KeyError, TypeError, IndexError) as err:
                    reason = f"{type(err).__name__}: {redact(str(err))}"
                    record(n, "http_other", status, t0, f"HTTP {status}, malformed body: {reason}")
                    raise ServerAnswerError(
                        f"{what}: HTTP {status} but the body is not the API's answer ({one_line(reason, 100)})",
                        status,
                        tuple(attempts),
                    ) from None
                record(n, "answered", status, t0, "")
                return Exchanged(value, tuple(attempts), max(0.0, clock() - start))
            detail = f"HTTP {status}" + (f": {text}" if (text := error_text(response)) else "")
            if outcome == "http_5xx" and rejects_request(text):
                outcome = "http_other"  # the server refused what was sent: the same request fails again
            retry_after = retry_after_s(response.headers.get("Retry-After"))
        record(n, outcome, status, t0, detail)
        if outcome not in RETRYABLE:
            if status == 404 and not_found:
                message = f"{redact(not_found)} ({attempts[-1].detail})"
                raise ModelNotFoundError(one_line(message, 240), status, tuple(attempts))
            raise ServerAnswerError(f"{what}: {one_line(attempts[-1].detail, 160)}", status, tuple(attempts))
        remaining = left()
        if remaining is not None and (remaining <= 0 or outcome == "timeout" and remaining < 1.0):
            break  # the decision's deadline has passed: no attempt would be answered within it
        if n < policy.max_attempts:
            wait = policy.delay(n, retry_after)
            if remaining is not None and wait >= remaining:
                break  # the next attempt would start after the deadline
            sleep(wait)
    tally = ", ".join(a.outcome + (f" {a.status}" if a.status else "") for a in attempts)
    why = f"no answer after {len(attempts)} attempts"
    if policy.deadline_s is not None and (len(attempts) < policy.max_attempts or (left() or 0.0) <= 0):
        why = f"no answer within the deadline of {policy.deadline_s:.0f} s ({len(attempts)} attempts)"
    raise InfrastructureAbort(
        f"{what}: {why} ({tally}); last: {one_line(attempts[-1].detail, 120)}",
        tuple(attempts),
    )
