"""One loop for the job executives: requests taken in order, each answered with one result.

The plan executive (executive) and the suites' executives (ros/suite_executive.py) take their
requests from a topic into a queue and handle each in the main thread with blocking calls, the
executor spinning behind (``spin_behind``); the loop ends when rclpy shuts down.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from typing import Generic, TypeVar

import rclpy

R = TypeVar("R")
S = TypeVar("S")
POLL_S = 0.5  # the longest a stopped loop keeps waiting for a request


class RequestQueue(Generic[R]):
    def __init__(self) -> None:
        self._queue: queue.Queue[R] = queue.Queue()

    def put(self, request: R) -> None:
        """A subscription callback: requests are queued in arrival order."""
        self._queue.put(request)

    def serve(self, handle: Callable[[R], S], publish: Callable[[S], None]) -> None:
        """Handle every request in order and publish its result, until rclpy shuts down."""
        while rclpy.ok():
            try:
                request = self._queue.get(timeout=POLL_S)
            except queue.Empty:
                continue
            publish(handle(request))
