"""A last-resort exit that fires even while a native call holds the GIL.

After a stop signal, rclpy's ``destroy_node`` can hang inside the DDS teardown (seen in CI: an
oracle stuck in ``destroy_when_not_in_use`` for 30 s). That call holds the GIL, so no Python
timer or signal handler can run. A POSIX timer with SIGEV_THREAD runs its function on a thread
glibc starts, outside Python: pointing that function at libc's ``_exit`` ends the process with
the exit code it was going to have. The node's own flush runs before the teardown, so nothing it
owns is lost. faulthandler's watchdog (also native) prints the stacks just before, for the log.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import faulthandler
import sys

_SIGEV_THREAD = 2
_CLOCK_MONOTONIC = 1


class _SigEvent(ctypes.Structure):  # glibc struct sigevent (64 bytes)
    _fields_ = [
        ("sigev_value", ctypes.c_void_p),  # union sigval: passed to the function, _exit's status
        ("sigev_signo", ctypes.c_int),
        ("sigev_notify", ctypes.c_int),
        ("sigev_notify_function", ctypes.c_void_p),
        ("sigev_notify_attributes", ctypes.c_void_p),
        ("_pad", ctypes.c_byte * 32),
    ]


class _TimeSpec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class _ITimerSpec(ctypes.Structure):
    _fields_ = [("it_interval", _TimeSpec), ("it_value", _TimeSpec)]


def _find_libc() -> ctypes.CDLL | None:
    """libc with timer_create (glibc < 2.34 keeps it in librt). Called once, at import: looking
    for librt runs ``ldconfig`` in a child process, and a fork in a node whose DDS threads are
    up can crash it (CI: a segfault in find_library during a teardown)."""
    if not sys.platform.startswith("linux"):
        return None
    for name in (None, "rt"):
        try:
            lib = ctypes.CDLL(name if name is None else ctypes.util.find_library(name), use_errno=True)
            lib.timer_create  # noqa: B018
        except (OSError, AttributeError):
            continue
        return lib
    return None


_LIBC = _find_libc()


class ExitTimer:
    """``with ExitTimer(seconds, code):`` -- if the block has not ended by then, _exit(code)."""

    def __init__(self, seconds: float, code: int) -> None:
        self.seconds, self.code = seconds, code
        self._lib = _LIBC
        self._timer = ctypes.c_void_p()
        self._armed = False

    def __enter__(self) -> ExitTimer:
        sys.stdout.flush()
        sys.stderr.flush()
        faulthandler.dump_traceback_later(max(self.seconds - 0.5, 0.1), exit=False)
        lib = self._lib
        if lib is None:  # not Linux/glibc: the stacks are printed, the launcher's escalation ends it
            return self
        exit_fn = ctypes.cast(lib._exit, ctypes.c_void_p).value
        event = _SigEvent(sigev_value=self.code, sigev_notify=_SIGEV_THREAD, sigev_notify_function=exit_fn)
        if lib.timer_create(_CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(self._timer)) != 0:
            return self
        whole = int(self.seconds)
        spec = _ITimerSpec(it_value=_TimeSpec(whole, int((self.seconds - whole) * 1e9)))
        self._armed = lib.timer_settime(self._timer, 0, ctypes.byref(spec), None) == 0
        return self

    def __exit__(self, *_exc: object) -> None:
        faulthandler.cancel_dump_traceback_later()
        if self._lib is not None and self._timer.value is not None:
            self._lib.timer_delete(self._timer)
        self._armed = False

    @property
    def armed(self) -> bool:
        return self._armed
