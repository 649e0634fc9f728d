"""A node's life: init, build, spin until done or stopped, flush, exit with a code (ros2/demos' main)."""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import rclpy
from rclpy.executors import ExternalShutdownException
from rclpy.logging import get_logger
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.graph import DONE_FILE_ENV
from alpha_matrix.orphans import die_with_parent
from alpha_matrix.ros.exit_timer import ExitTimer
from alpha_matrix.ros.logs import forward_python_logs
from alpha_matrix.ros.spin import spin_events_until_stopped
from alpha_matrix.ros.stop import STOP, ExecutorFailed, NodeStopped, quiet_at_stop

TEARDOWN_S = 4.0  # within the launcher's 5 s grace before it escalates


def preload_type_support() -> None:
    """Import, before rclpy.init, what rclpy would otherwise import inside ``Node()``.

    rclpy loads a type support at its first use: ``Node()``'s parameter-events publisher imports
    ``rosidl_generator_py``, which pulls in the IDL code generator (rosidl_parser, lark, em: ~45
    modules, unused at runtime). After rclpy.init the participant exists and peers discover it;
    on a loaded machine that import held a starting node for seconds before its endpoints existed.
    Not the cause of CI's start-up segfaults, though a crashing node was seen in that import: the
    fault was in a Fast DDS thread (benchmarks/shm_port_crash.py shows the mechanism).
    """
    import rosidl_generator_py  # noqa: F401 - the import itself is the point
    from rcl_interfaces.msg import ParameterEvent
    from rcl_interfaces.srv import (
        DescribeParameters,
        GetParameters,
        GetParameterTypes,
        ListParameters,
        SetParameters,
        SetParametersAtomically,
    )
    from type_description_interfaces.srv import GetTypeDescription

    # What rclpy's Node() creates: the parameter events publisher, the parameter services, the
    # type description service.
    kinds = (ParameterEvent, DescribeParameters, GetParameters, GetParameterTypes, ListParameters)
    for kind in (*kinds, SetParameters, SetParametersAtomically, GetTypeDescription):
        if kind.__class__._TYPE_SUPPORT is None:  # type: ignore[attr-defined]
            kind.__class__.__import_type_support__()  # type: ignore[attr-defined]


def run_node(
    factory: Callable[[], Node], spin: Callable[[Node], None] | None = None, args: list[str] | None = None
) -> int:
    """Init rclpy, build the node, spin until shutdown; a user-facing error is one line, exit 2.

    ``spin`` defaults to an EventsExecutor spun until a stop (ros/spin.py says why that executor).

    SIGINT and SIGTERM, at any moment (starting, idle, mid-episode, shutting down), end the node
    with exit 0 after ``destroy_node`` has flushed what it owns, quietly: a stop is the normal end
    of every node but a job's, so it is said at debug level only (``<node>.stop``), and a callback
    caught by the stop mid-way ends in one debug line too (``quiet_at_stop``), never a traceback.
    (Before this function, while the node still imports, nodes/__init__.py's handler ends it.) A
    job node that finished its work says so in ``ALPHA_MATRIX_DONE_FILE`` (set by the plain
    launcher), so a job stopped by a signal is not mistaken for a finished one.
    """
    faulthandler.enable()  # a crash in native code prints the Python stack, not just "signal 11"
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # a hung node: kill -USR1 prints its stacks
    STOP.install()  # before rclpy.init: rclpy's handlers chain to these
    die_with_parent()
    node: Node | None = None
    code = 0
    name = os.path.basename(sys.argv[0]).removesuffix(".py")
    logs = forward_python_logs(name)  # captured C output (core/quiet.py) into this node's log
    preload_type_support()  # before rclpy.init: no DDS thread and no peer waits on this node yet
    try:
        rclpy.init(args=args)
        if STOP.signal is None:
            node = factory()
            name = logs.node = node.get_name()
            quiet_at_stop(node)
        if STOP.signal is None:
            (spin or spin_events_until_stopped)(node)
        if not STOP.stopping() and (done := os.environ.get(DONE_FILE_ENV)):
            Path(done).write_text(name)
    except (KeyboardInterrupt, NodeStopped, ExternalShutdownException):
        pass
    except (AlphaMatrixError, ExecutorFailed) as err:
        if not STOP.stopping():
            print(f"{name}: error: {err}", file=sys.stderr, flush=True)
            code = 2
    except Exception:
        if not STOP.stopping():
            raise
        # The contexts were shut down under the work by the signal: a stop, not a failure.
    finally:
        # Said before the teardown: a hung DDS teardown ends the process natively (_finish). The
        # signal may not have reached our handler yet (rclpy's shut the context down first).
        if STOP.stopping():
            how = f"by {signal.Signals(STOP.signal).name}" if STOP.signal is not None else "(rclpy was shut down)"
            get_logger(f"{name}.stop").debug(f"{name}: stopped {how}")  # not on rosout: its context is gone
        code = _finish(node, name, code)
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
