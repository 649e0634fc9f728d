"""The alert guard's decisions, and the account of an alerts episode both runners keep.

* ``AlertAccount``: the one definition of an alert's row (what the monitor decided against what
  the configured policy says, and whether the robot's stop state agrees) and of the stop windows
  that are the ground truth for refusals. The bare runner (alerts/run.py) and ``GuardCore`` both
  keep one; ``compose_alert_result`` and ``judge_commands``/``judge_resumes`` turn it into a result.
* ``GuardCore``: the alert_guard node's decisions. It wraps ``AlertMonitor`` and merges the
  driver side's two streams -- ``HardwareAlert`` (raised/cleared, stamped with a step) and
  ``RobotStatus`` (stamped, counting the alerts sent before it) -- in step order: a status is
  credited only once every alert it counts has arrived, so alerts and statuses are always
  processed in the same order whatever DDS delivered first. Stops and resumes are decided at
  the alert's step and land at step + L on the robot. Admission is latency-aware: between a
  clear at step c and c + L the robot is still stopped, so commands stay refused, with the
  cleared alert's reason code.

No simulator here: the guard node and the audit import this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from alpha_matrix.core.outcome import Outcome
from alpha_matrix.core.suites.alerts.policy import (
    Admission,
    Alert,
    AlertMonitor,
    AlertPolicy,
    Decision,
    ReasonCode,
    Response,
    RobotStatus,
    StatusConfig,
)


# ----------------------------------------------------------------------------- rows and results
@dataclass(frozen=True)
class AlertRow:
    alert_id: str
    cls: str
    severity: str
    source: str
    at_step: int
    cleared_at_step: int | None
    expected: str  # the configured response
    actual: str  # what the monitor decided
    robot_stopped_after: bool
    correct: bool  # decided as configured, and the robot's stop state agrees


@dataclass(frozen=True)
class CommandRow:
    step: int
    command: str
    accepted: bool
    reason_code: str
    message: str
    should_refuse: bool  # ground truth: inside a stop interval of the configured policy


@dataclass(frozen=True)
class AlertResult:
    name: str
    seed: int
    alerts: tuple[AlertRow, ...]
    commands: tuple[CommandRow, ...]
    resumes: tuple[tuple[int, bool], ...]  # (clear step, robot moving again afterwards)
    outcome: Outcome
    steps: int
    battery_pct: float
    wall_time_s: float

    @property
    def correct_responses(self) -> int:
        return sum(a.correct for a in self.alerts)

    @property
    def refused(self) -> list[CommandRow]:
        return [c for c in self.commands if not c.accepted]

    @property
    def refusals_typed(self) -> bool:
        return all(c.reason_code != ReasonCode.ACCEPTED and c.message for c in self.refused)

    @property
    def wrongly_refused(self) -> int:
        return sum(not c.accepted and not c.should_refuse for c in self.commands)

    @property
    def wrongly_admitted(self) -> int:
        return sum(c.accepted and c.should_refuse for c in self.commands)


@dataclass
class AlertAccount:
    """What a runner keeps of the monitor's decisions: rows, stop windows, resume decisions."""

    policy: AlertPolicy
    latency: int  # a resume lands on the robot this many steps after its decision (0: at once)
    rows: list[AlertRow] = field(default_factory=list)
    windows: dict[str, list[int | None]] = field(default_factory=dict)  # stop alert id -> [start, end)
    resume_steps: list[int] = field(default_factory=list)

    def note(self, d: Decision, alert: Alert | None, monitor: AlertMonitor, stopped: bool) -> None:
        """Account for one decision; ``alert`` is the alert a stop or warn is about, ``stopped`` the robot after it."""
        if d.action == "resume":
            self.resume_steps.append(d.step)
        if alert is not None and d.action in ("stop", "warn"):
            want, got = self.policy.response(alert), monitor.responses[alert.alert_id]
            others = any(monitor.responses[a] == Response.STOP for a in monitor.active if a != alert.alert_id)
            self.rows.append(
                AlertRow(
                    alert.alert_id,
                    alert.cls.value,
                    alert.severity.value,
                    alert.source,
                    alert.at_step,
                    alert.cleared_at_step,
                    want.value,
                    got.value,
                    stopped,
                    want == got and stopped == (want == Response.STOP or others),
                )
            )
            if want == Response.STOP:
                self.windows[alert.alert_id] = [d.step, None]
        elif d.action in ("resume", "clear") and d.alert_id in self.windows:
            self.windows[d.alert_id][1] = d.step + (self.latency if d.action == "resume" else 0)


