"""Fast DDS shared-memory files of processes that died without closing their DDS participant.

With localhost discovery (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST) rmw_fastrtps always adds
Fast DDS's shared-memory transport. A participant that is killed (kill -9, the launcher's SIGKILL
after its grace, a hung teardown ended natively) leaves its port and segment files in /dev/shm. The
next participant given that port finds it, judges it a zombie and recreates it, while a process
that opened the old one can go on writing into it: every message on that path is lost for good,
e.g. a service reply that never comes (eProsima/Fast-DDS#4728, #5469). Before a graph starts, the
files whose owner is gone are removed, as Fast DDS's own `fastdds shm clean` does: a file is stale
when no live process holds its lock (the kernel drops a dead process's locks). A file touched in
the last ``FRESH_S`` is not removed however it looks: a participant that is building its port
has created the files and not yet taken the lock, and removing them then would have two
processes build one port; a damaged port kills its peers in Fast
DDS's discovery thread (eProsima/Fast-DDS#6501; benchmarks/shm_port_crash.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import time
from pathlib import Path

SHM_DIR = Path("/dev/shm")
# A port (fastdds_port7413) or a participant's segment (fastdds_0123456789abcdef), by its lock file.
_LOCK = re.compile(r"^(fastdds_(?:port\d{1,5}|[0-9a-f]{16}))_(?:el|sl)$")


def _held(lock: Path) -> bool:
    """Whether a live process holds the lock file (taking it, without waiting, fails)."""
    try:
        with open(lock, "ab") as f:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when the file closes below
    except OSError:
        return True
    return False


FRESH_S = 5.0  # a port or segment younger than this may be being built: never judged


def _fresh(paths: list[Path], now: float) -> bool:
    for path in paths:
        try:
            st = path.stat()
        except FileNotFoundError:
            continue
        if now - max(st.st_mtime, st.st_ctime) < FRESH_S:
            return True
    return False


def stale_shm(shm_dir: Path = SHM_DIR) -> tuple[dict[str, list[str]], list[str]]:
    """(The Fast DDS ports and segments no live process holds: base name -> its lock files, the
    unheld ones too fresh to judge yet)."""
    try:
        names = os.listdir(shm_dir)
    except OSError:  # no /dev/shm (not Linux): nothing of Fast DDS's here
        return {}, []
    locks: dict[str, list[str]] = {}
    for name in names:
        if m := _LOCK.match(name):
            locks.setdefault(m.group(1), []).append(name)
    now, stale, fresh = time.time(), {}, []
    for base, found in sorted(locks.items()):
        if any(_held(shm_dir / n) for n in found):
            continue
        if _fresh([shm_dir / base, *(shm_dir / n for n in found)], now):
            fresh.append(base)  # unheld, but maybe only not locked yet
        else:
            stale[base] = found
    return stale, fresh


def clean_stale_shm(shm_dir: Path = SHM_DIR) -> int:
    """Remove the Fast DDS ports and segments no live process holds; how many were removed. Files
    too fresh to judge are waited for (at most ``FRESH_S``): a node killed a moment ago leaves
    its port for the next graph to trip over."""
    stale, fresh = stale_shm(shm_dir)
    deadline = time.monotonic() + FRESH_S
    while fresh and time.monotonic() < deadline:
        time.sleep(0.25)
        stale, fresh = stale_shm(shm_dir)
    for base, found in stale.items():
        files = [*found, base]
        if base.startswith("fastdds_port"):
            files.append(f"sem.{base}_mutex")  # a port's named semaphore
        for file in files:
            with contextlib.suppress(FileNotFoundError):
                (shm_dir / file).unlink()
    return len(stale)
