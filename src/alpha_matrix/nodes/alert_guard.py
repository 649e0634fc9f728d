"""alert_guard: hardware-alert policy between the executive and the robot (the alerts suite).

Inserted by remapping only (its `intercepts` in config/graph_alerts.yaml): the executive's
robot/move_to and robot/gripper go through alert_guard/move_to and alert_guard/gripper. The
decisions are core/suites/alerts/guard.GuardCore's (AlertMonitor inside), fed per episode by
core/suites/alerts/guard_feed.GuardFeed:

* alerts and statuses from the driver side are processed in step order; a stop is requested
  decided at the alert's step (the bridge applies it at step + L), a resume at the clear's;
* a gating consumer: it acks the step stream only up to the last status it has processed
  completely, and counts its stop/resume requests in the ack, so no decision is ever late;
* admission happens at a defined step: the robot is idle when a command arrives, so the guard
  asks the robot for its step (robot/observe), waits until it has processed everything up to
  it, and admits or refuses the command for the next step; a refusal carries the reason code.

Forwarding needs a second executor (as in the chaos node): the stream, the clients and the
ack live on a helper node spun in its own context, while the service callbacks wait.

With an agent under test (``agent``), this node is also its link (core/suites/alerts/agent_link.py):
every alert and clear the guard processed, in its order, and every command are asked of
agent/decide; the agent's stops are requested as ``alert_guard:agent`` (held apart from the
guard's, counted in this consumer's acks), and the stream is acked only up to the step before
the first event the agent has not yet decided on, so its stops land at event + L however long
it thinks (a worker thread asks it, so the stream keeps being read). ``guards`` off: the guard
still decides and keeps its account, but its stops and refusals are not applied.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from alpha_matrix_interfaces.msg import (
    AgentDecision,
    AgentObservation,
    HardwareAlert,
    RobotStatus,
    StepBatch,
    SuiteRequest,
)
from alpha_matrix_interfaces.srv import Decide, Gripper, MoveTo, Observe
from std_srvs.srv import Trigger

from alpha_matrix.core.agent.protocol import Decision, Observation
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.alerts.agent_link import AlertAgentLink, final_admission
from alpha_matrix.core.suites.alerts.agent_score import alerts_agent_part
from alpha_matrix.core.suites.alerts.guard_feed import GuardFeed
from alpha_matrix.core.suites.alerts.params import AlertGuardParams
from alpha_matrix.core.suites.alerts.policy import ReasonCode
from alpha_matrix.core.suites.alerts.scenarios import alert_scenario_from_json, load_alert_policy
from alpha_matrix.ros.agent_msgs import decision_from_msg, observation_to_msg
from alpha_matrix.ros.gating import GatingLink
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, STEP_STREAM
from alpha_matrix.ros.services import call_service, handshake
from alpha_matrix.ros.spin import ProxyNode, spin_proxy


class AlertGuard(ProxyNode):
    def __init__(self) -> None:
        super().__init__("alert_guard", io_suffix="_io")
        p = self.params = declare_params(self, AlertGuardParams)
        self.policy = load_alert_policy(Path(p.alerts_file) if p.alerts_file else None).policy
        self.feed = GuardFeed(self.policy, p.reaction_latency_steps)
        self.cond = threading.Condition()  # guards the feed (and the agent's link): the helper thread feeds it
        self.move_cli = self.io.create_client(MoveTo, "robot/move_to")
        self.grip_cli = self.io.create_client(Gripper, "robot/gripper")
        self.observe_cli = self.io.create_client(Observe, "robot/observe")
        self.gating = GatingLink(self, io=self.io, keepalive=bool(p.agent))
        self.link: AlertAgentLink | None = None
        self.decided = 0  # events of the link's episode whose decision is in (and its stop requested)
        self.exchanges: list[tuple[AgentObservation, AgentDecision]] = []  # the episode's, for the record
        self.agent_error = ""
        self.stopping = False
        if p.agent:
            self.decide_cli = self.io.create_client(Decide, "agent/decide")
            threading.Thread(target=self._agent_worker, name="alert_guard_agent", daemon=True).start()
        self.io.create_subscription(SuiteRequest, "suite/request", self._on_request, EVENTS)
        self.io.create_subscription(HardwareAlert, "robot/alerts", lambda m: self._on_driver("alert", m), EVENTS)
        self.io.create_subscription(RobotStatus, "robot/status", lambda m: self._on_driver("status", m), EVENTS)
        # The bridge checks a gating consumer's step-stream reader by node name: this node's.
        self.create_subscription(StepBatch, "robot/step_batch", lambda _m: self.gating.streaming(), STEP_STREAM)
        self.create_service(MoveTo, "alert_guard/move_to", self._on_move_to)
        self.create_service(Gripper, "alert_guard/gripper", self._on_gripper)
        self.create_service(Trigger, "alert_guard/report", self._on_report)

    # -- helper thread: the driver side's streams -----------------------------------------
    def _on_request(self, msg: SuiteRequest) -> None:
        if msg.suite != "alerts":
            return
        with self.cond:
            for kind, m in self.feed.request(msg.episode_id, alert_scenario_from_json(msg.scenario_json)):
                self._feed(kind, m)
            self.cond.notify_all()

    def _on_driver(self, kind: str, msg: HardwareAlert | RobotStatus) -> None:
        with self.cond:
            self._feed(kind, msg)
            self.cond.notify_all()

    def _feed(self, kind: str, msg: HardwareAlert | RobotStatus) -> None:
        """Call holding the lock."""
        if (requests := self.feed.feed(kind, msg)) is None:
            return
        if self.params.agent and (self.link is None or self.link.episode_id != self.feed.episode):
            p = self.params
            self.link = AlertAgentLink(self.feed.episode, p.task, p.reaction_latency_steps)
            self.exchanges, self.decided = [], 0
        warn = self.get_logger().warning
        for r in requests if self.params.guards else ():
            self.gating.request_stop(self.feed.episode, r.engage, r.decision_step, r.reason, warn)
        if kind == "status":
            self._ack()

    def _ack(self) -> None:
        """Ack every step processed (call holding the lock); with an agent, only up to the step
        before the first event it has not decided on yet."""
        core = self.feed.core
        assert core is not None
        step = core.watermark
        if self.link is not None and self.decided < len(core.events):
            step = min(step, core.events[self.decided].step - 1)
        self.gating.ack(self.feed.episode, step)

    def _guard_stopped(self, step: int) -> bool:
        """The guard's stop in effect at ``step`` (none with guards off); call holding the lock."""
        core = self.feed.core
        return core is not None and self.params.guards and core.stopped_at(step)

    # -- the agent under test ------------------------------------------------------------
    def _ask(self, obs: Observation) -> Decision:
        """One decision from agent/decide, kept for the record (outside the lock: it may take long)."""
        msg = observation_to_msg(obs)
        reply = call_service(self.decide_cli, Decide.Request(observation=msg), self.params.decide_timeout_s)
        with self.cond:
            self.exchanges.append((msg, reply.decision))
        return decision_from_msg(reply.decision)

    def _agent_worker(self) -> None:
        """Hand each event the guard processed to the agent, in order, and act on its decision."""
        try:
            handshake(self.decide_cli, Decide.Request(), self.params.decide_timeout_s)
            while True:
                with self.cond:
                    self.cond.wait_for(lambda: self.stopping or self._next_event() is not None, timeout=1.0)
                    if self.stopping:
                        return
                    nxt = self._next_event()
                    if nxt is None:
                        continue
                    link, ev = nxt
                    obs = link.on_event(ev, self._guard_stopped(ev.step))
                if obs is not None:
                    decision = self._ask(obs)
                with self.cond:
                    if obs is not None and link is self.link:
                        change = link.on_event_decision(decision, ev.step)
                        if change is not None:
                            why = f"agent: {decision.call.name if decision.call else decision.kind}"
                            self.gating.request_stop(link.episode_id, change, ev.step, why,
                                                     self.get_logger().error, source="agent")  # fmt: skip
                    if link is self.link and self.feed.core is not None:
                        self.decided += 1
                        self._ack()
                    self.cond.notify_all()
        except Exception as err:  # noqa: BLE001 -- the agent's failure is the episode's: reported, never swallowed
            with self.cond:
                self.agent_error = f"agent: {err}"
                self.cond.notify_all()
            self.get_logger().error(self.agent_error)

    def _next_event(self) -> tuple[AlertAgentLink, Any] | None:
        """The next event of the current episode the agent has not seen (call holding the lock)."""
        core, link = self.feed.core, self.link
        if core is None or link is None or len(link.received) >= len(core.events):
            return None
        return link, core.events[len(link.received)]

    def _agent_synced(self) -> bool:
        """The agent has decided on every event the guard processed (call holding the lock)."""
        return self.link is None or (self.feed.core is not None and self.decided >= len(self.feed.core.events))

    # -- service callbacks: decide at the robot's step ------------------------------------
    def _sync(self) -> int:
        """The robot's step (it is idle: the executive waits for each command's end), once the
        guard has processed every alert and status up to it."""
        timeout = self.params.service_timeout_s
        step = call_service(self.observe_cli, Observe.Request(), timeout).step
        with self.cond:
            if not self.cond.wait_for(lambda: self.feed.synced(step), timeout=timeout):
                raise AlphaMatrixError(f"alert_guard: the driver side never reached step {step}")
            # No bound here (the agent's own timeout bounds each decision), but a signal ends the wait.
            while not (self._agent_synced() or self.agent_error or self.stopping or not self.context.ok()):
                self.cond.wait(timeout=1.0)
            if self.agent_error:
                raise AlphaMatrixError(self.agent_error)
            if not self._agent_synced():
                raise AlphaMatrixError("alert_guard: stopped while the agent was deciding")
        return int(step)

    def _admit(self, command: str, client: Any, req: Any, res: Any) -> Any:
        with self.cond:
            idle = self.feed.core is None
        if idle:  # no scenario yet (the executive's start-up handshake): nothing to guard
            return handshake(client, req, self.params.service_timeout_s)
        step = self._sync() + 1
        with self.cond:
            core = self.feed.core
            assert core is not None
            adm = core.admit(command, step)
            accepted, code, why = adm.accepted, adm.reason_code.value, adm.message
            link = self.link
            obs = link.on_command(command, step, self._guard_stopped(step)) if link is not None else None
        if link is not None and obs is not None:  # the agent decides; the guard (if on) checks
            decision = self._ask(obs)
            with self.cond:
                ok, change, agent_why = link.on_command_decision(decision, step)
                if change is not None:
                    self.gating.request_stop(link.episode_id, change, step, f"agent: {decision.call.name if decision.call else ''}",
                                             self.get_logger().error, source="agent")  # fmt: skip
                accepted, code, why = final_admission((accepted, code, why), ok, agent_why, self.params.guards)
                core.overrule(accepted, code, why)
        if not accepted:
            res.accepted, res.message, res.reason_code = False, why, code
            return res
        reply = call_service(client, req, self.params.service_timeout_s)
        reply.reason_code = ReasonCode.ACCEPTED.value
        return reply

    def _on_move_to(self, req: MoveTo.Request, res: MoveTo.Response) -> MoveTo.Response:
        if req.validate_only:  # no side effect: re-sent until answered (a first reply can be lost)
            return handshake(self.move_cli, req, self.params.service_timeout_s)
        t = req.target
        return self._admit(f"move_to({t.x:.3f}, {t.y:.3f}, {t.z:.3f})", self.move_cli, req, res)

    def _on_gripper(self, req: Gripper.Request, res: Gripper.Response) -> Gripper.Response:
        return self._admit(f"gripper({req.width:.3f})", self.grip_cli, req, res)

    def _on_report(self, req: Trigger.Request, res: Trigger.Response) -> Trigger.Response:
        try:
            self._sync()
        except AlphaMatrixError as err:
            res.success, res.message = False, str(err)
            return res
        with self.cond:
            assert self.feed.core is not None
            account = {"episode_id": self.feed.episode, **self.feed.core.export()}
            if self.link is not None:  # the agent's part, judged from its exchanges (core/suites/alerts/agent_score.py)
                p = self.params
                account["agent"] = alerts_agent_part(
                    self.exchanges, self.policy, p.reaction_latency_steps, p.agent, p.guards
                )
            res.success, res.message = True, json.dumps(account)
        return res

    def destroy_node(self) -> None:
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
        super().destroy_node()


def main(args: list[str] | None = None) -> int:
    return run_node(AlertGuard, spin_proxy, args)


if __name__ == "__main__":
    raise SystemExit(main())
