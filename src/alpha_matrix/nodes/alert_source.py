"""alert_source: the driver side of the alerts suite (simulation only), fed by the scenario.

What a real robot's safety system would publish: HardwareAlert messages (raised and cleared,
each stamped with its step) on robot/alerts, and RobotStatus (battery, joint temperatures,
actuator health; core/alerts.StatusModel on the measured joint velocities) on robot/status at
the end of every StepBatch, counting the alerts sent before it. A gating consumer of the step
stream, so the bridge never outruns it and every alert belongs to a fixed step.
"""

from __future__ import annotations

import json
from collections import defaultdict

from alpha_matrix_interfaces.msg import HardwareAlert, RobotStatus, StepBatch, SuiteRequest
from rclpy.node import Node

from alpha_matrix.core.suites.alerts.params import AlertSourceParams
from alpha_matrix.core.suites.alerts.policy import AlertClass, StatusModel
from alpha_matrix.core.suites.alerts.scenarios import AlertScenario, alert_scenario_from_json
from alpha_matrix.ros.gating import GatingLink
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS, STEP_STREAM

ARM_JOINTS = 7


class AlertSource(Node):
    def __init__(self) -> None:
        super().__init__("alert_source")
        declare_params(self, AlertSourceParams)
        self.scenarios: dict[str, AlertScenario] = {}
        self.pending: list[StepBatch] = []  # batches of an episode whose scenario has not arrived yet
        self.episode, self.last_step, self.issued = "", 0, 0
        self.model: StatusModel | None = None
        self.events: dict[int, list[tuple[str, bool]]] = {}
        self.gating = GatingLink(self, stops=False)  # hello until the first batch, then acks
        self.alert_pub = self.create_publisher(HardwareAlert, "robot/alerts", EVENTS)
        self.status_pub = self.create_publisher(RobotStatus, "robot/status", EVENTS)
        self.create_subscription(SuiteRequest, "suite/request", self._on_request, EVENTS)
        self.create_subscription(StepBatch, "robot/step_batch", self._on_batch, STEP_STREAM)

    def _on_request(self, msg: SuiteRequest) -> None:
        if msg.suite == "alerts":
            self.scenarios[msg.episode_id] = alert_scenario_from_json(msg.scenario_json)
            pending, self.pending = self.pending, []
            for b in pending:
                self._on_batch(b)

    def _start(self, episode: str) -> None:
        sc = self.scenarios[episode]
        self.episode, self.last_step, self.issued = episode, 0, 0
        self.model = StatusModel(sc.status)
        self.events = defaultdict(list)
        self.alerts = {a.alert_id: a for a in sc.alerts}
        for a in sc.alerts:
            self.events[a.at_step].append((a.alert_id, False))
            if a.cleared_at_step is not None:
                self.events[a.cleared_at_step].append((a.alert_id, True))

    def _on_batch(self, msg: StepBatch) -> None:
        self.gating.streaming()
        if msg.episode_id not in self.scenarios:
            self.pending.append(msg)
            return
        if msg.episode_id != self.episode or msg.first_step <= self.last_step:
            self._start(msg.episode_id)
        assert self.model is not None
        n = len(msg.joint_names)
        for i in range(msg.num_steps):
            step = msg.first_step + i
            for alert_id, cleared in self.events.pop(step, []):
                self._publish_alert(alert_id, step, cleared)
            status = self.model.update(step, list(msg.joint_velocities[i * n : i * n + ARM_JOINTS]))
        self.last_step = status.step
        self.status_pub.publish(
            RobotStatus(
                episode_id=self.episode,
                step=status.step,
                battery_pct=status.battery_pct,
                joint_temp_c=list(status.joint_temp_c),
                actuator_ok=list(status.actuator_ok),
                alerts_issued=self.issued,
            )
        )
        self.gating.ack(msg.episode_id, self.last_step)

    def _publish_alert(self, alert_id: str, step: int, cleared: bool) -> None:
        a = self.alerts[alert_id]
        if a.cls == AlertClass.ACTUATOR_FAULT and isinstance(a.payload.get("joint"), int):
            self.model.set_actuator(a.payload["joint"], cleared)  # type: ignore[union-attr]
        self.issued += 1
        self.alert_pub.publish(
            HardwareAlert(
                episode_id=self.episode,
                alert_id=a.alert_id,
                alert_class=a.cls.value,
                severity=a.severity.value,
                payload_json=json.dumps(a.payload, sort_keys=True),
                step=step,
                cleared=cleared,
                source=a.source,
            )
        )


def main(args: list[str] | None = None) -> int:
    return run_node(AlertSource, args=args)


if __name__ == "__main__":
    raise SystemExit(main())
