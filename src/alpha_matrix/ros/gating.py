"""A gating consumer's side of the step stream (core/robot/gate.py): hello, acks, stop requests.

Until its first batch a consumer says hello (an empty ack, every 0.1 s once the stream's
publisher, and the stop service if it may stop the robot, are matched), so the bridge knows it
is there. It then acks each batch it has fully processed (a flow consumer every few batches), counting the protective stops it has
requested: the bridge credits an ack only once it has received that many requests, since acks
and requests travel on different channels.
"""

from __future__ import annotations

from alpha_matrix_interfaces.msg import StepAck
from alpha_matrix_interfaces.srv import ProtectiveStop
from rclpy.node import Node

from alpha_matrix.core.robot.gate import AckSpacing
from alpha_matrix.ros.qos import STREAM

HELLO_S = 0.1
KEEPALIVE_S = 5.0  # a consumer that may think long (an agent) re-sends its last ack this often: well under the bridge's ack timeout
STEP_TOPIC = "robot/step_batch"


class GatingLink:
    """``node`` names the consumer; ``io`` (default: the node) holds the publisher, client and timer.
    ``stops``: the consumer may request protective stops (robot/protective_stop). ``ack_every``:
    steps between two acks of a flow consumer (core/robot/gate.flow_ack_every); 1 for a decider."""

    def __init__(
        self, node: Node, stops: bool = True, io: Node | None = None, keepalive: bool = False, ack_every: int = 1
    ) -> None:
        self.node, self.io = node, io or node
        self._spacing = AckSpacing(ack_every)
        self.name = node.get_name()
        self.requests_issued = 0
        self.ack_pub = self.io.create_publisher(StepAck, "robot/step_ack", STREAM)
        self.stop_cli = self.io.create_client(ProtectiveStop, "robot/protective_stop") if stops else None
        self._streaming = False
        self._hello = self.io.create_timer(HELLO_S, self._say_hello)
        self._last: StepAck | None = None
        if keepalive:  # the bridge's ack timeout is for dead consumers, not slow ones
            self.io.create_timer(KEEPALIVE_S, self._keepalive)

    def _say_hello(self) -> None:
        if self._streaming:  # cancelled on the timer's own thread (it may be another node's executor)
            self._hello.cancel()
            return
        if self.io.count_publishers(STEP_TOPIC) > 0 and (self.stop_cli is None or self.stop_cli.service_is_ready()):
            self.ack_pub.publish(StepAck(consumer=self.name, episode_id="", step=0, requests_issued=0))

    def streaming(self) -> None:
        """The stream has reached this consumer: no more hellos, acks from now on."""
        self._streaming = True

    def ack(self, episode_id: str, step: int) -> None:
        """This consumer has processed ``step`` (the last of a batch): acked if it is due."""
        if not self._spacing.due(episode_id, step):
            return
        self._last = StepAck(consumer=self.name, episode_id=episode_id, step=step, requests_issued=self.requests_issued)
        self.ack_pub.publish(self._last)

    def _keepalive(self) -> None:
        if (last := self._last) is not None:  # the same ack again: credits nothing new, says "alive"
            self.ack_pub.publish(last)

    def request_stop(
        self,
        episode_id: str,
        engage: bool,
        decision_step: int,
        reason: str,
        log_refusal=None,
        source: str = "",  # noqa: ANN001
    ) -> None:
        """Ask for a stop (engage) or a resume decided at ``decision_step``; it is counted in the
        next ack. ``log_refusal(message)`` hears of a refusal, if given. ``source`` names a second
        stop of this consumer (``<name>:<source>``: held apart, counted with the consumer's)."""
        assert self.stop_cli is not None
        self.requests_issued += 1
        requester = f"{self.name}:{source}" if source else self.name
        req = ProtectiveStop.Request(
            episode_id=episode_id, engage=engage, decision_step=decision_step, requester=requester, reason=reason
        )
        future = self.stop_cli.call_async(req)
        if log_refusal is not None:
            future.add_done_callback(lambda f: _refused(f, log_refusal))


def _refused(future, log_refusal) -> None:  # noqa: ANN001
    reply = future.result()
    if reply is not None and not reply.accepted:
        log_refusal(f"protective stop request refused: {reply.message}")
