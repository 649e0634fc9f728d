"""The errors of model access: one base, one class per meaning. ``str(err)`` is one line.

``status`` is the HTTP status behind the error where there was one (else 0); ``attempts``
every transport attempt behind it (live HTTP backends; else empty).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from alpha_matrix.core.errors import AlphaMatrixError

if TYPE_CHECKING:
    from alpha_matrix.core.backends.answers import AttemptRecord


class BackendError(AlphaMatrixError):
    """A model backend could not produce an answer (missing package, generation failure, ...)."""

    def __init__(self, message: str, status: int = 0, attempts: tuple[AttemptRecord, ...] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.attempts = attempts


class UnreachableError(BackendError):
    """The model server cannot be reached (refused, no route, connection dropped)."""


class BackendTimeoutError(BackendError):
    """The server accepted the request but did not answer within the timeout."""


class ServerAnswerError(BackendError):
    """The server answered, and no retry can change the answer (HTTP 4xx, a body of the wrong
    shape). ``attempts`` holds every attempt, the last one included."""


class ModelNotFoundError(ServerAnswerError):
    """The server is up but does not have the model (Ollama: not pulled; HTTP 404 on the call;
    not among the models an OpenAI-compatible server lists)."""


class InfrastructureAbort(BackendError):
    """A live backend got no answer after its bounded retries (timeouts, refused, 429, 5xx): not a
    model failure. Carries every attempt; the runner records it apart (report's accounting table)
    and re-runs it on resume."""

    def __init__(self, message: str, attempts: tuple[AttemptRecord, ...]) -> None:
        super().__init__(message, 0, attempts)


class GGUFError(BackendError):
    """The configured weights file of the embedded model is missing or not a GGUF file."""


class ReplayError(BackendError):
    """Recorded answers given to a replay are inconsistent or unreadable."""


class ReplayMissError(ReplayError):
    """Replay was asked for a request the recording does not hold (or holds with another seed)."""
