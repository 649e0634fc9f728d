"""The stop path's last resort: a native timer exits even while a native call holds the GIL."""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc POSIX timers")


def _run(body: str) -> subprocess.CompletedProcess:
    code = "import ctypes, sys\nfrom alpha_matrix.ros.exit_timer import ExitTimer\n" + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_a_call_holding_the_gil_is_ended_with_the_planned_code() -> None:
    # PyDLL keeps the GIL across the call, as rclpy's destroy_node does when DDS hangs in it.
    done = _run("""
        with ExitTimer(1.0, 3) as t:
            assert t.armed
            ctypes.PyDLL(None).sleep(30)
        print("not reached")
    """)
    assert done.returncode == 3, done.stderr
    assert "not reached" not in done.stdout
    assert "Timeout" in done.stderr  # faulthandler's stacks, printed just before


def test_exit_code_zero_is_kept() -> None:
    done = _run("""
        with ExitTimer(0.5, 0):
            ctypes.PyDLL(None).sleep(30)
    """)
    assert done.returncode == 0, done.stderr


def test_a_block_that_ends_in_time_disarms_it() -> None:
    done = _run("""
        import time
        with ExitTimer(0.5, 3):
            pass
        time.sleep(1.0)
        print("after")
    """)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "after"
    assert "Timeout" not in done.stderr
