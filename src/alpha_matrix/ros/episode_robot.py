"""A runner's side of the robot: the episode's reset (and its closed-loop nudge), the settled
scene, the world as it is, and how far the observation stream has come.

The statuses arrive on robot/command_status, which the chaos node intercepts when it is in the
graph (F1 delays them); ``observe`` asks the robot itself, never through the chaos node: that
is what the outcome is judged on.
"""

from __future__ import annotations

from alpha_matrix_interfaces.msg import CommandStatus
from alpha_matrix_interfaces.srv import Disturb, Observe, Reset
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.ros.mailbox import Mailbox
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.services import call_service

TERMINAL = (CommandStatus.DONE, CommandStatus.CANCELLED)


class EpisodeRobot:
    def __init__(self, node: Node, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self.reset_cli = node.create_client(Reset, "robot/reset")
        self.disturb_cli = node.create_client(Disturb, "sim/disturb")
        self.observe_cli = node.create_client(Observe, "robot/observe")
        self.statuses: Mailbox[int, CommandStatus] = Mailbox()
        self.observed: dict[str, int] = {}  # per episode, the last step the observation stream reached
        node.create_subscription(CommandStatus, "robot/command_status", self._on_status, EVENTS)

    def _on_status(self, msg: CommandStatus) -> None:
        if msg.state in TERMINAL:
            with self.statuses.cond:
                self.observed[msg.episode_id] = max(self.observed.get(msg.episode_id, 0), msg.end_step)
            self.statuses.put(msg.command_id, msg)

    def reset(self, episode_id: str, seed: int, settle_steps: int, nudge: Disturb.Request | None) -> CommandStatus:
        """Reset, schedule the nudge (before the plan exists: the world cannot pass the settle
        before then), and return the settled status."""
        reply = call_service(
            self.reset_cli, Reset.Request(episode_id=episode_id, seed=seed, settle_steps=settle_steps), self.timeout_s
        )
        if not reply.accepted:
            raise AlphaMatrixError(f"reset refused: {reply.message}")
        if nudge is not None and not (r := call_service(self.disturb_cli, nudge, self.timeout_s)).accepted:
            raise AlphaMatrixError(f"disturbance refused: {r.message}")
        if (settled := self.statuses.take(reply.command_id, self.timeout_s)) is None:
            raise AlphaMatrixError(f"robot command {reply.command_id} did not finish within {self.timeout_s:.0f} s")
        return settled

    def observe(self) -> Observe.Response:
        return call_service(self.observe_cli, Observe.Request(), self.timeout_s)

    def observed_through(self, episode_id: str, step: int) -> None:
        """Wait until the observation stream (possibly delayed by the chaos node) reached ``step``:
        every injection on it has then been made and can be reported."""
        if not self.statuses.wait_until(lambda: self.observed.get(episode_id, 0) >= step, self.timeout_s):
            raise AlphaMatrixError(f"{episode_id}: no observation of step {step} within {self.timeout_s:.0f} s")
        with self.statuses.cond:
            self.observed.pop(episode_id, None)
