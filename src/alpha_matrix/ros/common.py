"""What every node shares: parameters declared from the core's models, and a clean main()."""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import os
import signal
import sys
import threading
import time
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import rclpy
from pydantic import ValidationError
from rcl_interfaces.msg import ParameterDescriptor, ParameterType
from rclpy.context import Context
from rclpy.exceptions import ParameterUninitializedException
from rclpy.executors import Executor, ExternalShutdownException, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.parameter import Parameter

from alpha_matrix.core.config import NodeParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.graph import DONE_FILE_ENV
from alpha_matrix.ros.exit_timer import ExitTimer

P = TypeVar("P", bound=NodeParams)

_PARAM_TYPES = {
    int: ParameterType.PARAMETER_INTEGER,
    float: ParameterType.PARAMETER_DOUBLE,
    bool: ParameterType.PARAMETER_BOOL,
    str: ParameterType.PARAMETER_STRING,
    list[str]: ParameterType.PARAMETER_STRING_ARRAY,
    list[float]: ParameterType.PARAMETER_DOUBLE_ARRAY,
}


def declare_params(node: Node, model: type[P]) -> P:
    """Declare every field of ``model`` as a typed ROS parameter, then read and validate them."""
    hints = typing.get_type_hints(model)
    for name, info in model.model_fields.items():
        ptype = _PARAM_TYPES[hints[name]]
        default = info.get_default(call_default_factory=True)
        if default == []:  # an empty list carries no element type: declare the type instead
            default = Parameter.Type(ptype)
        node.declare_parameter(name, default, ParameterDescriptor(type=ptype, description=info.description or ""))
    values = {}
    for name in model.model_fields:
        try:
            values[name] = node.get_parameter(name).value
        except ParameterUninitializedException:  # an empty list in YAML carries no type
            values[name] = []
    try:
        return model.model_validate(values)
    except ValidationError as err:
        first = err.errors()[0]
        where = f"parameter {first['loc'][0]}" if first["loc"] else "parameters"
        raise AlphaMatrixError(f"{where}: {first['msg']}") from None


def call_service(client: Any, request: Any, timeout_s: float) -> Any:
    """Blocking service call for threads other than the one spinning the client's node."""
    if not client.wait_for_service(timeout_sec=timeout_s):
        raise AlphaMatrixError(f"service {client.srv_name} not available after {timeout_s:.0f} s")
    return wait_reply(client, client.call_async(request), timeout_s)


def handshake(client: Any, request: Any, timeout_s: float, attempt_s: float = 2.0) -> Any:
    """Exchange one harmless request with a service, re-sent until a reply arrives.

    The first reply to a new client can be lost while discovery has not yet matched the
    server's response writer with the client's reader (rmw_fastrtps: "failed to send response
    (timeout)"); a real request would then wait for nothing. Send only requests the server
    refuses or answers without side effects; after one reply the pair is matched both ways.
    """
    deadline = time.monotonic() + timeout_s
    if not client.wait_for_service(timeout_sec=timeout_s):
        raise AlphaMatrixError(f"service {client.srv_name} not available after {timeout_s:.0f} s")
    while True:
        future = client.call_async(request)
        done = threading.Event()
        future.add_done_callback(lambda _f, d=done: d.set())
        if done.wait(max(0.0, min(attempt_s, deadline - time.monotonic()))):
            return future.result()
        client.remove_pending_request(future)
        if time.monotonic() >= deadline:
            raise AlphaMatrixError(f"no reply from {client.srv_name} within {timeout_s:.0f} s")


def wait_reply(client: Any, future: Any, timeout_s: float) -> Any:
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    if not done.wait(timeout_s):
        raise AlphaMatrixError(f"no reply from {client.srv_name} within {timeout_s:.0f} s")
    return future.result()


class NodeStopped(BaseException):
    """Raised in the main thread by the first SIGINT/SIGTERM while it runs interruptible work."""


SPIN_POLL_S = 0.5  # longest a stopped node spins on
WAKE_SIGNAL = signal.SIGUSR2  # sent by this process to its own main thread, never from outside


class _StopState:
    """The stop signal of this process. rclpy's own handlers shut the contexts down (waking every
    executor) and then chain to these, which remember the signal; work run through
    ``spin_behind`` is interrupted where it waits. Callbacks are never interrupted halfway (a
    recorder must not lose a message it was writing), and a second signal during shutdown is ignored.
    """

    def __init__(self) -> None:
        self.signal: int | None = None
        self._interruptible = False

    def install(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, self._handle)
        signal.signal(WAKE_SIGNAL, self._wake)

    def wake_main(self) -> None:
        """The kernel may deliver the stop signal to any thread (DDS, OpenBLAS), and Python runs
        its handler only when the main thread next runs bytecode: a main thread blocked in a wait
        would sleep through the stop until its timeout. A signal sent to it wakes it now."""
        signal.pthread_kill(threading.main_thread().ident, WAKE_SIGNAL)  # type: ignore[arg-type]

    def _wake(self, _signum: int, _frame: object) -> None:
        if self._interruptible and self.stopping():
            self._interruptible = False
            raise NodeStopped(self.signal)

    def _handle(self, signum: int, _frame: object) -> None:
        first = self.signal is None
        if first:
            self.signal = signum
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
        self._interruptible = True
        try:
            yield
        finally:
            self._interruptible = False


STOP = _StopState()
TEARDOWN_S = 4.0  # within the launcher's 5 s grace before it escalates


