"""Messages handed from subscription callbacks to the working thread, taken with a bounded wait.

The executor thread puts what arrives (keyed: an episode, a command id); the thread running the
job takes what it waits for, or gets None when the timeout passes first (the caller names what
did not arrive). One condition per mailbox: every put wakes the waiters to re-check.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


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
            if not self.cond.wait_for(lambda: key in self.items, timeout=timeout_s):
                return None
            return self.items.pop(key)

    def wait_until(self, ready: Callable[[], bool], timeout_s: float) -> bool:
        """Wait until ``ready()`` (called holding the lock) holds; False on timeout."""
        with self.cond:
            return self.cond.wait_for(ready, timeout=timeout_s)


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
            if not self.cond.wait_for(lambda: ready(self.items.get(key, [])), timeout=timeout_s):
                return None
            return list(self.items.get(key, []))

    def pop(self, key: K) -> list[V]:
        with self.cond:
            return self.items.pop(key, [])
