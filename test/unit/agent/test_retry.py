"""core/backends/retry.py: the bounded retry of one HTTP exchange, over real HTTP (scripted_http)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from scripted_http import FakeTime, Reply, ScriptedServer, closed_port_url

from alpha_matrix.core.backends.errors import InfrastructureAbort, ModelNotFoundError, ServerAnswerError
from alpha_matrix.core.backends.retry import (
    RetryPolicy,
    classify_status,
    exchange,
    retry_after_s,
)
from alpha_matrix.core.errors import AlphaMatrixError, ConfigError

OK = Reply(200, {"answer": 42})


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


@pytest.fixture
def fake() -> FakeTime:
    return FakeTime()


def _get(url: str, fake: FakeTime, policy: RetryPolicy | None = None, timeout_s: float = 5.0, **kw):
    with httpx.Client(timeout=timeout_s) as client:
        return exchange(
            lambda _left: client.get(url),
            lambda payload: payload["answer"],
            what="double: /x",
            policy=policy or RetryPolicy(),
            sleep=fake.sleep,
            clock=fake.clock,
            **kw,
        )


def test_default_policy_is_bounded_exponential_backoff():
    p = RetryPolicy()
    assert p.max_attempts == 4
    assert [p.delay(n) for n in (1, 2, 3, 4, 5)] == [1.0, 2.0, 4.0, 8.0, 8.0]
    assert p.delay(1, retry_after_s=5.0) == 5.0  # the server asked for longer: honoured
    assert p.delay(3, retry_after_s=0.0) == 4.0  # never sooner than our own backoff
    assert p.delay(1, retry_after_s=3600.0) == 30.0  # capped


@pytest.mark.parametrize(
    "kwargs", [{"max_attempts": 0}, {"max_attempts": True}, {"backoff_s": -1.0}, {"backoff_factor": 0.5}]
)
def test_bad_policy_is_a_config_error(kwargs):
    with pytest.raises(ConfigError, match="retry policy"):
        RetryPolicy(**kwargs)


def test_retry_after_seconds_and_http_date():
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_s("7") == 7.0
    assert retry_after_s("Wed, 01 Jan 2025 12:00:20 GMT", now=lambda: now) == 20.0
    assert retry_after_s("Wed, 01 Jan 2025 11:00:00 GMT", now=lambda: now) == 0.0
    assert retry_after_s("soon") is None and retry_after_s(None) is None and retry_after_s("nan") is None


def test_status_classes():
    assert [classify_status(s) for s in (200, 429, 408, 500, 503, 400, 401, 404)] == [
        "answered",
        "http_429",
        "timeout",
        "http_5xx",
        "http_5xx",
        "http_other",
        "http_other",
        "http_other",
    ]


def test_429_then_200_is_answered_on_the_second_attempt_after_retry_after(server, fake):
    server.script("/x", Reply(429, {"error": "slow down"}, {"Retry-After": "3"}), OK)
    got = _get(server.url + "/x", fake)
    assert got.value == 42
    assert [(a.attempt, a.outcome, a.status) for a in got.attempts] == [(1, "http_429", 429), (2, "answered", 200)]
    assert got.attempts[0].detail == "HTTP 429: slow down"
    assert fake.sleeps == [3.0]
    assert got.latency_s == 3.0  # the wait is part of the wall clock (the injected clock moved only by it)
    assert len(server.to("/x")) == 2


def test_5xx_until_the_attempts_run_out_is_an_infrastructure_abort(server, fake):
    server.script("/x", Reply(500, {"error": "out of memory"}))
    with pytest.raises(InfrastructureAbort) as info:
        _get(server.url + "/x", fake)
    err = info.value
    assert [(a.attempt, a.outcome, a.status) for a in err.attempts] == [(n, "http_5xx", 500) for n in (1, 2, 3, 4)]
    assert fake.sleeps == [1.0, 2.0, 4.0]  # no wait after the last attempt
    assert len(server.to("/x")) == 4
    assert str(err).startswith("double: /x: no answer after 4 attempts (http_5xx 500, http_5xx 500,")
    assert "out of memory" in str(err) and "\n" not in str(err)
    assert isinstance(err, AlphaMatrixError)


def test_refused_connection_is_an_infrastructure_abort(fake):
    with pytest.raises(InfrastructureAbort, match="no answer after 2 attempts \\(refused, refused\\)") as info:
        _get(closed_port_url() + "/x", fake, RetryPolicy(max_attempts=2))
    assert [a.outcome for a in info.value.attempts] == ["refused", "refused"]
    assert info.value.attempts[0].status == 0 and "Connection refused" in info.value.attempts[0].detail


def test_timeout_is_retried_and_recorded(server, fake):
    server.script("/x", Reply(hold=True))
    with pytest.raises(InfrastructureAbort, match="\\(timeout, timeout\\)") as info:
        _get(server.url + "/x", fake, RetryPolicy(max_attempts=2), timeout_s=0.2)
    assert [a.outcome for a in info.value.attempts] == ["timeout", "timeout"]
    assert "ReadTimeout" in info.value.attempts[0].detail


def test_404_is_model_not_found_at_once(server, fake):
    server.script("/x", Reply(404, {"error": 'model "m" not found, try pulling it first'}))
    with pytest.raises(ModelNotFoundError, match="^model 'm' is not pulled \\(HTTP 404: model \"m\" not found") as info:
        _get(server.url + "/x", fake, not_found="model 'm' is not pulled")
    assert [a.outcome for a in info.value.attempts] == ["http_other"] and info.value.status == 404
    assert fake.sleeps == [] and len(server.to("/x")) == 1


@pytest.mark.parametrize("status", [400, 401, 403, 422])
def test_other_4xx_is_a_one_line_error_without_retries(server, fake, status):
    server.script("/x", Reply(status, {"error": {"message": "bad request\nsecond line"}}))
    with pytest.raises(ServerAnswerError, match=f"^double: /x: HTTP {status}") as info:
        _get(server.url + "/x", fake)
    assert "\n" not in str(info.value) and fake.sleeps == [] and len(server.to("/x")) == 1
    assert not isinstance(info.value, ModelNotFoundError)
    if status in (401, 403):  # an authentication error may quote the key: its body is never repeated
        assert "bad request" not in str(info.value) and "bad request" not in info.value.attempts[0].detail


def test_a_200_that_is_not_the_api_shape_is_an_error_not_an_answer(server, fake):
    server.script("/x", Reply(200, b"<html>proxy login</html>"))
    with pytest.raises(ServerAnswerError, match="HTTP 200 but the body is not the API's answer"):
        _get(server.url + "/x", fake)
    server.script("/x", Reply(200, {"other": 1}))
    with pytest.raises(ServerAnswerError, match="KeyError") as info:
        _get(server.url + "/x", fake)
    assert [(a.outcome, a.status) for a in info.value.attempts] == [("http_other", 200)]


def test_redaction_reaches_every_detail_and_message(server, fake):
    server.script("/x", Reply(503, {"error": "bad key s3cr3t-value"}))
    with pytest.raises(InfrastructureAbort) as info:
        _get(server.url + "/x", fake, RetryPolicy(max_attempts=2), redact=lambda s: s.replace("s3cr3t-value", "***"))
    assert "s3cr3t" not in str(info.value)
    assert all("s3cr3t" not in a.detail and "***" in a.detail for a in info.value.attempts)
