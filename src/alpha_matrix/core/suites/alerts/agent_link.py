"""Between the agent under test and the robot in the alerts suite (no ROS, no simulator).

One episode of alert_guard with an agent: the alerts and clears the guard processed (in its
step order, status-derived ones included) and every command the executive sends are decision
points. The agent sees what was received so far (core/suites/alerts/situation.alerts_situation), never
the alert policy.

* **At an alert or a clear**: ``robot_stop`` engages the agent's own protective stop,
  ``resume`` or ``continue_task`` releases it (never the guard's: each requester holds its own
  stop); anything else changes nothing. A change lands L steps after the event.
* **At a command** (the robot idle, the command would start at ``step``): ``refuse_command``
  refuses it; ``robot_stop`` engages the agent's stop and refuses it; ``continue_task`` or
  ``resume`` releases the agent's stop and lets it through -- once the agent's stop is no
  longer in effect at ``step`` (a release lands L steps later: until then the command is
  refused, as the guard refuses until its resume lands); a message, ``warn_user``, an invalid
  answer or an abort let it through unless the agent's stop holds. With guards on, the guard's
  own admission must agree too (the node combines them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from alpha_matrix.core.agent.protocol import Decision, Observation
from alpha_matrix.core.suites.agent_common import hold_change, holds_at, tool_of
from alpha_matrix.core.suites.alerts.guard import AlertEvent
from alpha_matrix.core.suites.alerts.situation import AlertsEvent, AlertsRobotView, alerts_situation, observation

STOP = "robot_stop"
LIFT = frozenset({"resume", "continue_task"})
REFUSE = frozenset({"refuse_command", STOP})
AGENT_CODE = "agent_stop"  # the reason code of a command the agent refused


STOPS = frozenset({STOP})


@dataclass
class AlertAgentLink:
    episode_id: str
    task: str
    latency: int = 24
    decisions: int = 0
    received: list[AlertEvent] = field(default_factory=list)  # the guard's events handed on so far
    changes: list[tuple[int, bool]] = field(default_factory=list)  # the agent's stop: (apply step, engage)
    holding: bool = False  # as requested (its latest change)

    def _view(self, step: int, guard_stopped: bool) -> AlertsRobotView:
        return AlertsRobotView(stopped=guard_stopped or holds_at(self.changes, step))

    def _observe(self, event: AlertsEvent, view: AlertsRobotView, command: str | None = None) -> Observation:
        sit = alerts_situation(self.received, event, view, self.task, command)
        obs = observation(sit, self.episode_id, self.decisions)
        self.decisions += 1
        return obs

    def on_event(self, ev: AlertEvent, guard_stopped: bool) -> Observation | None:
        """An alert or clear the guard processed: the observation to decide on (None: a clear of
        an alert never received, which has nothing to decide)."""
        known = any(e.alert.alert_id == ev.alert.alert_id for e in self.received)
        self.received.append(ev)
        if ev.cleared and not known:
            return None
        event = AlertsEvent(kind="clear" if ev.cleared else "alert", step=ev.step, alert_id=ev.alert.alert_id)
        return self._observe(event, self._view(ev.step, guard_stopped))

    def on_command(self, command: str, step: int, guard_stopped: bool) -> Observation:
        return self._observe(AlertsEvent(kind="command", step=step), self._view(step, guard_stopped), command)

    def _change(self, tool: str, step: int) -> bool | None:
        change = hold_change(self.holding, tool, STOPS, LIFT)
        if change is not None:
            self.holding = change
            self.changes.append((step + self.latency, change))
        return change

    def on_event_decision(self, decision: Decision, step: int) -> bool | None:
        """The stop request the decision on the event of ``step`` calls for (None: nothing)."""
        return self._change(tool_of(decision), step)

    def on_command_decision(self, decision: Decision, step: int) -> tuple[bool, bool | None, str]:
        """(whether the agent lets the command through, the stop request it calls for, why not)."""
        tool = tool_of(decision)
        change = self._change(tool, step)
        if tool in REFUSE:
            return False, change, f"step {step}: refused by the agent ({tool})"
        if holds_at(self.changes, step):
            lands = next((at for at, engage in self.changes if at > step and not engage), None)
            why = f"the agent's stop is lifted at step {lands}" if lands is not None else "the agent's stop holds"
            return False, change, f"step {step}: refused: {why}"
        return True, change, ""


def final_admission(
    guard: tuple[bool, str, str], agent_ok: bool, agent_why: str, guards: bool
) -> tuple[bool, str, str]:
    """A command's admission (accepted, reason code, message) from the guard's (accepted, code,
    message) and the agent's: with guards on both must let it through (the guard's refusal keeps
    its own code); with guards off only the agent decides."""
    accepted, code, why = guard if guards else (True, "accepted", "")
    if accepted and not agent_ok:
        return False, AGENT_CODE, agent_why
    return accepted, code, why
