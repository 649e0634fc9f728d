"""Executors that a stop ends: spin behind blocking work, spin until stopped, spin a proxy.

All are rclpy's EventsExecutor (a C++ event queue); the SingleThreadedExecutor rebuilds its wait
set in Python for every callback, which was 70 % of a busy subscriber's CPU (the recorder).
"""

from __future__ import annotations

import contextlib
import threading
import traceback
from collections.abc import Callable
from typing import Any

import rclpy
from rclpy.context import Context
from rclpy.executors import Executor, ExternalShutdownException
from rclpy.experimental import EventsExecutor
from rclpy.node import Node

from alpha_matrix.ros.stop import SPIN_POLL_S, STOP, ExecutorFailed, quiet_at_stop


def spin_behind(
    node: Node, work: Callable[[], None], context: Context | None = None, interruptible: bool = True
) -> None:
    """Run ``work`` (blocking calls allowed) while an EventsExecutor spins ``node`` behind it.

    The first SIGINT/SIGTERM interrupts ``work`` where it waits (``NodeStopped``): a job between
    two records stops at once instead of waiting out a service timeout. A callback that raises
    ends ``work`` too (``ExecutorFailed``, naming the exception): without the spinning thread
    no reply or message reaches the node again.
    """
    executor = EventsExecutor(context=context)
    executor.add_node(node)
    done = threading.Event()

    def spin() -> None:
        try:
            spin_until_stopped(executor, context, done)
        except (ExternalShutdownException, ExecutorFailed):
            pass  # ExecutorFailed: a callback's user-facing error, already STOP.failure (ros/stop.py)
        except Exception as err:
            if not STOP.stopping(context):  # else the context went away under a signal: a stop
                STOP.fail(f"{node.get_name()}'s executor thread died: {describe(err)}")
        finally:
            if STOP.stopping(context):
                STOP.wake_main()

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    try:
        with STOP.interruptible() if interruptible else contextlib.nullcontext():
            work()
    except Exception as err:
        if STOP.failure is None:
            raise
        raise ExecutorFailed(STOP.failure) from err  # the work failed for want of its callbacks
    finally:
        # The spin thread leaves its wait set before the executor goes away (shutting an
        # executor down under a thread waiting in it crashed rclpy: a segfault).
        done.set()
        waker = _wake(executor, node)
        thread.join(timeout=5)
        if waker is not None:
            with contextlib.suppress(Exception):
                node.destroy_timer(waker)
        executor.shutdown()
    if STOP.failure is not None:  # the work ended (non-interruptible) because the thread died
        raise ExecutorFailed(STOP.failure)


def _wake(executor: Executor, node: Node) -> Any:
    """End the spin thread's ``spin_once`` now, not at its SPIN_POLL_S timeout: the work is done.

    The EventsExecutor's ``wake()`` does not end a ``spin_once`` that is waiting (measured: the
    join waited out the rest of the 0.5 s, at the end of every job) and it takes no guard
    condition; a timer due at once is an event it serves. Returns the timer, or None when the
    node's context is already shut down (a signal: the spin thread ends at its next look, as before)."""
    with contextlib.suppress(Exception):  # a context already shut down by a signal
        executor.wake()
    try:
        return node.create_timer(0.0, lambda: None)
    except Exception:  # noqa: BLE001 - the node or its context is gone: nothing left to wake
        return None


def describe(err: BaseException) -> str:
    """``Type: message (at file:line in function)``: where a callback failed, in one line."""
    frames = traceback.extract_tb(err.__traceback__)
    where = f" (at {frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
    return f"{type(err).__name__}: {err}{where}"


def spin_until_stopped(executor: Executor, context: Context | None = None, done: threading.Event | None = None) -> None:
    """``executor.spin()`` that a stop (or another executor thread's death) also ends within
    SPIN_POLL_S: rclpy's wake-up of a wait set on shutdown can be missed (seen: a monitor asleep
    in its wait set 30 s after SIGTERM)."""
    while STOP.signal is None and STOP.failure is None and rclpy.ok(context=context) and not (done and done.is_set()):
        executor.spin_once(timeout_sec=SPIN_POLL_S)


class ProxyNode(Node):
    """A node whose callbacks make blocking service calls (a proxy, a guard).

    Its clients live on a helper node ``io`` in a separate rclpy context (its own DDS
    participant), spun by its own executor thread (``spin_proxy``): rclpy's async callbacks can
    stall (rclpy#1462) and its multi-threaded executor busy-waits, and two executors sharing
    one context while one thread waits on the other proved fragile.
    """

    def __init__(self, name: str, io_suffix: str = "_io") -> None:
        super().__init__(name)
        self.io_context = Context()
        rclpy.init(context=self.io_context, args=[])  # same ROS_DOMAIN_ID, from the environment
        self.io = Node(f"{name}{io_suffix}", context=self.io_context, use_global_arguments=False)

    def destroy_node(self) -> None:
        self.io.destroy_node()
        if self.io_context.ok():
            rclpy.shutdown(context=self.io_context)
        super().destroy_node()


def spin_proxy(node: ProxyNode) -> None:
    """Spin the node's own callbacks in the main thread, its ``io`` helper behind them."""
    quiet_at_stop(node.io)  # the helper's callbacks too (run_node made the node's own quiet)
    main_ex = EventsExecutor()
    main_ex.add_node(node)
    try:
        # Not interruptible: the proxies' callbacks run in this thread; the signal's context
        # shutdown ends main_ex.spin between two of them.
        spin_behind(node.io, lambda: spin_until_stopped(main_ex), context=node.io_context, interruptible=False)
    finally:
        main_ex.shutdown()


def spin_events(node: Node) -> None:
    """Hand the main thread to ``node.run(executor)`` with an EventsExecutor (the bridges' physics loop)."""
    executor = EventsExecutor()
    executor.add_node(node)
    try:
        node.run(executor)  # type: ignore[attr-defined]
    finally:
        executor.shutdown()


def spin_events_until_stopped(node: Node) -> None:
    """``spin_until_stopped`` on its own EventsExecutor: the default spin of a node (ros/lifecycle.py)."""
    executor = EventsExecutor()
    executor.add_node(node)
    try:
        spin_until_stopped(executor)
    finally:
        executor.shutdown()
    if STOP.failure is not None:  # a callback failed with a user-facing error (ros/stop.py): its one line
        raise ExecutorFailed(STOP.failure)


class Drain:
    """Run the callbacks that are ready, without blocking: a loop that owns the main thread (the
    bridge's physics) drains between steps. Callbacks registered through ``counted`` are counted,
    so the drain knows when a spin found nothing to do."""

    def __init__(self, limit: int = 64) -> None:
        self.limit, self.handled = limit, 0

    def counted(self, callback: Callable[..., Any]) -> Callable[..., Any]:
        def handle(*args: Any) -> Any:
            self.handled += 1
            return callback(*args)

        return handle

    def __call__(self, executor: Executor) -> None:
        for _ in range(self.limit):
            before = self.handled
            executor.spin_once(timeout_sec=0.0)
            if self.handled == before:
                return