def judge_commands(commands: Iterable[CommandRow], windows: Iterable[Sequence[Any]], end_step: int) -> list[CommandRow]:
    """Ground truth for refusals: inside a stop window of the configured policy, which runs from
    the alert's step to its clear (+ L for a resume: the step it lands on the robot), or to the end."""
    intervals = [(s, e if e is not None else end_step + 1) for s, e in windows]
    return [replace(c, should_refuse=any(s <= c.step < e for s, e in intervals)) for c in commands]


def judge_resumes(
    resume_steps: Iterable[int], commands: Sequence[CommandRow], plan_complete: bool, stopped: bool
) -> list[tuple[int, bool]]:
    """A resume counts when a command was admitted after it, or the plan was complete and the robot free at the end."""
    return [
        (c, any(a.accepted and a.step >= c for a in commands) or (plan_complete and not stopped)) for c in resume_steps
    ]


def compose_alert_result(
    name: str, seed: int, guard: dict[str, Any], end_step: int, plan_complete: bool, outcome: Outcome
) -> dict[str, Any]:
    """An ``AlertResult`` as a record: the guard's account (``GuardCore.export``) plus ground truth and the outcome."""
    admissions = [CommandRow(**c) for c in guard["admissions"]]
    commands = judge_commands(admissions, guard["windows"], end_step)
    resumes = [[c, ok] for c, ok in judge_resumes(guard["resume_steps"], admissions, plan_complete, guard["stopped"])]
    return {
        "name": name,
        "seed": seed,
        "alerts": guard["alerts"],
        "commands": [asdict(c) for c in commands],
        "resumes": resumes,
        "outcome": asdict(outcome),
        "steps": end_step,
        "battery_pct": guard["battery_pct"],
        "stop_requests": guard["stop_requests"],
        "plan_complete": plan_complete,
        **({"agent": guard["agent"]} if "agent" in guard else {}),  # an agent under test decided (agent_score.py)
        # A real-time driver streams on past the episode's end: the statuses the account covers.
        **({"accounted_to": guard["watermark"]} if guard.get("watermark", 0) > end_step else {}),
    }


def alert_from_result(d: dict[str, Any]) -> AlertResult:
    """A recorded result (``compose_alert_result``) as an ``AlertResult``."""
    return AlertResult(
        d["name"],
        d["seed"],
        tuple(AlertRow(**a) for a in d["alerts"]),
        tuple(CommandRow(**c) for c in d["commands"]),
        tuple((int(s), bool(ok)) for s, ok in d["resumes"]),
        Outcome(**d["outcome"]),
        d["steps"],
        d["battery_pct"],
        0.0,
    )


# ----------------------------------------------------------------------------- the guard
@dataclass(frozen=True)
class AlertEvent:
    """One HardwareAlert message as the guard received it."""

    alert: Alert
    step: int
    cleared: bool


@dataclass(frozen=True)
class StopRequest:
    engage: bool
    decision_step: int
    reason: str


