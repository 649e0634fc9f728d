"""A planned pick-and-place (core/robot/pick_place.py) run on the robot over the driver contract, and
the step stream's object poses it is measured from: the executives of the suites whose agents call
``pick_and_place`` (refusal, ambiguity) share it. Use from a thread other than the one spinning
the node (``spin_behind``), as RobotClient."""

from __future__ import annotations

import threading

from alpha_matrix_interfaces.msg import CommandStatus, StepBatch
from alpha_matrix_interfaces.srv import MoveTo
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.commands import Command
from alpha_matrix.core.robot.pick_place import MOTION, NO_SCENE, PoseSample, pose_sample
from alpha_matrix.ros.convert import point
from alpha_matrix.ros.mailbox import wait_ready
from alpha_matrix.ros.qos import STEP_STREAM
from alpha_matrix.ros.robot_client import RobotClient
from alpha_matrix.ros.services import call_service

RESET_TRIES = 50  # x RESET_RETRY_S: the bridge has not yet taken the item from suite/request
RESET_RETRY_S = 0.1


class PoseStream:
    """The current episode's object poses from the step stream, one per batch, without gaps."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self.episode, self.samples, self.last, self.gap = "", list[PoseSample](), 0, ""

    def start(self, episode: str) -> None:
        with self._cond:
            self.episode, self.samples, self.last, self.gap = episode, [], 0, ""

    def on_batch(self, msg: StepBatch) -> None:
        with self._cond:
            if msg.episode_id != self.episode or self.gap:
                return
            if msg.first_step != self.last + 1:
                self.gap = f"steps {self.last + 1}..{msg.first_step - 1} missing"
            self.samples.append(pose_sample(msg))
            self.last = msg.first_step + msg.num_steps - 1
            self._cond.notify_all()

    def until(self, step: int, timeout_s: float) -> list[PoseSample]:
        with self._cond:
            if not wait_ready(self._cond, lambda: self.last >= step or bool(self.gap), timeout_s):
                raise AlphaMatrixError(f"the step stream stopped at step {self.last} of {step}")
            if self.gap:
                raise AlphaMatrixError(f"the step stream of {self.episode} has a gap: {self.gap}")
            return list(self.samples)


class PickPlaceLink:
    """Reach checks, the episode's reset (retried while the bridge waits for the item), and a
    motion's commands run to their end; the poses measured from the step stream."""

    def __init__(self, node: Node, timeout_s: float) -> None:
        self.timeout = timeout_s
        self.robot = RobotClient(node, timeout_s)
        self.stream = PoseStream()
        node.create_subscription(StepBatch, "robot/step_batch", self.stream.on_batch, STEP_STREAM)

    def reachable(self, target: tuple[float, float, float]) -> bool:
        req = MoveTo.Request(target=point(target), steps=1, validate_only=True)
        return bool(call_service(self.robot.move_cli, req, self.timeout).accepted)

    def reset(self, episode_id: str, seed: int) -> None:
        """Reset the robot's episode (the bridge spawns the item's scene); the stream starts anew."""
        self.stream.start(episode_id)
        for _ in range(RESET_TRIES):
            try:
                self.robot.reset(episode_id, seed, MOTION.settle_steps)
                return
            except AlphaMatrixError as err:
                if NO_SCENE not in str(err):
                    raise
            threading.Event().wait(RESET_RETRY_S)
        raise AlphaMatrixError(f"the bridge has no scene for {episode_id} after {RESET_TRIES} tries")

    def run(self, commands: tuple[Command, ...]) -> tuple[int, list[PoseSample]]:
        """Send ``commands``, wait for the last; (its end step, the episode's samples so far)."""
        last = 0
        for cmd in commands:
            reply = self.robot.send(cmd)
            if not reply.accepted:
                raise AlphaMatrixError(f"{cmd.kind} refused by the robot: {reply.message}")
            last = reply.command_id
        status = self.robot.wait(last)
        if status.state != CommandStatus.DONE:
            raise AlphaMatrixError(f"the pick-and-place did not finish: {status.message}")
        return int(status.end_step), self.stream.until(status.end_step, self.timeout)


__all__ = ["PickPlaceLink", "PoseStream"]
