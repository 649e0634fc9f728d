"""step_consumer: the smallest gating consumer of the step stream.

Acks every StepBatch, and may request a protective stop (and a resume) decided at fixed
steps. It shows the contract a safety node must follow (a decision stamped with its step,
its request counted in the next ack) and lets tests check that stops land deterministically.
"""

from __future__ import annotations

from alpha_matrix_interfaces.msg import StepBatch
from rclpy.node import Node

from alpha_matrix.core.matrix.params import StepConsumerParams
from alpha_matrix.ros.gating import GatingLink
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import STEP_STREAM


class StepConsumer(Node):
    def __init__(self) -> None:
        super().__init__("step_consumer")
        self.params = declare_params(self, StepConsumerParams)
        self.gating = GatingLink(self)  # hello until the first batch, then acks
        self.create_subscription(StepBatch, "robot/step_batch", self._on_batch, STEP_STREAM)

    def _on_batch(self, msg: StepBatch) -> None:
        self.gating.streaming()
        last = msg.first_step + msg.num_steps - 1
        for step in range(msg.first_step, last + 1):
            for at, engage in ((self.params.stop_at_step, True), (self.params.resume_at_step, False)):
                if at and step == at:
                    reason = "scheduled test stop" if engage else "scheduled resume"
                    self.gating.request_stop(msg.episode_id, engage, step, reason)
        self.gating.ack(msg.episode_id, last)


def main(args: list[str] | None = None) -> int:
    return run_node(StepConsumer, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
