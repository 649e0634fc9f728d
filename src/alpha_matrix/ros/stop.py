"""The stop signal of this process: SIGINT/SIGTERM remembered, interruptible waits, the main thread woken."""

from __future__ import annotations

import contextlib
import faulthandler
import functools
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import rclpy
from rclpy.context import Context
from rclpy.logging import get_logger
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError


class NodeStopped(BaseException):
    """Raised in the main thread by the first SIGINT/SIGTERM while it runs interruptible work."""


class ExecutorFailed(BaseException):
    """Raised in the main thread when the thread spinning its node died of an exception.

    Its callbacks (service replies, subscriptions) no longer run: a node that went on would be
    deaf, and its peers would time out waiting for it with every process idle (seen in CI).
    """


SPIN_POLL_S = 0.5  # longest a stopped node spins on
STOP_POLL_S = 0.1  # how often a blocking wait looks whether this process is stopping
WAKE_SIGNAL = signal.SIGUSR2  # sent by this process to its own main thread, never from outside


class _StopState:
    """The stop signal of this process. rclpy's own handlers shut the contexts down (waking every
    executor) and then chain to these, which remember the signal; work run through
    ``spin_behind`` is interrupted where it waits. Callbacks are never interrupted halfway (a
    recorder must not lose a message it was writing), and a second signal during shutdown is ignored.
    """

    def __init__(self) -> None:
        self.signal: int | None = None
        self.failure: str | None = None  # why this process's executor thread died
        self._interruptible = False
        self._installed = False

    def install(self) -> None:
        self._installed = True
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._handle)
        signal.signal(WAKE_SIGNAL, self._wake)

    def wake_main(self) -> None:
        """The kernel may deliver the stop signal to any thread (DDS, OpenBLAS), and Python runs
        its handler only when the main thread next runs bytecode: a main thread blocked in a wait
        would sleep through the stop until its timeout. A signal sent to it wakes it now."""
        if self._installed:  # elsewhere (a command line's own checker) the signal would kill the process
            signal.pthread_kill(threading.main_thread().ident, WAKE_SIGNAL)  # type: ignore[arg-type]

    def fail(self, why: str) -> None:
        """An executor thread died (``why``): the main thread leaves its work now."""
        if self.failure is None:
            self.failure = why
            self.wake_main()

    def _wake(self, _signum: int, _frame: object) -> None:
        if self._interruptible and self.stopping():
            self._interruptible = False
            raise NodeStopped(self.signal)
        if self._interruptible and self.failure is not None:
            self._interruptible = False
            raise ExecutorFailed(self.failure)

    def _handle(self, signum: int, _frame: object) -> None:
        first = self.signal is None
        if first:
            self.signal = signum
            mute_teardown_chatter()
        if first and self._interruptible:
            self._interruptible = False
            raise NodeStopped(signum)

    def stopping(self, context: Context | None = None) -> bool:
        """A signal arrived, or rclpy's handler already shut the context down (it runs before
        ours: a thread can see the invalid context before the main thread sees the signal)."""
        return self.signal is not None or not rclpy.ok(context=context)

    @contextlib.contextmanager
    def interruptible(self) -> Iterator[None]:
        if self.signal is not None:
            raise NodeStopped(self.signal)
        if self.failure is not None:
            raise ExecutorFailed(self.failure)
        self._interruptible = True
        try:
            yield
        finally:
            self._interruptible = False


STOP = _StopState()


def mute_teardown_chatter() -> None:
    """From a stop on, what rcl and rclpy say about their own teardown stays off the terminal.

    rclpy's handler shuts the context down before ours runs, so a node still starting or logging
    meets a dead context: rcl writes ``Failed to publish log message to rosout`` from C to fd 2,
    and ``Node()`` warns ``Failed to fini rosout publisher`` with its source line. Neither says
    anything about the run. fd 2 goes to /dev/null; Python's ``sys.stderr`` keeps the terminal (a
    real error while stopping is still one line there), and so does faulthandler (a crash).
    """
    warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"rclpy\.")
    with contextlib.suppress(OSError, ValueError, AttributeError):
        sys.stderr.flush()
        terminal = os.dup(2)
        sys.stderr = os.fdopen(terminal, "w", buffering=1)
        if faulthandler.is_enabled():
            faulthandler.enable(file=sys.stderr, all_threads=True)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)


def quiet_at_stop(node: Node) -> None:
    """Every service, subscription and timer callback of ``node`` (those it has now): an exception
    raised once this process is stopping ends that callback quietly, one debug line, and a service
    answers with its response as it stands (a refusal: the default ``accepted`` is false).

    At a stop, a proxy's callback still waiting on a peer (``the reply of agent/decide is no
    longer awaited``) or a callback publishing on a context already shut down (``publisher's
    context is invalid``) raised into the executor, which logged it as fatal with its traceback
    (and that log, sent to /rosout, failed again on the dead context). A failure while the process
    is not stopping still raises as before, but for a user-facing one (AlphaMatrixError): the
    process's work fails with its one line (``STOP.fail``), as a command's would.
    """
    context = node.context
    log = get_logger(f"{node.get_name()}.stop")  # not the node's rosout logger: nothing to publish at a stop

    def stopping() -> bool:
        return STOP.stopping() or STOP.stopping(context)

    def refuse(what: str, callback: Callable[..., Any], service: bool) -> Callable[..., Any]:
        if getattr(callback, "_quiet_at_stop", False):
            return callback

        @functools.wraps(callback)
        def run(*args: Any) -> Any:
            try:
                return callback(*args)
            except Exception as err:
                if not stopping() and isinstance(err, AlphaMatrixError):  # user-facing (a prompt longer than the
                    STOP.fail(str(err))  # model's context): the node ends with its one line, not the executor's
                    raise ExecutorFailed(str(err)) from None  # traceback; a service sends no answer
                if not stopping():
                    raise
                log.debug(f"{what}: {'refused' if service else 'dropped'} at the stop ({type(err).__name__}: {err})")
                return args[-1] if service else None  # a service's response, as the callback left it

        run._quiet_at_stop = True  # type: ignore[attr-defined]
        return run

    for srv in node.services:
        srv.callback = refuse(f"service {srv.srv_name}", srv.callback, service=True)
    for sub in node.subscriptions:
        sub.callback = refuse(f"subscription {sub.topic_name}", sub.callback, service=False)
    for timer in node.timers:
        if timer.callback is not None:
            timer.callback = refuse("timer", timer.callback, service=False)


def progress_info(node: Node, text: str) -> None:
    """A job's progress line: on the node's logger (and /rosout) while it runs. Once a stop has
    shut the context down (rclpy's handler runs before ours, so the main thread can still be at
    work) on a console-only logger: on the dead context the rosout publish fails and rcl says
    ``Failed to publish log message to rosout`` on the terminal, about nothing of the run."""
    if STOP.stopping(node.context):
        get_logger(node.get_name()).info(text)
    else:
        node.get_logger().info(text)
