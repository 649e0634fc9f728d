"""A runner's side of the bag commit: no record without its evidence in the bag.

Before the first episode the runner waits until the recorder has discovered every node of the
graph and matched every publisher of the topics it records (a publisher killed before discovery
completed would take its messages with it); after each episode it waits for the recorder's commit (the episode's split closed and
listed) before appending the record. Without a recorder in the graph both are no-ops.
"""

from __future__ import annotations

import threading
import time

from alpha_matrix_interfaces.msg import BagCommit
from rclpy.node import Node
from std_srvs.srv import Trigger

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.ros.qos import COMMITS_TOPIC, EVENTS, READY_SERVICE
from alpha_matrix.ros.services import handshake

READY_POLL_S = 0.1
SAY_WAIT_AFTER_S = 2.0  # a longer wait is said in the log, with what the recorder waits for


class RecorderLink:
    def __init__(self, node: Node, recorder: str, timeout_s: float) -> None:
        self.recorder, self.timeout_s, self.log = recorder, timeout_s, node.get_logger()
        self._commits: set[str] = set()
        self._cond = threading.Condition()
        if recorder:
            self._ready = node.create_client(Trigger, f"/{recorder}/{READY_SERVICE}")
            node.create_subscription(BagCommit, f"/{recorder}/{COMMITS_TOPIC}", self._on_commit, EVENTS)

    def _on_commit(self, msg: BagCommit) -> None:
        with self._cond:
            self._commits.add(msg.episode_id)
            self._cond.notify_all()

    def wait_ready(self) -> None:
        """Call from the working thread, not the one spinning the node."""
        if not self.recorder:
            return
        start = time.monotonic()
        said = ""
        while not (reply := handshake(self._ready, Trigger.Request(), self.timeout_s)).success:
            waited = time.monotonic() - start
            if waited > self.timeout_s:
                raise AlphaMatrixError(f"{self.recorder} is not ready: {reply.message}")
            if waited > SAY_WAIT_AFTER_S and reply.message != said:
                said = reply.message
                self.log.info(f"waiting for {self.recorder}: {said}")
            time.sleep(READY_POLL_S)

    def committed(self, episode_id: str) -> None:
        """Wait until the recorder has made ``episode_id`` durable in the bag."""
        if not self.recorder:
            return
        with self._cond:
            if not self._cond.wait_for(lambda: episode_id in self._commits, timeout=self.timeout_s):
                raise AlphaMatrixError(
                    f"{self.recorder} did not commit {episode_id} to the bag within {self.timeout_s:.0f} s"
                )
            self._commits.discard(episode_id)
