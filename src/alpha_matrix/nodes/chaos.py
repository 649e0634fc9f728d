"""chaos: fault injection as transparent proxies on the graph's interfaces (faults F1–F4).

Inserted by remapping only (its `intercepts` in config/graph.yaml): the executive's
robot/move_to and robot/gripper, the runner's planner/get_plan_text and its observation
topic robot/command_status go through this node. With fault "none" every call and message
passes through unchanged; without this node in the graph the remappings disappear. What is
injected where (F1 delay, F2 slip, F3 offset, F4 corruption) is core/matrix/chaos.py's.

Forwarding a service call from inside a service callback needs a second executor: the proxied
clients live on a helper node spun in a background thread, while the servers' callbacks wait.
Injections are published on chaos/fault_events at report time, in canonical order (threads
and topics make arrival order irreproducible).
"""

from __future__ import annotations

import threading

from alpha_matrix_interfaces.msg import CommandStatus, FaultEvent, StepBatch
from alpha_matrix_interfaces.srv import FaultReport, GetPlanText, Gripper, MoveTo, Observe, SetFault

from alpha_matrix.core.config import PLAN_WAIT_S
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.chaos import ChaosCore
from alpha_matrix.core.matrix.params import ChaosParams
from alpha_matrix.ros.convert import fault_events, point, vec3
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, STEP_STREAM
from alpha_matrix.ros.robot_client import TERMINAL
from alpha_matrix.ros.services import call_service, call_while_accepted, handshake
from alpha_matrix.ros.spin import ProxyNode, spin_proxy

TIMEOUT_S = 30.0
# Every text planner's answer passes here (F4), the oracle's text arm and the LLM's: service -> proxy.
PLAN_TEXT = {"planner/get_plan_text": "chaos/get_plan_text", "llm/get_plan_text": "chaos/llm/get_plan_text"}


