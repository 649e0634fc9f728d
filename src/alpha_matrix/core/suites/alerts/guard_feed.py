"""What alert_guard decides about the messages it is fed: which episode (and so which GuardCore)
an alert or status belongs to, and what the guard's core makes of it.

The robot runs the episode of the latest suite request. Alerts and statuses of an episode whose
scenario has not arrived yet wait for it; the first message of a new episode starts a fresh
GuardCore and retires the previous episode, whose late messages are dropped. Messages are read
by attribute (HardwareAlert, RobotStatus), so plain objects do in tests.
"""

from __future__ import annotations

import json
from typing import Any

from alpha_matrix.core.suites.alerts.guard import AlertEvent, GuardCore, StopRequest
from alpha_matrix.core.suites.alerts.policy import Alert, AlertClass, AlertPolicy, Severity
from alpha_matrix.core.suites.alerts.policy import RobotStatus as CoreStatus
from alpha_matrix.core.suites.alerts.scenarios import AlertScenario


def alert_event(msg: Any) -> AlertEvent:
    """A HardwareAlert (raised or cleared) as the guard's event."""
    payload = json.loads(msg.payload_json or "{}")
    alert = Alert(msg.alert_id, AlertClass(msg.alert_class), Severity(msg.severity), msg.step, payload)
    return AlertEvent(alert, msg.step, msg.cleared)


def robot_status(msg: Any) -> CoreStatus:
    return CoreStatus(msg.step, msg.battery_pct, tuple(msg.joint_temp_c), tuple(msg.actuator_ok))


class GuardFeed:
    def __init__(self, policy: AlertPolicy, latency: int) -> None:
        self.policy, self.latency = policy, latency
        self.scenarios: dict[str, AlertScenario] = {}
        self.latest = ""  # the episode of the latest request: the one the robot runs
        self.pending: dict[str, list[tuple[str, Any]]] = {}
        self.core: GuardCore | None = None
        self.episode = ""
        self.finished: set[str] = set()  # late messages of an earlier episode are dropped

    def request(self, episode_id: str, scenario: AlertScenario) -> list[tuple[str, Any]]:
        """A suite request: its scenario, and the messages of its episode that waited for it (feed them)."""
        self.scenarios[episode_id] = scenario
        self.latest = episode_id
        return self.pending.pop(episode_id, [])

    def feed(self, kind: str, msg: Any) -> list[StopRequest] | None:
        """An alert or a status (``kind``); the stop requests it leads to, or None if it was
        dropped (a finished episode) or kept for later (no scenario yet)."""
        if msg.episode_id in self.finished:
            return None
        if msg.episode_id not in self.scenarios:
            self.pending.setdefault(msg.episode_id, []).append((kind, msg))
            return None
        if msg.episode_id != self.episode or self.core is None:
            if self.episode:
                self.finished.add(self.episode)
            self.core = GuardCore(self.policy, self.scenarios[msg.episode_id].status, self.latency)
            self.episode = msg.episode_id
        if kind == "alert":
            return self.core.on_alert(alert_event(msg))
        return self.core.on_status(robot_status(msg), msg.alerts_issued)

    def synced(self, step: int) -> bool:
        """The guard has processed everything of the robot's episode up to ``step``."""
        return self.core is not None and self.episode == self.latest and self.core.watermark >= step
