"""alert_guard: hardware-alert policy between the executive and the robot (DESIGN §7 item 3).

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
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from alpha_matrix_interfaces.msg import HardwareAlert, RobotStatus, StepBatch, SuiteRequest
from alpha_matrix_interfaces.srv import Gripper, MoveTo, Observe
from std_srvs.srv import Trigger

from alpha_matrix.core.config import AlertGuardParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.alerts.guard_feed import GuardFeed
from alpha_matrix.core.suites.alerts.scenarios import alert_scenario_from_json, load_alert_policy
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
        policy = load_alert_policy(Path(p.alerts_file) if p.alerts_file else None).policy
        self.feed = GuardFeed(policy, p.reaction_latency_steps)
        self.cond = threading.Condition()  # guards the feed: the helper thread feeds it
        self.move_cli = self.io.create_client(MoveTo, "robot/move_to")
        self.grip_cli = self.io.create_client(Gripper, "robot/gripper")
        self.observe_cli = self.io.create_client(Observe, "robot/observe")
        self.gating = GatingLink(self, io=self.io)
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
        warn = self.get_logger().warning
        for r in requests:
            self.gating.request_stop(self.feed.episode, r.engage, r.decision_step, r.reason, warn)
        if kind == "status":
            assert self.feed.core is not None
            self.gating.ack(self.feed.episode, self.feed.core.watermark)

    # -- service callbacks: decide at the robot's step ------------------------------------
    def _sync(self) -> int:
        """The robot's step (it is idle: the executive waits for each command's end), once the
        guard has processed every alert and status up to it."""
        timeout = self.params.service_timeout_s
        step = call_service(self.observe_cli, Observe.Request(), timeout).step
        with self.cond:
            if not self.cond.wait_for(lambda: self.feed.synced(step), timeout=timeout):
                raise AlphaMatrixError(f"alert_guard: the driver side never reached step {step}")
        return int(step)

    def _admit(self, command: str, client: Any, req: Any, res: Any) -> Any:
        with self.cond:
            idle = self.feed.core is None
        if idle:  # no scenario yet (the executive's start-up handshake): nothing to guard
            return handshake(client, req, self.params.service_timeout_s)
        step = self._sync() + 1
        with self.cond:
            assert self.feed.core is not None
            adm = self.feed.core.admit(command, step)
        if not adm.accepted:
            res.accepted, res.message, res.reason_code = False, adm.message, adm.reason_code.value
            return res
        reply = call_service(client, req, self.params.service_timeout_s)
        reply.reason_code = adm.reason_code.value
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
            res.success, res.message = True, json.dumps({"episode_id": self.feed.episode, **self.feed.core.export()})
        return res


def main(args: list[str] | None = None) -> int:
    return run_node(AlertGuard, spin_proxy, args)


if __name__ == "__main__":
    raise SystemExit(main())
