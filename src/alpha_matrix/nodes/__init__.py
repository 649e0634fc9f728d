"""Thin ROS 2 nodes: translate between messages and the core, one node per module.

A node process imports this package first (``python -m alpha_matrix.nodes.<node>``, or the
``<node>`` entry point ``ros2 launch`` starts). Two things are set up here, before the node's
imports (rclpy, numpy, pydantic: seconds on a loaded machine):

* SIGINT and SIGTERM end the process at once with exit 0 until ros/lifecycle.py's own handlers
  replace these: a node stopped while it still imports has nothing to flush, and Python's default
  turned a Ctrl-C there into a KeyboardInterrupt traceback and a death by signal 2 that the
  launcher reported as a failure. The plain launcher starts a node with both signals blocked
  (launcher.held_stop_signals), so one sent while the interpreter itself starts waits for this
  handler; they are unblocked here.
* pybullet's build-time banner, printed by its C code at import, goes to the node's log, not the
  terminal (core/quiet.py).

Only in a node process: a test or a tool importing a node module keeps its own handlers.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path


def _started_as_node() -> bool:
    """This process is a node: ``python -m alpha_matrix.nodes.<node>`` (runpy imports this package
    while ``sys.argv[0]`` is still ``-m``) or a node's entry point (``.../<node>``)."""
    prog = sys.argv[0] if sys.argv else ""
    if prog == "-m":
        return True
    name = os.path.basename(prog)
    return bool(name) and not name.startswith("_") and (Path(__file__).parent / f"{name}.py").is_file()


def _stopped_while_starting(_signum: int, _frame: object) -> None:
    os._exit(0)


if _started_as_node() and threading.current_thread() is threading.main_thread():
    for _sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(_sig, _stopped_while_starting)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})  # a pending one ends us here
    from alpha_matrix.core.quiet import quiet_imports

    quiet_imports("pybullet")
