"""step_consumer: the smallest gating consumer of the step stream.

Acks every StepBatch, and may request a protective stop (and a resume) decided at fixed
steps. It shows the contract a safety node must follow (a decision stamped with its step,
its request counted in the next ack) and lets tests check that stops land deterministically.
"""

from __future__ import annotations

from alpha_matrix_interfaces.msg import StepAck, StepBatch
from alpha_matrix_interfaces.srv import ProtectiveStop
from rclpy.node import Node

from alpha_matrix.core.config import StepConsumerParams
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import STEP_STREAM, STREAM


class StepConsumer(Node):
    def __init__(self) -> None:
        super().__init__("step_consumer")
        self.params = declare_params(self, StepConsumerParams)
        self.requests_issued = 0
        self.ack_pub = self.create_publisher(StepAck, "robot/step_ack", STREAM)
        self.stop_cli = self.create_client(ProtectiveStop, "robot/protective_stop")
        self.create_subscription(StepBatch, "robot/step_batch", self._on_batch, STEP_STREAM)
        self._hello = self.create_timer(0.1, self._say_hello)

    def _say_hello(self) -> None:
        """Until the first batch: tell the bridge we are here, once our subscription is matched."""
        if self.count_publishers("robot/step_batch") > 0 and self.stop_cli.service_is_ready():
            self.ack_pub.publish(
                StepAck(consumer=self.get_name(), episode_id="", step=0, requests_issued=self.requests_issued)
            )

    def _on_batch(self, msg: StepBatch) -> None:
        if self._hello is not None:
            self._hello.cancel()
            self._hello = None
        last = msg.first_step + msg.num_steps - 1
        for step in range(msg.first_step, last + 1):
            for at, engage in ((self.params.stop_at_step, True), (self.params.resume_at_step, False)):
                if at and step == at:
                    self.requests_issued += 1
                    self.stop_cli.call_async(
                        ProtectiveStop.Request(
                            episode_id=msg.episode_id,
                            engage=engage,
                            decision_step=step,
                            requester=self.get_name(),
                            reason="scheduled test stop" if engage else "scheduled resume",
                        )
                    )
        self.ack_pub.publish(
            StepAck(
                consumer=self.get_name(), episode_id=msg.episode_id, step=last, requests_issued=self.requests_issued
            )
        )


def main(args: list[str] | None = None) -> int:
    return run_node(StepConsumer, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
