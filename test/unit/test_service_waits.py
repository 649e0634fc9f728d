"""A wait for a service reply ends at a stop signal: a peer stopped by the same signal may never answer."""

from __future__ import annotations

import signal
import threading
import time

import pytest
from rclpy.task import Future

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.ros import services
from alpha_matrix.ros.stop import STOP


class _Context:
    def __init__(self, ok: bool = True) -> None:
        self._ok = ok

    def ok(self) -> bool:
        return self._ok


class _Client:
    srv_name = "/robot/move_to"

    def __init__(self, ok: bool = True) -> None:
        self.context = _Context(ok)


@pytest.fixture
def no_signal(monkeypatch):
    monkeypatch.setattr(STOP, "signal", None)


def test_a_reply_that_never_comes_stops_waiting_at_the_signal(no_signal):
    timer = threading.Timer(0.2, lambda: setattr(STOP, "signal", signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(AlphaMatrixError, match="stopping: the reply of /robot/move_to is no longer awaited"):
        services.wait_reply(_Client(), Future(), timeout_s=30.0)
    assert time.monotonic() - t0 < 2.0


def test_a_shut_down_context_ends_the_wait_and_a_reply_is_returned(no_signal):
    with pytest.raises(AlphaMatrixError, match="stopping"):
        services.wait_reply(_Client(ok=False), Future(), timeout_s=30.0)
    f = Future()
    threading.Timer(0.15, lambda: f.set_result("reply")).start()
    assert services.wait_reply(_Client(), f, timeout_s=30.0) == "reply"


def test_without_a_stop_the_timeout_still_applies(no_signal):
    with pytest.raises(AlphaMatrixError, match="no reply from /robot/move_to within 0 s"):
        services.wait_reply(_Client(), Future(), timeout_s=0.3)
