"""chaos: fault injection as transparent proxies on the graph's interfaces (DESIGN §4).

Inserted by remapping only (its `intercepts` in config/graph.yaml): the executive's
robot/move_to and robot/gripper, the runner's planner/get_plan_text and its observation
topic robot/command_status go through this node. With fault "none" every call and message
passes through unchanged; without this node in the graph the remappings disappear.

  F1 sensor delay   observations (command statuses the runner plans from) carry the object
                    poses of t - tau, from a sim-time ring buffer of the step stream
  F2 grip slip      one draw per grip-and-lift; on slip the grip's last step drops the finger
                    force to SLIP_FORCE through the gripper interface, and physics decides
  F3 IK offset      every commanded target moves delta outward from the arm base
  F4 corruption     the planner's raw text is corrupted before the executive validates it

Forwarding a service call from inside a service callback needs a second executor: the
proxied clients live on a helper node spun in a background thread, while the servers'
callbacks wait for their replies.

Every injection has a deterministic place: its step (F2: the end step of the robot command it
acted in, learned from that command's status) and, at report time, the canonical order of
core.faults.FaultLog with seq 0..n-1. They are published on chaos/fault_events then, in that
order, not as they happen (threads and topics make arrival order irreproducible).
"""

from __future__ import annotations

import json
import threading

import numpy as np
from alpha_matrix_interfaces.msg import CommandStatus, FaultEvent, StepBatch
from alpha_matrix_interfaces.srv import FaultReport, GetPlanText, Gripper, MoveTo, Observe, SetFault

from alpha_matrix.core.config import PLAN_WAIT_S, ChaosParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.cells import parse_cell_fault
from alpha_matrix.core.matrix.faults import (
    CONCURRENT,
    SLIP_FORCE,
    DelayBuffer,
    FaultLog,
    Injection,
    SlipLatch,
    corrupt_plan_text,
    corruption_probability,
    corruption_record,
    fault_stream,
    grip_refused,
    ik_offset,
    offset_record,
    position_error,
    radial_offset,
    sensor_delay,
    slip_probability,
    validate_intensity,
)
from alpha_matrix.core.outcome import MAX_EPISODE_STEPS
from alpha_matrix.core.sim.world import WorldConfig
from alpha_matrix.ros.convert import point, vec3
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, STEP_STREAM
from alpha_matrix.ros.services import call_service, handshake
from alpha_matrix.ros.spin import ProxyNode, spin_proxy

DT = WorldConfig().timestep
ARM_BASE = WorldConfig().panda_base
CLOSED_WIDTH = 0.01  # a gripper command at most this wide is a grip (starts a lift event)
TIMEOUT_S = 30.0


