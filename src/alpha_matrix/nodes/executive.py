"""executive: validates a plan (schema, then scene, then reach) and executes it on the robot.

An invalid plan aborts before any motion, with the reason. Execution is one command at a
time through the driver contract; a refused or cancelled command ends the plan. Requests
arrive on a topic and are executed by the main thread with blocking calls, while a
single-threaded executor spins in the background (rclpy's multi-threaded executor
busy-waits, and async service callbacks can stall: rclpy#1462).
"""

from __future__ import annotations

import queue
import threading
from dataclasses import replace

import rclpy
from alpha_matrix_interfaces.msg import CommandStatus, PlanExecution, PlanRequest
from alpha_matrix_interfaces.srv import Gripper, Hold, MoveTo, Observe
from rclpy.node import Node

from alpha_matrix.core.config import ExecutiveParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.planning.guards import check_against_scene, parse_plan_text, validate_schema
from alpha_matrix.core.planning.plan import PlanError
from alpha_matrix.core.robot.commands import Command, StepDefaults, grasp_move_index, plan_to_commands
from alpha_matrix.ros.common import declare_params, handshake, run_node, spin_behind, wait_reply
from alpha_matrix.ros.convert import plan_msg_to_dict, point, poses_of, vec3
from alpha_matrix.ros.qos import EVENTS

TERMINAL = (CommandStatus.DONE, CommandStatus.CANCELLED)


class Aborted(Exception):
    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind, self.reason = kind, reason


