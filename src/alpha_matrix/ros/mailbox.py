"""Messages handed from subscription callbacks to the working thread, taken with a bounded wait.

The executor thread puts what arrives (keyed: an episode, a command id); the thread running the
job takes what it waits for, or gets None when the timeout passes first (the caller names what
did not arrive). One condition per mailbox: every put wakes the waiters to re-check. A wait
ends early, as a timeout, once this process has its stop signal: the sender may be stopping too,
and a wait run outside interruptible work (an executive's ``finally``) kept a node deaf to
SIGINT and SIGTERM under ``ros2 launch`` until it was killed (seen in CI).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

from alpha_matrix.ros.stop import STOP, STOP_POLL_S

K = TypeVar("K")
V = TypeVar("V")


def wait_ready(cond: threading.Condition, ready: Callable[[], bool], timeout_s: float) -> bool:
    """``cond.wait_for(ready, timeout_s)`` (called holding ``cond``), False at a stop signal too."""
    deadline = time.monotonic() + timeout_s
    while not ready():
        left = deadline - time.monotonic()
        if left <= 0 or STOP.signal is not None:
            return False
        cond.wait(min(left, STOP_POLL_S))
    return True


class Mailbox(Generic[K, V]):
    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.items: dict[K, V] = {}

    def put(self, key: K, value: V) -> None:
        with self.cond:
            self.items[key] = value
            self.cond.notify_all()

    def take(self, key: K, timeout_s: float) -> V | None:
        """The value kept for ``key`` (removed), or None if none arrived within ``timeout_s``."""
        with self.cond:
            if not wait_ready(self.cond, lambda: key in self.items, timeout_s):
                return None
            return self.items.pop(key)

    def wait_until(self, ready: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until ``ready()`` (called holding the lock) holds; False on timeout."""
        with self.cond:
            return wait_ready(self.cond, ready, timeout_s)


class ListBox(Generic[K, V]):
    """Messages gathered per key in arrival order (an episode's stream of truths, estimates, events)."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.items: dict[K, list[V]] = {}

    def append(self, key: K, value: V) -> None:
        with self.cond:
            self.items.setdefault(key, []).append(value)
            self.cond.notify_all()

    def wait_until(self, ready: Callable[[list[V]], bool], key: K, timeout_s: float) -> list[V] | None:
        """A copy of the list of ``key`` once ``ready(list)`` holds; None on timeout."""
        with self.cond:
            if not wait_ready(self.cond, lambda: ready(self.items.get(key, [])), timeout_s):
                return None
            return list(self.items.get(key, []))

    def pop(self, key: K) -> list[V]:
        with self.cond:
            return self.items.pop(key, [])
