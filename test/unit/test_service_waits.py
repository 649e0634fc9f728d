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

    def __init__(self, ok: bool = True, ready: bool = True) -> None:
        self.context = _Context(ok)
        self.ready = ready

    def service_is_ready(self) -> bool:
        return self.ready


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


class _LossyClient(_Client):
    """Loses the replies to its first ``lost`` requests."""

    def __init__(self, lost: int) -> None:
        super().__init__()
        self.lost, self.sent = lost, 0

    def wait_for_service(self, timeout_sec: float) -> bool:
        return True

    def call_async(self, request: object) -> Future:
        self.sent += 1
        f = Future()
        if self.sent > self.lost:
            f.set_result(f"reply to {request}")
        return f

    def remove_pending_request(self, future: Future) -> None:
        pass


def test_a_handshake_is_resent_until_a_reply_comes_and_says_how_often_it_tried(no_signal):
    client = _LossyClient(lost=2)
    assert services.handshake(client, "probe", timeout_s=5.0, attempt_s=0.05) == "reply to probe"
    assert client.sent == 3
    with pytest.raises(AlphaMatrixError, match=r"no reply from /robot/move_to to [3-5] handshakes within 0 s"):
        services.handshake(_LossyClient(lost=99), "probe", timeout_s=0.45, attempt_s=0.15)


def test_a_mailbox_wait_ends_at_the_signal_and_still_takes_what_arrives(no_signal):
    from alpha_matrix.ros.mailbox import ListBox, Mailbox

    box: Mailbox[int, str] = Mailbox()
    threading.Timer(0.1, lambda: box.put(7, "status")).start()
    assert box.take(7, timeout_s=30.0) == "status"
    threading.Timer(0.2, lambda: setattr(STOP, "signal", signal.SIGINT)).start()
    t0 = time.monotonic()
    assert box.take(8, timeout_s=30.0) is None  # an executive's wait for a status nobody will send
    assert ListBox().wait_until(lambda items: bool(items), "e", timeout_s=30.0) is None
    assert not box.wait_until(lambda: False, timeout_s=30.0)
    assert time.monotonic() - t0 < 2.0


def test_a_server_that_went_away_ends_a_long_wait_within_seconds(no_signal):
    """A decision may take minutes (a wait of agent.decide_timeout_s): a dead server is still found fast."""
    t0 = time.monotonic()
    with pytest.raises(AlphaMatrixError, match="its server went away while its reply was awaited"):
        services.wait_reply(_Client(ready=False), Future(), timeout_s=600.0)
    assert time.monotonic() - t0 < services.SERVER_GONE_S + 2 * services.SERVER_CHECK_S


class _Progress:
    """An agent that decided 0.5 s into the wait: the timeout runs from there, plus its deadline."""

    def __init__(self, agent_wait_s: float) -> None:
        self.last, self.agent_wait_s = time.monotonic() + 0.5, agent_wait_s

    def deadline(self, since: float, timeout_s: float) -> float:
        return max(since, self.last) + timeout_s + self.agent_wait_s


def test_a_wait_behind_the_agent_runs_from_its_last_decision_plus_its_deadline(no_signal):
    t0 = time.monotonic()
    with pytest.raises(AlphaMatrixError, match=r"within 1 s \(the agent's last decision included\)"):
        services.wait_reply(_Client(), Future(), timeout_s=0.2, progress=_Progress(0.3))
    assert 0.95 < time.monotonic() - t0 < 1.6  # 0.5 (last decision) + 0.2 + 0.3, not 0.2