class Chaos(ProxyNode):
    def __init__(self) -> None:
        super().__init__("chaos", io_suffix="_forwarder")
        declare_params(self, ChaosParams)
        # Clients on the helper node self.io, spun by their own executor (ProxyNode).
        self.move_cli = self.io.create_client(MoveTo, "robot/move_to")
        self.grip_cli = self.io.create_client(Gripper, "robot/gripper")
        # Every text planner's answer passes here (F4): the oracle's text arm and the LLM's.
        self.plan_clis = {
            srv: self.io.create_client(GetPlanText, srv) for srv in ("planner/get_plan_text", "llm/get_plan_text")
        }
        self.observe_cli = self.io.create_client(Observe, "robot/observe")
        # The step stream feeds the F1 history from the helper thread, so a proxied observation
        # can wait for the history to reach its step.
        self.lock = threading.Condition()
        self.io.create_subscription(StepBatch, "robot/step_batch", self._on_batch, STEP_STREAM)
        # Command ends stamp F2 injections; on the helper thread, so a report can wait for one.
        self.io.create_subscription(CommandStatus, "robot/command_status", self._on_command_end, EVENTS)
        self.fault_pub = self.create_publisher(FaultEvent, "chaos/fault_events", EVENTS)
        self.status_pub = self.create_publisher(CommandStatus, "chaos/command_status", EVENTS)
        self.create_subscription(CommandStatus, "robot/command_status", self._on_status, EVENTS)
        self.create_service(MoveTo, "chaos/move_to", self._on_move_to)
        self.create_service(Gripper, "chaos/gripper", self._on_gripper)
        for srv, client in self.plan_clis.items():
            proxy = "chaos/get_plan_text" if srv.startswith("planner/") else f"chaos/{srv}"
            self.create_service(GetPlanText, proxy, lambda req, res, c=client: self._on_plan_text(c, req, res))
        self.create_service(Observe, "chaos/observe", self._on_observe)
        self.create_service(SetFault, "chaos/set_fault", self._on_set_fault)
        self.create_service(FaultReport, "chaos/fault_report", self._on_report)
        self.episode, self.faults, self.intensity = "", (), 0.0
        self.streams: dict[str, np.random.Generator] = {}
        # A whole episode of history: an observation handled late still finds its t - tau.
        self.delay = DelayBuffer(capacity_s=(MAX_EPISODE_STEPS + 1) * DT)
        self.slip: SlipLatch | None = None
        self.offset_targets: set[tuple[float, float, float]] = set()
        self.batch_episode, self.last_batch_step = "", 0
        self.pending: list[CommandStatus] = []
        self.logs: dict[str, FaultLog] = {}  # the current episode's injections (guarded by self.lock)

    # -- configuration ----------------------------------------------------------------------
    def _on_set_fault(self, req: SetFault.Request, res: SetFault.Response) -> SetFault.Response:
        try:
            fault = parse_cell_fault(req.fault)
            intensity = validate_intensity(req.intensity)
        except AlphaMatrixError as err:
            res.accepted, res.message = False, str(err)
            return res
        with self.lock:
            self.episode, self.intensity = req.episode_id, intensity
            self.faults = () if fault == "none" else (("F1", "F2") if fault == CONCURRENT else (fault,))
        self.streams = {f: fault_stream(req.master_seed, req.episode_index, f) for f in self.faults}
        self.slip = SlipLatch(slip_probability(intensity), self.streams["F2"]) if "F2" in self.faults else None
        with self.lock:  # an unreported older episode is dropped: the runner reports before the next
            self.logs = {req.episode_id: FaultLog()}
        self.offset_targets: set[tuple[float, float, float]] = set()
        res.accepted, res.message = True, f"{fault} at I={intensity}"
        return res

    def _on_report(self, req: FaultReport.Request, res: FaultReport.Response) -> FaultReport.Response:
        """The episode's injections in canonical order, published on chaos/fault_events now.

        Asked after the runner observed the episode's last step, so every injection is made; an
        F2 command's status may still be on its way here (another participant): wait, bounded."""
        with self.lock:
            log = self.logs.pop(req.episode_id, None)
            if log is None:  # a handshake probe, or an episode without chaos
                return res
            if not self.lock.wait_for(lambda: not log.awaited, TIMEOUT_S):
                raise AlphaMatrixError(
                    f"chaos: no status of robot command(s) {log.awaited} in {TIMEOUT_S:.0f} s, "
                    f"so the F2 injections of {req.episode_id} have no step"
                )
            records = log.report()
        res.events = [
            FaultEvent(
                episode_id=req.episode_id,
                fault=rec.fault,
                intensity=self.intensity,
                step=rec.step,
                seq=rec.seq,
                requested_json=json.dumps(rec.requested, sort_keys=True),
                delivered_json=json.dumps(rec.delivered, sort_keys=True),
            )
            for rec in records
        ]
        for msg in res.events:
            self.fault_pub.publish(msg)
        return res

    def _log(self) -> FaultLog:
        """The current episode's log. Call holding the lock."""
        return self.logs.setdefault(self.episode, FaultLog())

    def _keep(self, injection: Injection) -> None:
        """Keep an injection for the report (published then, in canonical order)."""
        with self.lock:
            self._log().add(injection)

    def _keep_at_end_of(self, reply: Gripper.Response, injection: Injection) -> None:
        """An F2 injection acts in the command of ``reply``: stamped with its end step when known."""
        with self.lock:
            if reply.accepted:
                self._log().add_at_end_of(reply.command_id, injection)
            else:
                self._log().add(grip_refused(injection))

    def _on_command_end(self, msg: CommandStatus) -> None:
        if msg.state not in (CommandStatus.DONE, CommandStatus.CANCELLED):
            return
        with self.lock:
            if (log := self.logs.get(msg.episode_id)) is not None:
                log.command_ended(msg.command_id, msg.end_step)
                self.lock.notify_all()

    def _forward(self, client, request):  # noqa: ANN001, ANN202 - any service type
        return call_service(client, request, TIMEOUT_S)

    # -- F3: every commanded target, validation included ----------------------------------
    def _on_move_to(self, req: MoveTo.Request, res: MoveTo.Response) -> MoveTo.Response:
        if "F3" in self.faults:
            target = vec3(req.target)
            moved = radial_offset(target, ARM_BASE, ik_offset(self.intensity))
            req.target = point(moved)
            if target not in self.offset_targets:  # validated, then commanded: one injection per target
                self.offset_targets.add(target)
                self._keep(offset_record(0, target, moved, ik_offset(self.intensity)))
        if req.validate_only:  # no side effect: re-sent until answered (a first reply can be lost)
            return handshake(self.move_cli, req, TIMEOUT_S)
        return self._forward(self.move_cli, req)

    # -- F2: one draw per grip-and-lift ---------------------------------------------------
    def _on_gripper(self, req: Gripper.Request, res: Gripper.Response) -> Gripper.Response:
        if not 0.0 <= req.width <= 0.08:  # refused by the robot whatever happens: a handshake
            return handshake(self.grip_cli, req, TIMEOUT_S)
        if self.slip is None:
            return self._forward(self.grip_cli, req)
        if req.width > CLOSED_WIDTH:
            self.slip.release()
            return self._forward(self.grip_cli, req)
        slipped = self.slip.on_lift(0)
        injection = self.slip.record()  # stamped with the end of the command the draw acted in
        if not slipped or req.steps <= 1:
            if slipped:
                req.max_effort = SLIP_FORCE
            reply = self._forward(self.grip_cli, req)
            self._keep_at_end_of(reply, injection)
            return reply
        # Close as planned, then in the grip's last step (just before the lift) lose the force.
        first = self._forward(
            self.grip_cli, Gripper.Request(width=req.width, max_effort=req.max_effort, steps=req.steps - 1)
        )
        last = first
        if first.accepted:
            last = self._forward(self.grip_cli, Gripper.Request(width=req.width, max_effort=SLIP_FORCE, steps=1))
        self._keep_at_end_of(last, injection)
        return first

    # -- F4: the raw planner text ---------------------------------------------------------
    def _on_plan_text(self, client, req: GetPlanText.Request, res: GetPlanText.Response) -> GetPlanText.Response:  # noqa: ANN001
        if not req.episode_id:  # a handshake probe: nothing to corrupt, re-sent until answered
            return handshake(client, req, PLAN_WAIT_S)
        reply = call_service(client, req, PLAN_WAIT_S)
        if "F4" in self.faults and reply.success:
            reply.text, info = corrupt_plan_text(reply.text, self.streams["F4"], corruption_probability(self.intensity))
            self._keep(corruption_record(info))
        return reply

    # -- F1: observations from the past ----------------------------------------------------
    def _on_batch(self, msg: StepBatch) -> None:
        with self.lock:
            if msg.episode_id != self.batch_episode:
                self.delay.clear()
                self.batch_episode = msg.episode_id  # history starts at this episode's first batch
            last = msg.first_step + msg.num_steps - 1
            self.delay.push(last * DT, {o.name: o for o in msg.objects})
            self.last_batch_step = last
            self._release_pending()
            self.lock.notify_all()

    def _on_status(self, msg: CommandStatus) -> None:
        if "F1" not in self.faults or msg.episode_id != self.episode:
            self.status_pub.publish(msg)
            return
        with self.lock:
            self.pending.append(msg)  # wait until the stream has reached its step
            self._release_pending()

    def _delayed(self, step: int, objects: list) -> list:  # noqa: ANN001 - ObjectState lists
        """The objects as seen tau ago (F1), the injection kept for the report. Call holding the lock."""
        tau = sensor_delay(self.intensity)
        snapshot, lag = self.delay.delayed(step * DT, tau)
        true = {o.name: vec3(o.pose.position) for o in objects}
        old = {name: vec3(o.pose.position) for name, o in snapshot.items()} or true
        err = position_error(true, {n: old.get(n, p) for n, p in true.items()})
        self._keep(DelayBuffer.record(int(step), tau, lag, max(err.values(), default=0.0)))
        return [snapshot.get(o.name, o) for o in objects]

    def _release_pending(self) -> None:
        while (
            self.pending
            and self.batch_episode == self.pending[0].episode_id
            and self.last_batch_step >= self.pending[0].end_step
        ):
            msg = self.pending.pop(0)
            msg.objects = self._delayed(int(msg.end_step), list(msg.objects))
            self.status_pub.publish(msg)

    def _on_observe(self, req: Observe.Request, res: Observe.Response) -> Observe.Response:
        reply = self._forward(self.observe_cli, req)
        if "F1" in self.faults:
            with self.lock:
                reached = self.lock.wait_for(
                    lambda: self.batch_episode == self.episode and self.last_batch_step >= reply.step, TIMEOUT_S
                )
                if not reached:
                    raise AlphaMatrixError(f"chaos: the step stream never reached step {reply.step}")
                reply.objects = self._delayed(int(reply.step), list(reply.objects))
        return reply


def main(args: list[str] | None = None) -> int:
    return run_node(Chaos, spin_proxy, args)


if __name__ == "__main__":
    raise SystemExit(main())
