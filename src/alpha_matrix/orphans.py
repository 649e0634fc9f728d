"""No orphans: a process of ours ends when the process that started it dies, however it dies.

An orphaned node would keep serving its ROS domain and silently join the next graph started
there; an orphaned shard of a Ray run would keep its graph up after Ray killed its task (Ray
ends only a worker's direct children, and nothing when the worker itself is killed).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
ENV = "ALPHA_MATRIX_DIE_WITH_PARENT"  # set by whoever starts an alpha-matrix command that must not outlive it


def die_with_parent(sig: int = signal.SIGTERM) -> None:
    """Linux: ask for ``sig`` when the parent dies (SIGTERM: the process stops cleanly, exit 0)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, sig)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent is already gone
        os.kill(os.getpid(), sig)


def die_with_parent_if_asked() -> None:
    """For the command line: die with the parent when it set ``ALPHA_MATRIX_DIE_WITH_PARENT=1``."""
    if os.environ.get(ENV) == "1":
        die_with_parent()
