"""A runner's side of --live-wait: hold the first episode until a viewer watches the live view.

foxglove_live publishes the topics a viewer watches on /live/watched (latched); the runner waits
until they hold what it waits for (core/live.viewer_ready), for ``wait_s`` at most, then goes on
either way: a viewer is never part of what a run records. Without --live-wait it is a no-op.
"""

from __future__ import annotations

import threading

from rclpy.node import Node
from std_msgs.msg import String

from alpha_matrix.core.live import WATCHED_TOPIC, viewer_ready
from alpha_matrix.ros.qos import LATCHED


class LiveLink:
    def __init__(self, node: Node, wait_s: float, wait_for: list[str]) -> None:
        self.wait_s, self.wait_for = wait_s, wait_for
        self._ready = threading.Event()
        if wait_s > 0:
            node.create_subscription(String, WATCHED_TOPIC, self._on_watched, LATCHED)

    def _on_watched(self, msg: String) -> None:
        if viewer_ready(msg.data, self.wait_for):
            self._ready.set()

    def wait_viewer(self) -> None:
        """Call from the working thread, not the one spinning the node; says what it waited for."""
        if self.wait_s <= 0:
            return
        if not self._ready.is_set():
            what = ", ".join(self.wait_for) if self.wait_for else "a topic"
            print(f"live view: waiting up to {self.wait_s:g} s for a viewer to watch {what} (open it in Foxglove)",
                  flush=True)  # fmt: skip
        if self._ready.wait(self.wait_s):
            print("live view: a viewer watches; the run starts", flush=True)
        else:
            print(f"live view: no viewer within {self.wait_s:g} s; the run starts without one", flush=True)
