"""alert_guard: hardware-alert policy between the executive and the robot (DESIGN §7 item 3).

Inserted by remapping only (its `intercepts` in config/graph_alerts.yaml): the executive's
robot/move_to and robot/gripper go through alert_guard/move_to and alert_guard/gripper. The
decisions are core/suite_graph.GuardCore's (AlertMonitor inside):

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

from alpha_matrix_interfaces.msg import HardwareAlert, RobotStatus, StepAck, StepBatch, SuiteRequest
from alpha_matrix_interfaces.srv import Gripper, MoveTo, Observe, ProtectiveStop
from std_srvs.srv import Trigger

from alpha_matrix.core.config import AlertGuardParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.alerts.policy import Alert, AlertClass, Severity
from alpha_matrix.core.suites.alerts.policy import RobotStatus as CoreStatus
from alpha_matrix.core.suites.alerts.scenarios import AlertScenario, load_alert_policy
from alpha_matrix.core.suites.graph import AlertEvent, GuardCore, StopRequest, alert_scenario_from_json
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, STEP_STREAM, STREAM
from alpha_matrix.ros.services import call_service, handshake
from alpha_matrix.ros.spin import ProxyNode, spin_proxy


class AlertGuard(ProxyNode):
    def __init__(self) -> None:
        super().__init__("alert_guard", io_suffix="_io")
        self.params = declare_params(self, AlertGuardParams)
        self.policy = load_alert_policy(Path(self.params.alerts_file) if self.params.alerts_file else None).policy
        self.move_cli = self.io.create_client(MoveTo, "robot/move_to")
        self.grip_cli = self.io.create_client(Gripper, "robot/gripper")
        self.observe_cli = self.io.create_client(Observe, "robot/observe")
        self.stop_cli = self.io.create_client(ProtectiveStop, "robot/protective_stop")
        self.ack_pub = self.io.create_publisher(StepAck, "robot/step_ack", STREAM)
        self.cond = threading.Condition()
        self.scenarios: dict[str, AlertScenario] = {}
        self.latest = ""  # the episode of the latest request: the one the robot runs
        self.pending: dict[str, list] = {}
        self.core: GuardCore | None = None
        self.episode = ""
        self.finished: set[str] = set()  # late messages of an earlier episode are dropped
        self.requests_issued = 0
        self.io.create_subscription(SuiteRequest, "suite/request", self._on_request, EVENTS)
        self.io.create_subscription(HardwareAlert, "robot/alerts", self._on_alert, EVENTS)
        self.io.create_subscription(RobotStatus, "robot/status", self._on_status, EVENTS)
        # The bridge checks a gating consumer's step-stream reader by node name: this node's.
        self.create_subscription(StepBatch, "robot/step_batch", self._on_batch, STEP_STREAM)
        self.streaming = False
        self._hello = self.io.create_timer(0.1, self._say_hello)
        self.create_service(MoveTo, "alert_guard/move_to", self._on_move_to)
        self.create_service(Gripper, "alert_guard/gripper", self._on_gripper)
        self.create_service(Trigger, "alert_guard/report", self._on_report)

    # -- helper thread: the driver side's streams -----------------------------------------
    def _say_hello(self) -> None:
        if self.streaming:
            self._hello.cancel()
            return
        if self.io.count_publishers("robot/step_batch") > 0 and self.stop_cli.service_is_ready():
            self.ack_pub.publish(StepAck(consumer=self.get_name(), episode_id="", step=0, requests_issued=0))

    def _on_batch(self, _msg: StepBatch) -> None:
        self.streaming = True  # acks follow the statuses from now on

    def _on_request(self, msg: SuiteRequest) -> None:
        if msg.suite != "alerts":
            return
        with self.cond:
            self.scenarios[msg.episode_id] = alert_scenario_from_json(msg.scenario_json)
            self.latest = msg.episode_id
            for kind, m in self.pending.pop(msg.episode_id, []):
                self._feed(kind, m)
            self.cond.notify_all()

    def _on_alert(self, msg: HardwareAlert) -> None:
        with self.cond:
            self._feed("alert", msg)
            self.cond.notify_all()

    def _on_status(self, msg: RobotStatus) -> None:
        with self.cond:
            self._feed("status", msg)
            self.cond.notify_all()

    def _feed(self, kind: str, msg: HardwareAlert | RobotStatus) -> None:
        """Call holding the lock."""
        if msg.episode_id in self.finished:
            return
        if msg.episode_id not in self.scenarios:
            self.pending.setdefault(msg.episode_id, []).append((kind, msg))
            return
        if msg.episode_id != self.episode or self.core is None:
            sc = self.scenarios[msg.episode_id]
            if self.episode:
                self.finished.add(self.episode)
            self.core = GuardCore(self.policy, sc.status, self.params.reaction_latency_steps)
            self.episode = msg.episode_id
        if kind == "alert":
            payload = json.loads(msg.payload_json or "{}")
            alert = Alert(msg.alert_id, AlertClass(msg.alert_class), Severity(msg.severity), msg.step, payload)
            requests = self.core.on_alert(AlertEvent(alert, msg.step, msg.cleared))
        else:
            status = CoreStatus(msg.step, msg.battery_pct, tuple(msg.joint_temp_c), tuple(msg.actuator_ok))
            requests = self.core.on_status(status, msg.alerts_issued)
        for r in requests:
            self._request_stop(r)
        if kind == "status":
            self.ack_pub.publish(
                StepAck(
                    consumer=self.get_name(),
                    episode_id=self.episode,
                    step=self.core.watermark,
                    requests_issued=self.requests_issued,
                )
            )

    def _request_stop(self, r: StopRequest) -> None:
        self.requests_issued += 1
        future = self.stop_cli.call_async(
            ProtectiveStop.Request(
                episode_id=self.episode,
                engage=r.engage,
                decision_step=r.decision_step,
                requester=self.get_name(),
                reason=r.reason,
            )
        )
        future.add_done_callback(self._stop_done)

    def _stop_done(self, future) -> None:  # noqa: ANN001
        reply = future.result()
        if reply is not None and not reply.accepted:
            self.get_logger().warning(f"protective stop request refused: {reply.message}")

    # -- service callbacks: decide at the robot's step ------------------------------------
    def _sync(self) -> int:
        """The robot's step (it is idle: the executive waits for each command's end), once the
        guard has processed every alert and status up to it."""
        step = call_service(self.observe_cli, Observe.Request(), self.params.service_timeout_s).step
        with self.cond:
            ok = self.cond.wait_for(
                lambda: self.core is not None and self.episode == self.latest and self.core.watermark >= step,
                timeout=self.params.service_timeout_s,
            )
        if not ok:
            raise AlphaMatrixError(f"alert_guard: the driver side never reached step {step}")
        return int(step)

    def _admit(self, command: str, client, req, res):  # noqa: ANN001, ANN202 - MoveTo or Gripper
        with self.cond:
            idle = self.core is None
        if idle:  # no scenario yet (the executive's start-up handshake): nothing to guard
            return handshake(client, req, self.params.service_timeout_s)
        step = self._sync() + 1
        with self.cond:
            assert self.core is not None
            adm = self.core.admit(command, step)
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
            assert self.core is not None
            res.success, res.message = True, json.dumps({"episode_id": self.episode, **self.core.export()})
        return res


def main(args: list[str] | None = None) -> int:
    return run_node(AlertGuard, spin_proxy, args)


if __name__ == "__main__":
    raise SystemExit(main())
