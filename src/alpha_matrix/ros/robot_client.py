"""Blocking driver-contract calls for the suite executives (robot/reset, move_to, gripper, hold,
protective_stop, observe) and the terminal statuses they wait on. Use from a thread other than
the one spinning the node (``spin_behind``)."""

from __future__ import annotations

import threading
import time
from typing import Any

from alpha_matrix_interfaces.msg import CommandStatus
from alpha_matrix_interfaces.srv import Gripper, Hold, MoveTo, ProtectiveStop, Reset
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.commands import Command
from alpha_matrix.core.suites.confidence.skills import SceneGeometry, SkillState, infer_holding
from alpha_matrix.ros.agent_progress import AgentProgress
from alpha_matrix.ros.convert import point, poses_of, vec3
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.services import call_service, handshake

TERMINAL = (CommandStatus.DONE, CommandStatus.CANCELLED)


class RobotClient:
    """``agent_wait_s`` > 0: the robot may be held while the agent under test decides (a guard or
    link between them); every wait then runs from the agent's last decision (ros/agent_progress.py)."""

    def __init__(self, node: Node, timeout_s: float, agent_wait_s: float = 0.0) -> None:
        self.node, self.timeout = node, timeout_s
        self.progress = AgentProgress(node, agent_wait_s) if agent_wait_s > 0 else None
        self.reset_cli = node.create_client(Reset, "robot/reset")
        self.move_cli = node.create_client(MoveTo, "robot/move_to")
        self.grip_cli = node.create_client(Gripper, "robot/gripper")
        self.hold_cli = node.create_client(Hold, "robot/hold")
        self.stop_cli = node.create_client(ProtectiveStop, "robot/protective_stop")
        self._status: dict[tuple[str, int], CommandStatus] = {}
        self._cond = threading.Condition()
        self.episode = ""
        node.create_subscription(CommandStatus, "robot/command_status", self._on_status, EVENTS)

    def _on_status(self, msg: CommandStatus) -> None:
        if msg.state in TERMINAL:
            with self._cond:
                self._status[(msg.episode_id, msg.command_id)] = msg
                self._cond.notify_all()

    def wait(self, command_id: int) -> CommandStatus:
        key, start = (self.episode, command_id), time.monotonic()
        with self._cond:
            while key not in self._status:
                left = (self.progress.deadline(start, self.timeout) if self.progress else start + self.timeout) - (
                    time.monotonic()
                )
                if left <= 0:
                    waited = time.monotonic() - start
                    raise AlphaMatrixError(f"command {command_id} did not finish within {waited:.0f} s")
                self._cond.wait(min(left, 1.0))
            return self._status.pop(key)

    def handshake(self) -> None:
        handshake_motion(self.move_cli, self.grip_cli, self.hold_cli, self.timeout)

    def reset(self, episode_id: str, seed: int, settle_steps: int) -> CommandStatus:
        self.episode = episode_id
        with self._cond:
            self._status = {k: v for k, v in self._status.items() if k[0] != episode_id}
        reply = call_service(
            self.reset_cli, Reset.Request(episode_id=episode_id, seed=seed, settle_steps=settle_steps), self.timeout
        )
        if not reply.accepted:
            raise AlphaMatrixError(f"reset refused: {reply.message}")
        return self.wait(reply.command_id)

    def send(self, cmd: Command):  # noqa: ANN201 - MoveTo or Gripper response
        """Queue one motion command; the reply (accepted, command_id, message, reason_code)."""
        return call_service(
            *command_call(cmd, self.move_cli, self.grip_cli, self.hold_cli), self.timeout, self.progress
        )

    def hold(self, steps: int) -> CommandStatus:
        reply = call_service(self.hold_cli, Hold.Request(steps=steps), self.timeout, self.progress)
        if not reply.accepted:
            raise AlphaMatrixError(f"hold refused: {reply.message}")
        return self.wait(reply.command_id)

    def stop(self, decision_step: int, requester: str, reason: str) -> ProtectiveStop.Response:
        req = ProtectiveStop.Request(
            episode_id=self.episode, engage=True, decision_step=decision_step, requester=requester, reason=reason
        )
        return call_service(self.stop_cli, req, self.timeout)


def handshake_motion(move_cli: Any, grip_cli: Any, hold_cli: Any, timeout_s: float) -> None:
    """One refused request per motion client (through a proxy when one intercepts them), so no
    first reply is lost (services.handshake)."""
    handshake(move_cli, MoveTo.Request(validate_only=True), timeout_s)  # IK misses (0, 0, 0): refused
    handshake(grip_cli, Gripper.Request(width=-1.0), timeout_s)  # width outside [0, 0.08]: refused
    handshake(hold_cli, Hold.Request(steps=0), timeout_s)  # no steps: refused


def command_call(cmd: Command, move_cli: Any, grip_cli: Any, hold_cli: Any) -> tuple[Any, Any]:
    """The (client, request) that queues ``cmd`` on the robot: move_to, gripper or hold."""
    if cmd.kind == "move":
        assert cmd.target is not None
        return move_cli, MoveTo.Request(target=point(cmd.target), steps=cmd.steps)
    if cmd.kind == "gripper":
        return grip_cli, Gripper.Request(
            width=float(cmd.width or 0.0), max_effort=float(cmd.force or 0.0), steps=cmd.steps
        )
    return hold_cli, Hold.Request(steps=cmd.steps)


def skill_state(status: CommandStatus, geo: SceneGeometry) -> SkillState:
    """What the skill policy sees at a command's end: block centres, finger opening, what they hold."""
    positions = {name: pos for name, (pos, _q) in poses_of(status.objects).items()}
    joints = list(status.joint_positions)
    width = float(joints[-2] + joints[-1]) if len(joints) >= 2 else 0.08
    return SkillState(positions, infer_holding(positions, vec3(status.grasp_position), width, geo), width)
