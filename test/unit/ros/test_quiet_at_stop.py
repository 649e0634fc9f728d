"""A callback caught by the stop mid-way ends quietly (a service refuses), never a traceback; the
same failure while the process is not stopping ends the node with its one line, and any other
exception still raises."""

from __future__ import annotations

import signal
from types import SimpleNamespace

import pytest

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.ros import stop
from alpha_matrix.ros.stop import STOP, ExecutorFailed, quiet_at_stop


class _Context:
    def ok(self) -> bool:
        return True


def _node(callback):  # noqa: ANN001, ANN202 - what quiet_at_stop reads of an rclpy Node
    srv = SimpleNamespace(srv_name="/alert_guard/move_to", callback=callback)
    sub = SimpleNamespace(topic_name="/robot/step_batch", callback=lambda _msg: callback(None, None))
    timer = SimpleNamespace(callback=lambda: callback(None, None))
    return SimpleNamespace(
        context=_Context(), get_name=lambda: "alert_guard", services=[srv], subscriptions=[sub], timers=[timer]
    )


def _waiting_on_a_stopped_peer(_req: object, _res: object) -> object:
    raise AlphaMatrixError("stopping: the reply of agent/decide is no longer awaited")


def test_at_a_stop_a_service_refuses_quietly_and_other_callbacks_end(monkeypatch):
    monkeypatch.setattr(STOP, "signal", signal.SIGINT)
    node = _node(_waiting_on_a_stopped_peer)
    quiet_at_stop(node)
    response = SimpleNamespace(accepted=False)
    assert node.services[0].callback("request", response) is response  # the response as it stood: a refusal
    assert node.subscriptions[0].callback("msg") is None
    assert node.timers[0].callback() is None
    quiet_at_stop(node)  # wrapped once, however often asked
    assert node.services[0].callback.__wrapped__ is _waiting_on_a_stopped_peer


def test_without_a_stop_a_user_facing_failure_ends_the_node_with_its_line(monkeypatch):
    """Not quiet: the process's work fails with the error's one line (run_node prints it, exit 2),
    and a service sends no answer; the executor logs no traceback of the callback's own frames."""
    monkeypatch.setattr(STOP, "signal", None)
    monkeypatch.setattr(STOP, "failure", None)
    monkeypatch.setattr(stop.rclpy, "ok", lambda context=None: True)  # the node's context is up
    monkeypatch.setattr(STOP, "wake_main", lambda: None)
    node = _node(_waiting_on_a_stopped_peer)
    quiet_at_stop(node)
    with pytest.raises(ExecutorFailed, match="no longer awaited") as raised:
        node.services[0].callback("request", SimpleNamespace())
    assert raised.value.__suppress_context__ and STOP.failure is not None and "no longer awaited" in STOP.failure
    with pytest.raises(ExecutorFailed):
        node.subscriptions[0].callback("msg")


def test_without_a_stop_any_other_failure_still_raises(monkeypatch):
    monkeypatch.setattr(STOP, "signal", None)
    monkeypatch.setattr(stop.rclpy, "ok", lambda context=None: True)

    def broken(*_args):  # noqa: ANN002, ANN202
        raise ValueError("a bug")

    node = _node(broken)
    quiet_at_stop(node)
    with pytest.raises(ValueError, match="a bug"):
        node.subscriptions[0].callback("msg")
