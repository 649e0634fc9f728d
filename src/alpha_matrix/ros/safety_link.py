"""A runner's side of the safety monitor: the episode's end announced, the monitor's account awaited.

The runner publishes episode/end (last step); the monitor answers with its closed events
(safety/events) and one summary (safety/summary) that counts them. Without a monitor in the
graph the end is still announced (the recorder and other consumers close on it) and there is
no account.
"""

from __future__ import annotations

import threading

from alpha_matrix_interfaces.msg import EpisodeEnd, SafetyEvent, SafetySummary
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.episode import safety_complete, safety_record
from alpha_matrix.core.records import SafetyRecord
from alpha_matrix.ros.qos import EVENTS


class SafetyLink:
    def __init__(self, node: Node, monitor: bool, timeout_s: float) -> None:
        self.monitor, self.timeout_s = monitor, timeout_s
        self._cond = threading.Condition()
        self._events: dict[str, list[SafetyEvent]] = {}
        self._summaries: dict[str, SafetySummary] = {}
        self.end_pub = node.create_publisher(EpisodeEnd, "episode/end", EVENTS)
        node.create_subscription(SafetyEvent, "safety/events", self._on_event, EVENTS)
        node.create_subscription(SafetySummary, "safety/summary", self._on_summary, EVENTS)

    def _on_event(self, msg: SafetyEvent) -> None:
        if msg.closed:
            with self._cond:
                self._events.setdefault(msg.episode_id, []).append(msg)
                self._cond.notify_all()

    def _on_summary(self, msg: SafetySummary) -> None:
        with self._cond:
            self._summaries[msg.episode_id] = msg
            self._cond.notify_all()

    def account(self, episode_id: str, last_step: int) -> SafetyRecord | None:
        """Tell consumers the episode ended; with a monitor, wait for its account of every step."""
        self.end_pub.publish(EpisodeEnd(episode_id=episode_id, last_step=last_step))
        if not self.monitor:
            return None
        with self._cond:

            def complete() -> bool:
                return safety_complete(self._summaries.get(episode_id), len(self._events.get(episode_id, [])))

            if not self._cond.wait_for(complete, timeout=self.timeout_s):
                raise AlphaMatrixError(f"no complete safety account for {episode_id} within {self.timeout_s:.0f} s")
            summary = self._summaries.pop(episode_id)
            events = self._events.pop(episode_id, [])
        return safety_record(summary, events)