def spin_behind(
    node: Node, work: Callable[[], None], context: Context | None = None, interruptible: bool = True
) -> None:
    """Run ``work`` (blocking calls allowed) while a single-threaded executor spins ``node`` behind it.

    The first SIGINT/SIGTERM interrupts ``work`` where it waits (``NodeStopped``): a job between
    two records stops at once instead of waiting out a service timeout.
    """
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    done = threading.Event()

    def spin() -> None:
        try:
            spin_until_stopped(executor, context, done)
        except ExternalShutdownException:
            pass
        except Exception:  # the context went away under a signal: the main thread reports the stop
            if not STOP.stopping(context):
                raise
        finally:
            if STOP.stopping(context):
                STOP.wake_main()

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    try:
        with STOP.interruptible() if interruptible else contextlib.nullcontext():
            work()
    finally:
        # The spin thread leaves its wait set before the executor goes away (shutting an
        # executor down under a thread waiting in it crashed rclpy: a segfault).
        done.set()
        with contextlib.suppress(Exception):  # a context already shut down by a signal
            executor.wake()
        thread.join(timeout=5)
        executor.shutdown()


def spin_until_stopped(executor: Executor, context: Context | None = None, done: threading.Event | None = None) -> None:
    """``executor.spin()`` that a stop also ends within SPIN_POLL_S: rclpy's wake-up of a wait set
    on shutdown can be missed (seen: a monitor asleep in its wait set 30 s after SIGTERM)."""
    while STOP.signal is None and rclpy.ok(context=context) and not (done and done.is_set()):
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
    main_ex = SingleThreadedExecutor()
    main_ex.add_node(node)
    try:
        # Not interruptible: the proxies' callbacks run in this thread; the signal's context
        # shutdown ends main_ex.spin between two of them.
        spin_behind(node.io, lambda: spin_until_stopped(main_ex), context=node.io_context, interruptible=False)
    finally:
        main_ex.shutdown()


def die_with_parent() -> None:
    """Linux: end this node when the process that started it dies, however it dies. An orphaned
    node would keep serving its ROS domain and silently join the next graph started there."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent is already gone
        os.kill(os.getpid(), signal.SIGTERM)


def run_node(
    factory: Callable[[], Node], spin: Callable[[Node], None] | None = None, args: list[str] | None = None
) -> int:
    """Init rclpy, build the node, spin until shutdown; a user-facing error is one line, exit 2.

    SIGINT and SIGTERM, at any moment (starting, idle, mid-episode, shutting down), end the node
    with exit 0 after ``destroy_node`` has flushed what it owns. A job node that finished its work
    says so in ``ALPHA_MATRIX_DONE_FILE`` (set by the plain launcher), so a job stopped by a signal
    is not mistaken for a finished one.
    """
    faulthandler.enable()  # a crash in native code prints the Python stack, not just "signal 11"
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # a hung node: kill -USR1 prints its stacks
    STOP.install()  # before rclpy.init: rclpy's handlers chain to these
    die_with_parent()
    node: Node | None = None
    code = 0
    name = os.path.basename(sys.argv[0]).removesuffix(".py")
    try:
        rclpy.init(args=args)
        if STOP.signal is None:
            node = factory()
            name = node.get_name()
        if STOP.signal is None:
            if spin is None:
                executor = SingleThreadedExecutor()
                executor.add_node(node)
                spin_until_stopped(executor)
            else:
                spin(node)
        if not STOP.stopping() and (done := os.environ.get(DONE_FILE_ENV)):
            Path(done).write_text(name)
    except (KeyboardInterrupt, NodeStopped, ExternalShutdownException):
        pass
    except AlphaMatrixError as err:
        if not STOP.stopping():
            print(f"{name}: error: {err}", file=sys.stderr, flush=True)
            code = 2
    except Exception:
        if not STOP.stopping():
            raise
        # The contexts were shut down under the work by the signal: a stop, not a failure.
    finally:
        code = _finish(node, name, code)
    if STOP.signal is not None:
        print(f"{name}: stopped by {signal.Signals(STOP.signal).name}", file=sys.stderr, flush=True)
    elif code == 0 and not rclpy.ok():
        print(f"{name}: stopped (rclpy was shut down)", file=sys.stderr, flush=True)
    # The node is done. Python's finalization resets a handler it ran to the default action, so a
    # late second signal would end this clean exit as "killed by SIGTERM": ignore them from here.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    return code


def _finish(node: Node | None, name: str, code: int) -> int:
    """Destroy the node (it flushes what it owns) and shut rclpy down, signals or not.

    After a stop signal, rclpy's teardown can hang inside DDS while holding the GIL (seen in CI:
    ``destroy_when_not_in_use``); the node's own flush runs first in ``destroy_node``, so past
    TEARDOWN_S a native timer (ros/exit_timer.py) ends the process with the code it had rather
    than leave it to the launcher's SIGKILL.
    """
    guard = ExitTimer(TEARDOWN_S, code) if STOP.stopping() else contextlib.nullcontext()
    with guard:
        try:
            if node is not None:
                node.destroy_node()
        except (KeyboardInterrupt, NodeStopped):
            pass
        except Exception as err:  # noqa: BLE001 - one line, and a failing exit: something was not flushed
            print(f"{name}: error while stopping: {type(err).__name__}: {err}", file=sys.stderr, flush=True)
            code = code or 1
        try:
            rclpy.try_shutdown()
        except Exception:  # noqa: BLE001, S110 - already shut down by the signal handler
            pass
    return code