@dataclass
class GuardCore:
    policy: AlertPolicy
    status: StatusConfig
    latency: int
    monitor: AlertMonitor = field(init=False)
    account: AlertAccount = field(init=False)
    watermark: int = 0  # every alert and status up to this step has been processed
    alerts_received: int = 0
    _alerts: list[tuple[int, int, AlertEvent]] = field(default_factory=list)
    _statuses: list[tuple[RobotStatus, int]] = field(default_factory=list)
    _resume: tuple[int, ReasonCode, str] | None = None  # (apply step, code, alert id) of a pending resume
    admissions: list[CommandRow] = field(default_factory=list)
    stop_requests: list[StopRequest] = field(default_factory=list)
    battery_pct: float = 0.0
    events: list[AlertEvent] = field(
        default_factory=list
    )  # every alert and clear processed, in order (an agent's events)

    def __post_init__(self) -> None:
        self.monitor = AlertMonitor(self.policy, self.status)
        self.account = AlertAccount(self.policy, self.latency)

    # -- frames in --------------------------------------------------------------------
    def on_alert(self, event: AlertEvent) -> list[StopRequest]:
        self._alerts.append((event.step, self.alerts_received, event))
        self.alerts_received += 1
        return self._drain()

    def on_status(self, status: RobotStatus, alerts_issued: int) -> list[StopRequest]:
        self._statuses.append((status, alerts_issued))
        return self._drain()

    def _drain(self) -> list[StopRequest]:
        out: list[StopRequest] = []
        while self._statuses and self._statuses[0][1] <= self.alerts_received:
            status, _ = self._statuses.pop(0)
            self._alerts.sort(key=lambda t: (t[0], t[1]))
            while self._alerts and self._alerts[0][0] <= status.step:
                _, _, ev = self._alerts.pop(0)
                self.events.append(ev)
                if ev.cleared:
                    d = self.monitor.on_clear(ev.alert.alert_id, ev.step)
                    out += self._apply(d, None) if d else []
                else:
                    out += self._apply(self.monitor.on_alert(ev.alert, ev.step), ev.alert)
            decisions = self.monitor.on_status(status)
            by_id = {a.alert_id: a for a in self.monitor.alerts}
            for d in decisions:  # alerts the robot's own status raised or cleared
                self.events.append(AlertEvent(by_id[d.alert_id], d.step, d.action in ("resume", "clear")))
                out += self._apply(d, by_id[d.alert_id] if d.action in ("stop", "warn") else None)
            self.battery_pct = status.battery_pct
            self.watermark = max(self.watermark, status.step)
        self.stop_requests += out
        return out

    def _apply(self, d: Decision, alert: Alert | None) -> list[StopRequest]:
        out: list[StopRequest] = []
        if d.action == "stop":  # engaging again while stopped is harmless: the robot stays stopped
            out.append(StopRequest(True, d.step, d.message))
        elif d.action == "resume":
            out.append(StopRequest(False, d.step, d.message))
            cleared = next(a for a in self.monitor.alerts if a.alert_id == d.alert_id)
            self._resume = (d.step + self.latency, ReasonCode(cleared.cls.value), d.alert_id)
        self.account.note(d, alert, self.monitor, self.monitor.stopped)
        return out

    # -- commands ---------------------------------------------------------------------
    def admit(self, command: str, step: int) -> Admission:
        """Admit or refuse a command the robot would start at ``step``; every refusal is typed."""
        adm = self.monitor.admit(command, step)
        if adm.accepted and self._resume is not None:
            apply_step, code, alert_id = self._resume
            if step < apply_step:
                msg = f"step {step}: {command} refused: {alert_id} cleared, the resume lands at step {apply_step}"
                adm = Admission(False, code, msg)
            else:
                self._resume = None
        self.admissions.append(CommandRow(step, command, adm.accepted, adm.reason_code.value, adm.message, False))
        return adm

    def stopped_at(self, step: int) -> bool:
        """Whether the guard's own stop requests hold the robot at ``step`` (applied at decision + L)."""
        state = False
        for r in self.stop_requests:  # in decision order, so in apply order
            if r.decision_step + self.latency > step:
                break
            state = r.engage
        return state

    def overrule(self, accepted: bool, reason_code: str, message: str) -> None:
        """The last admission as finally decided (an agent under test decides; the guard only checks)."""
        last = self.admissions[-1]
        self.admissions[-1] = replace(last, accepted=accepted, reason_code=reason_code, message=message)

    def export(self) -> dict[str, Any]:
        """The guard's raw account of the episode (JSON-able), for ``compose_alert_result``."""
        return {
            "alerts": [asdict(r) for r in self.account.rows],
            "admissions": [asdict(c) for c in self.admissions],
            "windows": [[s, e] for s, e in self.account.windows.values()],
            "resume_steps": list(self.account.resume_steps),
            "stop_requests": [asdict(r) for r in self.stop_requests],
            "battery_pct": round(self.battery_pct, 6),
            "stopped": self.monitor.stopped,
            "watermark": self.watermark,
        }
