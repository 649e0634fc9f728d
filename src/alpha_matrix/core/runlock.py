"""Exclusive holds on files (run and bag directories, ROS domain ids) for a process's lifetime.

Two runs writing one run directory, one bag or one ROS domain would mix silently. Each hold
is an ``fcntl.flock`` on a lock file that names the holder's pid: the kernel drops it when
the holder exits, however it exits, so a lock file left by a dead process is not a hold.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from alpha_matrix.core.errors import AlphaMatrixError


class InUseError(AlphaMatrixError):
    """What a run needs for itself is held by another live process."""


def _holder(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def ancestors(pid: int | None = None) -> set[int]:
    """The pids above ``pid`` (default: this process) up to init, from /proc."""
    out: set[int] = set()
    pid = os.getpid() if pid is None else pid
    while pid > 1:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # the name in () may hold spaces
        if pid in out:  # a cycle cannot happen in /proc, but never loop on a bad read
            break
        out.add(pid)
    return out


@dataclass
class Hold:
    """One held lock file; ``release()`` (or process exit) lets it go."""

    path: Path
    fd: int | None
    unlink: bool
    holder: int = field(default_factory=os.getpid)

    def release(self) -> None:
        if self.fd is None:
            return
        if self.unlink:  # unlinked while still held: a waiter re-checks the inode (see take)
            with contextlib.suppress(OSError):
                self.path.unlink()
        os.close(self.fd)
        self.fd = None


def try_hold(path: Path, unlink: bool = False) -> Hold | int | None:
    """Hold ``path`` (created if missing); else the holder's pid (None when unknown).

    With ``unlink`` the file is removed on release, so a finished run leaves nothing behind.
    """
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return _holder(path)
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if not same:  # its holder released and removed it between our open and flock: try again
            os.close(fd)
            continue
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return Hold(path, fd, unlink)


def dir_lock_path(directory: Path) -> Path:
    """``runs/<id>`` -> ``runs/.<id>.lock``: beside the directory (never inside it), and hidden
    (a run id starts with a letter or digit, so no run directory can be named like a lock)."""
    return directory.parent / f".{directory.name}.lock"


@dataclass
class RunLock:
    """Holds the run's directories (e.g. runs/<id>, bags/<id>) for as long as the run lasts."""

    holds: list[Hold] = field(default_factory=list)
    made: list[Path] = field(default_factory=list)  # parent directories taking the locks created

    def release(self) -> None:
        for hold in reversed(self.holds):
            hold.release()
        self.holds.clear()

    def discard(self) -> None:
        """Release, and remove the (empty) directories made for the locks: a run refused after
        its locks were taken leaves nothing behind."""
        self.release()
        for p in reversed(self.made):
            with contextlib.suppress(OSError):
                p.rmdir()
        self.made.clear()

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def lock_dirs(directories: Iterable[Path], what: str = "run") -> RunLock:
    """Hold every directory's lock, or none: InUseError names the directory and the live holder.

    A refused attempt writes nothing (a lock file or parent directory it made is removed again).
    """
    lock = RunLock()
    try:
        for directory in directories:
            parent = directory.parent
            lock.made.extend(reversed([p for p in (parent, *parent.parents) if not p.exists()]))
            try:
                parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise AlphaMatrixError(f"{parent}: cannot create ({err.strerror})") from None
            try:
                got = try_hold(dir_lock_path(directory), unlink=True)
            except OSError as err:
                raise AlphaMatrixError(f"{directory}: cannot take its lock ({err.strerror})") from None
            if not isinstance(got, Hold):
                who = f"pid {got}" if got is not None else "another process"
                raise InUseError(f"{directory} is in use by a live {what} ({who}); nothing was started")
            lock.holds.append(got)
    except BaseException:
        lock.discard()
        raise
    return lock
