"""The alerts suite's situation: the alert messages received, the event to decide on, the robot.

What the brief states (core/agent/situation.py says what no situation ever holds):

* alerts: the task the robot is doing. The rule (warn or stop per alert, refuse commands while
  stopped, resume after the clear) is in the prompt template; which alert calls for which
  response is not stated anywhere: that is what is measured.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import Field

from alpha_matrix.core.agent.protocol import Observation, Tool
from alpha_matrix.core.agent.situation import Strict as _Strict
from alpha_matrix.core.agent.situation import observation as agent_observation
from alpha_matrix.core.suites.alerts.guard import AlertEvent
from alpha_matrix.core.suites.alerts.tools import ALERT_TOOLS


# ----------------------------------------------------------------------------- alerts
class AlertsBrief(_Strict):
    task: str = Field(min_length=1)


class AlertMessage(_Strict):
    """One alert message as received (HardwareAlert / ``Alert.to_json``), and its clear once received."""

    alert_id: str
    alert_class: str = Field(alias="class")
    severity: str
    step: int
    payload: dict[str, Any] = Field(default_factory=dict)
    source: str = "injected"
    cleared_at_step: int | None = None  # only once the clear has been received


class AlertsEvent(_Strict):
    """What calls for a decision now: an alert raised, an alert cleared, or a command waiting."""

    kind: Literal["alert", "clear", "command"]
    step: int = Field(ge=0)
    alert_id: str = ""  # the alert raised or cleared


class AlertsRobotView(_Strict):
    stopped: bool  # a protective stop is in effect at ``step``
    battery_pct: float | None = None
    busy: bool = False  # running a command


class AlertsSituation(_Strict):
    suite: Literal["alerts"] = "alerts"
    brief: AlertsBrief
    step: int = Field(ge=0)
    event: AlertsEvent
    alerts: tuple[AlertMessage, ...]  # every alert received so far, in arrival order
    pending_command: str | None = None  # the command waiting to run (a command event's)
    robot: AlertsRobotView


def alert_messages(received: Iterable[AlertEvent]) -> tuple[AlertMessage, ...]:
    """The alerts received (raised), each with its clear if that was received too; arrival order."""
    out: dict[str, AlertMessage] = {}
    for ev in received:
        a = ev.alert
        if ev.cleared:
            if a.alert_id in out and out[a.alert_id].cleared_at_step is None:
                out[a.alert_id] = out[a.alert_id].model_copy(update={"cleared_at_step": ev.step})
        elif a.alert_id not in out:  # a repeat of an alert still listed changes nothing
            out[a.alert_id] = AlertMessage.model_validate(
                {"alert_id": a.alert_id, "class": a.cls.value, "severity": a.severity.value, "step": ev.step,
                 "payload": dict(a.payload), "source": a.source}
            )  # fmt: skip
    return tuple(out.values())


def alerts_situation(
    received: Sequence[AlertEvent],
    event: AlertsEvent,
    robot: AlertsRobotView,
    task: str,
    pending_command: str | None = None,
) -> AlertsSituation:
    """``received``: every HardwareAlert message so far (raised and cleared, as
    guard_feed.alert_event makes them), the event's own included. Never the scenario's schedule:
    an alert's clear shows only once it has been received."""
    if event.kind == "command" and not pending_command:
        raise ValueError("a command event needs the pending command")
    if event.kind != "command" and not any(ev.alert.alert_id == event.alert_id for ev in received):
        raise ValueError(f"event {event.kind} of {event.alert_id!r}, which was not received")
    return AlertsSituation(
        brief=AlertsBrief(task=task),
        step=event.step,
        event=event,
        alerts=alert_messages(received),
        pending_command=pending_command if event.kind == "command" else None,
        robot=robot,
    )


def tools_for(situation: AlertsSituation) -> tuple[Tool, ...]:
    return ALERT_TOOLS


def observation(situation: AlertsSituation, episode_id: str, decision_index: int) -> Observation:
    """One decision point: the situation with the suite's tools."""
    return agent_observation(situation, episode_id, decision_index, tools_for(situation))


def brief_values(brief: dict[str, Any]) -> dict[str, str]:
    """The brief as the prompt's placeholder values."""
    return {"task": str(brief["task"]).strip()}
