"""executive: validates a plan (schema, then scene, then reach) and executes it on the robot.

An invalid plan aborts before any motion, with the reason. Execution is one command at a
time through the driver contract; a refused or cancelled command ends the plan. Requests
arrive on a topic and are executed by the main thread with blocking calls, while an
executor spins in the background (rclpy's multi-threaded executor busy-waits, and async
service callbacks can stall: rclpy#1462). What it decides is
core/robot/plan_execution.py's.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix_interfaces.msg import CommandStatus, PlanExecution, PlanRequest
from alpha_matrix_interfaces.srv import Gripper, Hold, MoveTo, Observe
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.params import ExecutiveParams
from alpha_matrix.core.planning.plan import PlanError
from alpha_matrix.core.robot.commands import Command, StepDefaults
from alpha_matrix.core.robot.plan_execution import (
    Aborted,
    Progress,
    check_reach,
    checked_plan,
    follow_object,
    split_at_grasp,
)
from alpha_matrix.ros.convert import plan_msg_to_dict, point, poses_of, vec3
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.mailbox import Mailbox
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.request_queue import RequestQueue
from alpha_matrix.ros.robot_client import TERMINAL, command_call, handshake_motion
from alpha_matrix.ros.services import call_all
from alpha_matrix.ros.spin import spin_behind
from alpha_matrix.ros.stop import STOP


class Executive(Node):
    def __init__(self) -> None:
        super().__init__("executive")
        p = self.params = declare_params(self, ExecutiveParams)
        self.defaults = StepDefaults(
            move_steps=p.move_steps, grip_steps=p.grip_steps, release_steps=p.release_steps,
            grip_force=p.grip_force, release_width=p.release_width,
        )  # fmt: skip
        self.move_cli = self.create_client(MoveTo, "robot/move_to")
        self.grip_cli = self.create_client(Gripper, "robot/gripper")
        self.hold_cli = self.create_client(Hold, "robot/hold")
        self.observe_cli = self.create_client(Observe, "robot/observe")
        self.statuses: Mailbox[int, CommandStatus] = Mailbox()
        self.requests: RequestQueue[PlanRequest] = RequestQueue()
        self.create_subscription(CommandStatus, "robot/command_status", self._on_status, EVENTS)
        self.create_subscription(PlanRequest, "executive/request", self.requests.put, EVENTS)
        self.result_pub = self.create_publisher(PlanExecution, "executive/result", EVENTS)

    def _on_status(self, msg: CommandStatus) -> None:
        if msg.state in TERMINAL:
            self.statuses.put(msg.command_id, msg)

    def _call_all(self, calls: list[tuple[Any, Any]]) -> list[Any]:
        try:
            return call_all(calls, self.params.service_timeout_s)
        except AlphaMatrixError as err:
            raise Aborted("rejected", str(err)) from None

    def _reach(self, cmd: Command, validate_only: bool = True) -> tuple[Any, MoveTo.Request]:
        assert cmd.target is not None
        return self.move_cli, MoveTo.Request(target=point(cmd.target), steps=cmd.steps, validate_only=validate_only)

    def _enqueue(self, cmd: Command) -> int:
        (reply,) = self._call_all([command_call(cmd, self.move_cli, self.grip_cli, self.hold_cli)])
        if not reply.accepted:
            raise Aborted("rejected", f"{cmd.kind} refused by the robot: {reply.message}")
        return reply.command_id

    def _run(self, commands: list[Command], res: PlanExecution, progress: Progress) -> None:
        """Queue the commands one by one (order matters), then follow them: the robot runs them
        back to back, and a stop cancels everything still queued."""
        pending = []
        try:
            for cmd in commands:
                pending.append((cmd, self._enqueue(cmd)))
        finally:
            # The queued commands run on the robot whatever ended the queueing (a refusal): follow
            # them, unless this node is stopping (its peers are too: nothing would answer).
            if not STOP.stopping():
                self._follow_queued(pending, res, progress)

    def _follow_queued(self, pending: list[tuple[Command, int]], res: PlanExecution, progress: Progress) -> None:
        timeout = self.params.service_timeout_s
        for cmd, command_id in pending:
            if (status := self.statuses.take(command_id, timeout)) is None:
                raise Aborted("rejected", f"command {command_id} did not finish in {timeout:.0f} s")
            res.objects = status.objects
            progress.command_ended(cmd, status.end_step, status.state == CommandStatus.DONE, status.message)

    def _follow(self, grasp: Command, obj: str, scene: dict) -> Command:
        """Closed loop: observe again and move the grasp target with the object (xy)."""
        (seen,) = self._call_all([(self.observe_cli, Observe.Request())])
        moved = follow_object(grasp, obj, scene, {o.name: vec3(o.pose.position) for o in seen.objects})
        (check,) = self._call_all([self._reach(moved)])
        if not check.accepted:
            raise Aborted("rejected", f"re-observed grasp target refused: {check.message}")
        return moved

    def serve(self) -> None:
        handshake_motion(self.move_cli, self.grip_cli, self.hold_cli, self.params.service_timeout_s)
        self.requests.serve(self.execute, self.result_pub.publish)

    def execute(self, req: PlanRequest) -> PlanExecution:
        res = PlanExecution(episode_id=req.episode_id)
        scene = {name: pos for name, (pos, _q) in poses_of(req.scene).items()}
        res.objects, progress = list(req.scene), Progress()
        try:
            text, data = (req.plan_text, None) if req.text_path else (None, plan_msg_to_dict(req.plan))
            plan, commands = checked_plan(text, data, scene, self.params.grasp_tolerance, self.defaults)
            # the reach of every target before any motion
            check_reach(self._call_all([self._reach(c) for c in commands if c.kind == "move"]))
            if req.reobserve_before_grasp:
                before, commands = split_at_grasp(commands)
                self._run(before, res, progress)
                commands[0] = self._follow(commands[0], plan.object, scene)
            self._run(commands, res, progress)
            res.executed = True
        except (PlanError, Aborted) as err:
            res.abort_kind, res.abort_reason = err.kind, err.reason
        res.final_step, res.actions_completed = progress.final_step, progress.actions_completed
        if res.abort_kind:
            self.get_logger().info(f"{req.episode_id}: plan aborted ({res.abort_kind}): {res.abort_reason}")
        return res


def main(args: list[str] | None = None) -> int:
    return run_node(Executive, lambda node: spin_behind(node, node.serve), args)


if __name__ == "__main__":
    raise SystemExit(main())
