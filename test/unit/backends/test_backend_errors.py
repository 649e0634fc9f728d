"""core/backends/errors.py: one family for every failure of model access, planner and agent alike."""

from __future__ import annotations

from alpha_matrix.core.agent import protocol
from alpha_matrix.core.backends import answers, errors
from alpha_matrix.core.errors import AlphaMatrixError


def test_every_model_access_error_is_one_backend_error_with_status_and_attempts():
    family = [
        errors.UnreachableError,
        errors.BackendTimeoutError,
        errors.ServerAnswerError,
        errors.ModelNotFoundError,
        errors.InfrastructureAbort,
        errors.GGUFError,
        errors.ReplayError,
        errors.ReplayMissError,
    ]
    assert issubclass(errors.BackendError, AlphaMatrixError)
    assert all(issubclass(cls, errors.BackendError) for cls in family)
    assert issubclass(errors.ModelNotFoundError, errors.ServerAnswerError)  # a 404 no retry changes
    assert issubclass(errors.ReplayMissError, errors.ReplayError)
    assert not issubclass(errors.InfrastructureAbort, errors.ServerAnswerError)  # no answer is not an answer
    attempt = answers.AttemptRecord(attempt=1, outcome="timeout")
    abort = errors.InfrastructureAbort("no answer after 1 attempts (timeout)", (attempt,))
    assert (str(abort), abort.status, abort.attempts) == ("no answer after 1 attempts (timeout)", 0, (attempt,))
    assert (errors.BackendError("x").status, errors.BackendError("x").attempts) == (0, ())


def test_the_agent_protocol_hands_over_the_backends_own_types():
    assert protocol.InfrastructureAbort is errors.InfrastructureAbort
    assert protocol.AttemptRecord is answers.AttemptRecord
    assert protocol.RawToolCall is answers.RawToolCall