class Chaos(ProxyNode):
    def __init__(self) -> None:
        super().__init__("chaos", io_suffix="_forwarder")
        declare_params(self, ChaosParams)
        self.core = ChaosCore(lambda o: vec3(o.pose.position))
        self.lock = threading.Condition()  # guards the core: the helper thread feeds it too
        # Clients on the helper node self.io, spun by their own executor (ProxyNode).
        self.move_cli = self.io.create_client(MoveTo, "robot/move_to")
        self.grip_cli = self.io.create_client(Gripper, "robot/gripper")
        self.observe_cli = self.io.create_client(Observe, "robot/observe")
        # The step stream (F1 history) and command ends (F2 steps) arrive on the helper thread,
        # so a proxied observation or a report can wait for them.
        self.io.create_subscription(StepBatch, "robot/step_batch", self._on_batch, STEP_STREAM)
        self.io.create_subscription(CommandStatus, "robot/command_status", self._on_command_end, EVENTS)
        self.fault_pub = self.create_publisher(FaultEvent, "chaos/fault_events", EVENTS)
        self.status_pub = self.create_publisher(CommandStatus, "chaos/command_status", EVENTS)
        self.create_subscription(CommandStatus, "robot/command_status", self._on_status, EVENTS)
        self.create_service(MoveTo, "chaos/move_to", self._on_move_to)
        self.create_service(Gripper, "chaos/gripper", self._on_gripper)
        for srv, proxy in PLAN_TEXT.items():
            client = self.io.create_client(GetPlanText, srv)
            self.create_service(GetPlanText, proxy, lambda req, _res, c=client: self._on_plan_text(c, req))
        self.create_service(Observe, "chaos/observe", self._on_observe)
        self.create_service(SetFault, "chaos/set_fault", self._on_set_fault)
        self.create_service(FaultReport, "chaos/fault_report", self._on_report)

    def _on_set_fault(self, req: SetFault.Request, res: SetFault.Response) -> SetFault.Response:
        r = req
        try:
            with self.lock:
                res.message = self.core.configure(r.episode_id, r.master_seed, r.episode_index, r.fault, r.intensity)
            res.accepted = True
        except AlphaMatrixError as err:
            res.accepted, res.message = False, str(err)
        return res

    def _on_report(self, req: FaultReport.Request, res: FaultReport.Response) -> FaultReport.Response:
        """The episode's injections in canonical order, published on chaos/fault_events now. Asked
        once every injection is made; an F2 command's status may still be on its way: wait, bounded."""
        with self.lock:
            log = self.core.logs.pop(req.episode_id, None)
            if log is None:  # a handshake probe, or an episode without chaos
                return res
            if not self.lock.wait_for(lambda: not log.awaited, TIMEOUT_S):
                raise AlphaMatrixError(
                    f"chaos: no status of robot command(s) {log.awaited} in {TIMEOUT_S:.0f} s, "
                    f"so the F2 injections of {req.episode_id} have no step"
                )
            records = log.report()
        res.events = fault_events(req.episode_id, self.core.intensity, records)
        for msg in res.events:
            self.fault_pub.publish(msg)
        return res

    def _on_command_end(self, msg: CommandStatus) -> None:
        if msg.state in TERMINAL:
            with self.lock:
                if self.core.command_ended(msg.episode_id, msg.command_id, msg.end_step):
                    self.lock.notify_all()

    def _on_move_to(self, req: MoveTo.Request, res: MoveTo.Response) -> MoveTo.Response:
        with self.lock:
            target = self.core.move_target(vec3(req.target), req.steps)
        if target is None:  # refused by the robot whatever happens: a handshake
            return handshake(self.move_cli, req, TIMEOUT_S)
        req.target = point(target)
        if req.validate_only:  # no side effect: re-sent until answered (a first reply can be lost)
            return handshake(self.move_cli, req, TIMEOUT_S)
        return call_service(self.move_cli, req, TIMEOUT_S)

    def _on_gripper(self, req: Gripper.Request, res: Gripper.Response) -> Gripper.Response:
        with self.lock:
            plan = self.core.grip(req.width, req.max_effort, req.steps)
        if plan is None:  # refused by the robot whatever happens: a handshake
            return handshake(self.grip_cli, req, TIMEOUT_S)
        parts = [Gripper.Request(width=req.width, max_effort=effort, steps=steps) for steps, effort in plan.parts]
        replies = call_while_accepted(self.grip_cli, parts, TIMEOUT_S)
        if plan.injection is not None:
            with self.lock:
                self.core.keep_at_end_of(replies[-1].accepted, replies[-1].command_id, plan.injection)
        return replies[0]

    def _on_plan_text(self, client, req: GetPlanText.Request) -> GetPlanText.Response:  # noqa: ANN001
        if not req.episode_id:  # a handshake probe: nothing to corrupt, re-sent until answered
            return handshake(client, req, PLAN_WAIT_S)
        reply = call_service(client, req, PLAN_WAIT_S)
        if reply.success:
            with self.lock:
                reply.text = self.core.plan_text(reply.text)
        return reply

    def _on_batch(self, msg: StepBatch) -> None:
        with self.lock:
            last = msg.first_step + msg.num_steps - 1
            for released in self.core.on_batch(msg.episode_id, last, {o.name: o for o in msg.objects}):
                self.status_pub.publish(released)
            self.lock.notify_all()

    def _on_status(self, msg: CommandStatus) -> None:
        if not self.core.holds(msg.episode_id):
            self.status_pub.publish(msg)
            return
        with self.lock:
            for released in self.core.hold(msg):
                self.status_pub.publish(released)

    def _on_observe(self, req: Observe.Request, res: Observe.Response) -> Observe.Response:
        reply = call_service(self.observe_cli, req, TIMEOUT_S)
        if "F1" in self.core.faults:
            with self.lock:
                if not self.lock.wait_for(lambda: self.core.stream_reached(reply.step), TIMEOUT_S):
                    raise AlphaMatrixError(f"chaos: the step stream never reached step {reply.step}")
                reply.objects = self.core.delayed(int(reply.step), reply.objects)
        return reply


def main(args: list[str] | None = None) -> int:
    return run_node(Chaos, spin_proxy, args)


if __name__ == "__main__":
    raise SystemExit(main())
