"""Ctrl-C that is never lost.

Python turns SIGINT into a KeyboardInterrupt wherever the main thread is. When that is inside a
weakref callback or a finalizer, the interpreter prints "Exception ignored in ..." and goes on.
It happens: importlib's module-lock callback runs during every import, and a Ctrl-C in the domain
probe's ``import rclpy`` was swallowed that way, so the whole run went on to its end (exit 0).
A Ctrl-C inside a C extension's module init comes out as an ImportError instead (rclpy's, in the
same probe). The handler here also remembers the signal; the launcher's waits and loops (and a Ray
run's wait for its shards) ``check`` it, so a swallowed interrupt still stops the command, the
"Exception ignored" traceback is not printed, and the command line takes an error that follows
it for the interrupt it is.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType
from typing import Any

POLL_S = 0.2  # s: how often a command's long wait (a graph, Ray shards) looks for a swallowed Ctrl-C
_received = threading.Event()
_default_unraisable = sys.unraisablehook


def on_signal(_sig: int, _frame: FrameType | None) -> None:
    """SIGINT's (and a graph run's SIGTERM's) handler: remembered, then raised as Ctrl-C."""
    _received.set()
    raise KeyboardInterrupt


def forget() -> None:
    """No stop signal received (a new command)."""
    _received.clear()


def install() -> None:
    """For the command line: the remembering handler on SIGINT (main thread only)."""
    forget()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, on_signal)
        sys.unraisablehook = _unraisable


def received() -> bool:
    """A stop signal came: an error raised after it is its consequence (an import it broke)."""
    return _received.is_set()


def check() -> None:
    """KeyboardInterrupt if a stop signal came, whether or not it was raised through (swallowed)."""
    if _received.is_set():
        raise KeyboardInterrupt


def _unraisable(info: Any) -> None:
    """The swallowed interrupt is remembered (``check``): no traceback for it; others as always."""
    if isinstance(info.exc_value, KeyboardInterrupt) and _received.is_set():
        return
    _default_unraisable(info)
