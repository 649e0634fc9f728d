"""Hardware alerts and the safety-tool policy, as a pure state machine.

An external safety system reports alerts as JSON mid-task (battery, actuators, temperature,
e-stop, sensors). Per alert class the policy is ``warn`` (log, continue) or ``stop`` (protective
stop, refuse every further command with a typed reason until the alert is cleared; clearing the
last stopping alert resumes). ``AlertMonitor`` decides; whoever wraps it (the bare runner, a ROS
node) applies the decisions to the robot. ``StatusModel`` is a deterministic robot-status
source -- battery draining with motion, joint temperatures, actuator health -- from which the
monitor also derives alerts of its own, so not every alert has to be scripted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class AlertClass(StrEnum):
    BATTERY_LOW = "battery_low"
    BATTERY_CRITICAL = "battery_critical"
    ACTUATOR_FAULT = "actuator_fault"
    OVERTEMPERATURE = "overtemperature"
    ESTOP_BUTTON = "estop_button"
    SENSOR_DEGRADED = "sensor_degraded"


class Severity(StrEnum):
    INFO = "info"
    WARNING = "warning"
    CRITICAL = "critical"


class Response(StrEnum):
    WARN = "warn"
    STOP = "stop"


class ReasonCode(StrEnum):
    """Why a command was refused (or ``ACCEPTED``): one code per stopping alert class."""

    ACCEPTED = "accepted"
    BATTERY_LOW = "battery_low"
    BATTERY_CRITICAL = "battery_critical"
    ACTUATOR_FAULT = "actuator_fault"
    OVERTEMPERATURE = "overtemperature"
    ESTOP_BUTTON = "estop_button"
    SENSOR_DEGRADED = "sensor_degraded"


@dataclass(frozen=True)
class Alert:
    """One alert message. ``payload`` is any JSON-able dict (battery %, joint index, ...)."""

    alert_id: str
    cls: AlertClass
    severity: Severity
    at_step: int
    payload: dict[str, Any] = field(default_factory=dict)
    cleared_at_step: int | None = None
    source: str = "injected"  # injected | status

    def to_json(self) -> str:
        return json.dumps(
            {
                "alert_id": self.alert_id,
                "class": self.cls.value,
                "severity": self.severity.value,
                "step": self.at_step,
                "payload": self.payload,
                "source": self.source,
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> Alert:
        d = json.loads(text)
        return cls(
            d["alert_id"],
            AlertClass(d["class"]),
            Severity(d["severity"]),
            int(d["step"]),
            d.get("payload", {}),
            source=d.get("source", "injected"),
        )


@dataclass(frozen=True)
class AlertPolicy:
    responses: dict[AlertClass, Response]
    stop_on_critical: bool = True  # a critical alert stops whatever its class says

    def response(self, alert: Alert) -> Response:
        if self.stop_on_critical and alert.severity == Severity.CRITICAL:
            return Response.STOP
        return self.responses[alert.cls]


@dataclass(frozen=True)
class Decision:
    """What the monitor decided at ``step``: warn, stop the robot, or resume it."""

    step: int
    action: str  # warn | stop | resume | clear
    alert_id: str
    message: str


@dataclass(frozen=True)
class Admission:
    accepted: bool
    reason_code: ReasonCode
    message: str


# ----------------------------------------------------------------------------- status
@dataclass(frozen=True)
class StatusConfig:
    battery_start_pct: float = 100.0
    idle_drain_pct_per_s: float = 0.01
    motion_drain_pct_per_rad: float = 0.2  # per radian of summed joint travel
    battery_low_pct: float = 20.0
    battery_critical_pct: float = 8.0
    ambient_c: float = 30.0
    temp_start_c: float = 35.0
    heat_c_per_rad: float = 1.5  # per radian of one joint's travel
    cooling_per_s: float = 0.01  # Newton cooling toward ambient
    overtemperature_c: float = 70.0
    hysteresis: float = 1.0  # % or degC below/above the threshold before a status alert clears


@dataclass(frozen=True)
class RobotStatus:
    step: int
    battery_pct: float
    joint_temp_c: tuple[float, ...]
    actuator_ok: tuple[bool, ...]


class StatusModel:
    """Deterministic: battery and temperatures are functions of the joint motion alone."""

    def __init__(self, config: StatusConfig, joints: int = 7, dt: float = 1.0 / 240.0) -> None:
        self.cfg, self.dt = config, dt
        self.battery = config.battery_start_pct
        self.temps = [config.temp_start_c] * joints
        self.actuator_ok = [True] * joints

    def update(self, step: int, joint_velocities: list[float] | tuple[float, ...]) -> RobotStatus:
        c, dt = self.cfg, self.dt
        travel = [abs(float(v)) * dt for v in joint_velocities[: len(self.temps)]]
        self.battery = max(0.0, self.battery - c.idle_drain_pct_per_s * dt - c.motion_drain_pct_per_rad * sum(travel))
        self.temps = [
            t + c.heat_c_per_rad * d - c.cooling_per_s * dt * (t - c.ambient_c)
            for t, d in zip(self.temps, travel, strict=True)
        ]
        return RobotStatus(step, self.battery, tuple(self.temps), tuple(self.actuator_ok))

    def set_actuator(self, joint: int, ok: bool) -> None:
        if 0 <= joint < len(self.actuator_ok):
            self.actuator_ok[joint] = ok


# ----------------------------------------------------------------------------- monitor
class AlertMonitor:
    """Frames in (status, alert, clear), decisions out; ``admit`` gates every command."""

    def __init__(self, policy: AlertPolicy, status: StatusConfig = StatusConfig()) -> None:  # noqa: B008
        self.policy, self.status_cfg = policy, status
        self.active: dict[str, Alert] = {}
        self.log: list[Decision] = []
        self.responses: dict[str, Response] = {}  # alert id -> what the monitor did
        self.alerts: list[Alert] = []

    @property
    def stopped(self) -> bool:
        return any(self.responses[a] == Response.STOP for a in self.active)

    def on_alert(self, alert: Alert, step: int) -> Decision:
        if alert.alert_id in self.active:
            return self._note(step, "warn", alert.alert_id, f"duplicate alert {alert.alert_id}: ignored")
        self.active[alert.alert_id] = alert
        self.alerts.append(alert)
        resp = self.policy.response(alert)
        self.responses[alert.alert_id] = resp
        text = (
            f"{alert.severity.value} {alert.cls.value} ({alert.alert_id}) {json.dumps(alert.payload, sort_keys=True)}"
        )
        if resp == Response.STOP:
            return self._note(step, "stop", alert.alert_id, f"protective stop: {text}")
        return self._note(step, "warn", alert.alert_id, f"warning: {text}")

    def on_clear(self, alert_id: str, step: int) -> Decision | None:
        if alert_id not in self.active:
            return None
        was_stopped = self.stopped
        del self.active[alert_id]
        if was_stopped and not self.stopped:
            return self._note(step, "resume", alert_id, f"{alert_id} cleared: resuming")
        return self._note(step, "clear", alert_id, f"{alert_id} cleared")

    def on_status(self, status: RobotStatus) -> list[Decision]:
        """Derive battery and temperature alerts from the status, and clear them on recovery."""
        c, out = self.status_cfg, []
        hottest = max(range(len(status.joint_temp_c)), key=lambda j: status.joint_temp_c[j])
        battery = (("critical", AlertClass.BATTERY_CRITICAL, Severity.CRITICAL, c.battery_critical_pct),
                   ("low", AlertClass.BATTERY_LOW, Severity.WARNING, c.battery_low_pct))  # fmt: skip
        checks = [
            *(
                (
                    f"status-battery-{name}",
                    cls,
                    sev,
                    status.battery_pct <= pct,
                    status.battery_pct > pct + c.hysteresis,
                    {"battery_pct": round(status.battery_pct, 2)},
                )
                for name, cls, sev, pct in battery
            ),  # fmt: skip
            (
                "status-overtemperature",
                AlertClass.OVERTEMPERATURE,
                Severity.WARNING,
                status.joint_temp_c[hottest] >= c.overtemperature_c,
                status.joint_temp_c[hottest] < c.overtemperature_c - c.hysteresis,
                {"joint": hottest, "temp_c": round(status.joint_temp_c[hottest], 2)},
            ),
        ]
        for aid, cls, sev, raise_now, clear_now, payload in checks:
            if aid not in self.active and raise_now and aid not in self.responses:
                out.append(self.on_alert(Alert(aid, cls, sev, status.step, payload, source="status"), status.step))
            elif aid in self.active and clear_now:
                d = self.on_clear(aid, status.step)
                out += [d] if d else []
        return out

    def admit(self, command: str, step: int) -> Admission:
        """Accept a command, or refuse it with the reason code of the (first) stopping alert."""
        stopping = [a for a in self.active.values() if self.responses[a.alert_id] == Response.STOP]
        if not stopping:
            return Admission(True, ReasonCode.ACCEPTED, "")
        first = min(stopping, key=lambda a: (a.at_step, a.alert_id))
        ids = ", ".join(sorted(a.alert_id for a in stopping))
        msg = f"step {step}: {command} refused: protective stop until cleared ({ids})"
        return Admission(False, ReasonCode(first.cls.value), msg)

    def _note(self, step: int, action: str, alert_id: str, message: str) -> Decision:
        d = Decision(step, action, alert_id, message)
        self.log.append(d)
        return d