class Executive(Node):
    def __init__(self) -> None:
        super().__init__("executive")
        self.params = declare_params(self, ExecutiveParams)
        p = self.params
        self.defaults = StepDefaults(
            move_steps=p.move_steps,
            grip_steps=p.grip_steps,
            release_steps=p.release_steps,
            grip_force=p.grip_force,
            release_width=p.release_width,
        )
        self.move_cli = self.create_client(MoveTo, "robot/move_to")
        self.grip_cli = self.create_client(Gripper, "robot/gripper")
        self.hold_cli = self.create_client(Hold, "robot/hold")
        self.observe_cli = self.create_client(Observe, "robot/observe")
        self._status: dict[int, CommandStatus] = {}
        self._cond = threading.Condition()
        self.requests: queue.Queue[PlanRequest] = queue.Queue()
        self.create_subscription(CommandStatus, "robot/command_status", self._on_status, EVENTS)
        self.create_subscription(PlanRequest, "executive/request", self.requests.put, EVENTS)
        self.result_pub = self.create_publisher(PlanExecution, "executive/result", EVENTS)

    def _on_status(self, msg: CommandStatus) -> None:
        if msg.state in TERMINAL:
            with self._cond:
                self._status[msg.command_id] = msg
                self._cond.notify_all()

    def _call_all(self, calls: list) -> list:  # list of (client, request) -> replies, in order
        """Send every request at once, then wait for every reply (one round trip for many)."""
        timeout = self.params.service_timeout_s
        futures = []
        try:
            for client, request in calls:
                if not client.wait_for_service(timeout_sec=timeout):
                    raise AlphaMatrixError(f"service {client.srv_name} not available")
                futures.append((client, client.call_async(request)))
            return [wait_reply(client, future, timeout) for client, future in futures]
        except AlphaMatrixError as err:
            raise Aborted("rejected", str(err)) from None

    def _wait_terminal(self, command_id: int) -> CommandStatus:
        with self._cond:
            ok = self._cond.wait_for(lambda: command_id in self._status, timeout=self.params.service_timeout_s)
            if not ok:
                raise Aborted(
                    "rejected", f"command {command_id} did not finish in {self.params.service_timeout_s:.0f} s"
                )
            return self._status.pop(command_id)

    def _enqueue(self, cmd: Command) -> int:
        if cmd.kind == "move":
            assert cmd.target is not None
            call = (self.move_cli, MoveTo.Request(target=point(cmd.target), steps=cmd.steps))
        elif cmd.kind == "gripper":
            call = (self.grip_cli, Gripper.Request(width=cmd.width, max_effort=cmd.force, steps=cmd.steps))
        else:
            call = (self.hold_cli, Hold.Request(steps=cmd.steps))
        (reply,) = self._call_all([call])
        if not reply.accepted:
            raise Aborted("rejected", f"{cmd.kind} refused by the robot: {reply.message}")
        return reply.command_id

    def _run(self, commands: list[Command], res: PlanExecution) -> None:
        """Queue the commands one by one (order matters), then follow them: the robot runs them
        back to back, and a stop cancels everything still queued."""
        pending = []
        try:
            for cmd in commands:
                pending.append((cmd, self._enqueue(cmd)))
        finally:
            for cmd, command_id in pending:
                status = self._wait_terminal(command_id)
                res.final_step, res.objects = max(res.final_step, status.end_step), status.objects
                if status.state != CommandStatus.DONE:
                    raise Aborted("cancelled", f"{cmd.kind} cancelled at step {status.end_step}: {status.message}")
                res.actions_completed = max(res.actions_completed, cmd.source_index + 1)

    def _follow(self, grasp: Command, obj: str, scene: dict) -> Command:
        """Closed loop: observe again and move the grasp target with the object (xy)."""
        (seen,) = self._call_all([(self.observe_cli, Observe.Request())])
        now = {o.name: vec3(o.pose.position) for o in seen.objects}
        if obj not in now:
            raise Aborted("rejected", f"re-observation does not see {obj!r}")
        dx, dy = now[obj][0] - scene[obj][0], now[obj][1] - scene[obj][1]
        assert grasp.target is not None
        moved = replace(grasp, target=(grasp.target[0] + dx, grasp.target[1] + dy, grasp.target[2]))
        (check,) = self._call_all(
            [(self.move_cli, MoveTo.Request(target=point(moved.target), steps=moved.steps, validate_only=True))]
        )
        if not check.accepted:
            raise Aborted("rejected", f"re-observed grasp target refused: {check.message}")
        return moved

    def handshake(self) -> None:
        """One refused request per robot client (through the chaos node when it is there)."""
        timeout = self.params.service_timeout_s
        handshake(self.move_cli, MoveTo.Request(validate_only=True), timeout)  # IK misses (0, 0, 0): refused
        handshake(self.grip_cli, Gripper.Request(width=-1.0), timeout)  # width outside [0, 0.08]: refused
        handshake(self.hold_cli, Hold.Request(steps=0), timeout)  # no steps: refused

    def serve(self) -> None:
        self.handshake()
        while rclpy.ok():
            try:
                req = self.requests.get(timeout=0.5)
            except queue.Empty:
                continue
            self.result_pub.publish(self.execute(req))

    def execute(self, req: PlanRequest) -> PlanExecution:
        res = PlanExecution(episode_id=req.episode_id)
        scene = {name: pos for name, (pos, _q) in poses_of(req.scene).items()}
        res.objects = list(req.scene)
        try:
            plan = parse_plan_text(req.plan_text) if req.text_path else validate_schema(plan_msg_to_dict(req.plan))
            check_against_scene(plan, scene, self.params.grasp_tolerance)
            commands = plan_to_commands(plan, self.defaults)
            moves = [c for c in commands if c.kind == "move"]
            checks = [
                (self.move_cli, MoveTo.Request(target=point(c.target), steps=c.steps, validate_only=True))
                for c in moves
            ]
            for reply in self._call_all(checks):  # reach check of every target before any motion
                if not reply.accepted:
                    raise PlanError("semantic", reply.message)
            if req.reobserve_before_grasp:
                try:
                    g = grasp_move_index(commands)
                except ValueError as err:
                    raise PlanError("semantic", str(err)) from None
                self._run(commands[:g], res)
                commands = commands[g:]
                commands[0] = self._follow(commands[0], plan.object, scene)
            self._run(commands, res)
            res.executed = True
        except PlanError as err:
            res.abort_kind, res.abort_reason = err.kind, err.reason
        except Aborted as err:
            res.abort_kind, res.abort_reason = err.kind, err.reason
        if res.abort_kind:
            self.get_logger().info(f"{req.episode_id}: plan aborted ({res.abort_kind}): {res.abort_reason}")
        return res


def main(args: list[str] | None = None) -> int:
    return run_node(Executive, lambda node: spin_behind(node, node.serve), args)


if __name__ == "__main__":
    raise SystemExit(main())
