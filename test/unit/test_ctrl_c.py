"""A Ctrl-C that Python swallows (raised inside a weakref callback, as importlib's module-lock
callback is during an import) still stops the command: ctrl_c remembers it and ``check`` raises."""

from __future__ import annotations

import queue
import subprocess
import sys

import pytest

# The interrupt lands while a weakref callback runs: Python prints "Exception ignored" and goes on.
SWALLOW = """
import signal, sys, weakref
{install}
class Thing: pass
thing = Thing()
ref = weakref.ref(thing, lambda _ref: signal.raise_signal(signal.SIGINT))
del thing
print("went on", flush=True)
from alpha_matrix import ctrl_c
try:
    ctrl_c.check()
except KeyboardInterrupt:
    print("stopped", flush=True)
"""


def _swallowed(install: str) -> subprocess.CompletedProcess[str]:
    code = SWALLOW.format(install=install)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_python_alone_loses_a_ctrl_c_in_a_weakref_callback():
    # The behaviour ctrl_c is there for: the interrupt is printed as ignored and the program goes on.
    done = _swallowed(install="")
    assert "went on" in done.stdout and "stopped" not in done.stdout
    assert "Exception ignored" in done.stderr and "KeyboardInterrupt" in done.stderr


def test_a_swallowed_ctrl_c_is_remembered_and_raised_by_check_without_a_traceback():
    done = _swallowed(install="from alpha_matrix import ctrl_c; ctrl_c.install()")
    assert done.stdout.split() == ["went", "on", "stopped"], done.stdout + done.stderr
    assert done.stderr == ""


def test_a_graph_wait_raises_a_remembered_ctrl_c():
    from alpha_matrix import ctrl_c
    from alpha_matrix.launcher import _next_code

    codes: queue.Queue[int] = queue.Queue()
    codes.put(0)
    assert _next_code(codes) == 0  # nothing received: the graph's code
    try:
        with pytest.raises(KeyboardInterrupt):
            ctrl_c.on_signal(2, None)  # as if swallowed: the handler ran, its raise went nowhere
        with pytest.raises(KeyboardInterrupt):
            _next_code(codes)  # the queue is empty: it would wait for ever without the flag
    finally:
        ctrl_c.forget()
