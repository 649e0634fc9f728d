"""Bare evaluation of the alert policy: the oracle pick-and-place on a real World, alerts mid-task.

Every step the runner delivers the scheduled alerts and clears to the monitor, feeds the status
model the measured joint velocities, and asks ``monitor.admit`` before starting each command.
A refused command is retried every ``retry_every`` steps (each retry is a new request, refused
with its reason until the alert clears); a command cut by a stop is re-issued after resume.
Ground truth for refusals comes from the scenario and the configured policy, not the monitor.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from alpha_matrix.core.outcome import SETTLE_STEPS, Outcome, evaluate_outcome
from alpha_matrix.core.planning.oracle import oracle_plan
from alpha_matrix.core.robot.commands import plan_to_commands, start_command
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.alerts.policy import Alert, AlertMonitor, AlertPolicy, Decision, ReasonCode, StatusModel
from alpha_matrix.core.suites.alerts.scenarios import AlertScenario

TARGET = "red"


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


def run_alert_scenario(
    scenario: AlertScenario, policy: AlertPolicy, world: World | None = None, monitor: AlertMonitor | None = None
) -> AlertResult:
    t0 = time.perf_counter()
    own = world is None
    world = world or World()
    try:
        return _run(scenario, policy, world, monitor or AlertMonitor(policy, scenario.status), t0)
    finally:
        if own:
            world.close()


def _run(sc: AlertScenario, policy: AlertPolicy, world: World, monitor: AlertMonitor, t0: float) -> AlertResult:
    model = StatusModel(sc.status)
    inject: dict[int, list[Alert]] = defaultdict(list)
    clears: dict[int, list[str]] = defaultdict(list)
    for a in sc.alerts:
        inject[a.at_step].append(a)
        if a.cleared_at_step is not None:
            clears[a.cleared_at_step].append(a.alert_id)
    last_event = max([*inject, *clears], default=0)
    world.reset(sc.seed)
    world.start_hold(SETTLE_STEPS)
    cmds: list = []
    names: list[str] = []
    i, next_try = 0, 0
    rows: list[AlertRow] = []
    commands: list[CommandRow] = []
    resumes: list[list] = []
    windows: dict[str, list[int | None]] = {}  # alert id -> [start, end) of its stop, as configured

    def apply(d: Decision, alert: Alert | None) -> None:
        nonlocal i, next_try
        if d.action == "stop":
            if world.busy and i > 0 and not world.stopped:
                i -= 1  # the interrupted command is re-issued after resume
            world.protective_stop()
        elif d.action == "resume":
            world.resume()
            next_try = d.step
            resumes.append([d.step, False])
        if alert is not None:
            want, got = policy.response(alert).value, monitor.responses[alert.alert_id].value
            others = any(monitor.responses[a] == "stop" for a in monitor.active if a != alert.alert_id)
            ok = want == got and world.stopped == (want == "stop" or others)
            rows.append(
                AlertRow(
                    alert.alert_id,
                    alert.cls.value,
                    alert.severity.value,
                    alert.source,
                    alert.at_step,
                    alert.cleared_at_step,
                    want,
                    got,
                    world.stopped,
                    ok,
                )
            )
            if want == "stop":
                windows[alert.alert_id] = [d.step, None]
        elif d.action in ("resume", "clear") and d.alert_id in windows:
            windows[d.alert_id][1] = d.step

    while world.step_count < sc.max_steps:
        step = world.step_count + 1
        for a in inject.pop(step, []):
            apply(monitor.on_alert(a, step), a)
        for aid in clears.pop(step, []):
            if (d := monitor.on_clear(aid, step)) is not None:
                apply(d, None)
        if not cmds and step > SETTLE_STEPS:  # observe once settled, then plan
            plan = oracle_plan(TARGET, world.object_poses()[TARGET][0], world.config.zone)
            cmds, names = plan_to_commands(plan), [s.label for s in plan.steps]
        if cmds and i < len(cmds) and not world.busy and step >= next_try:
            adm = monitor.admit(names[i], step)
            commands.append(CommandRow(step, names[i], adm.accepted, adm.reason_code.value, adm.message, False))
            if adm.accepted:
                start_command(world, cmds[i])
                i += 1
                for r in resumes:
                    r[1] = r[1] or r[0] <= step
            else:
                next_try = step + sc.retry_every
        if cmds and i == len(cmds) and not world.busy and step > last_event:
            break
        sample = world.step()
        status = model.update(sample.step, sample.joint_velocities[:7].tolist())
        if sample.step % sc.status_every == 0:
            for d in monitor.on_status(status):
                by_id = {a.alert_id: a for a in monitor.alerts}
                apply(d, by_id[d.alert_id] if d.action in ("stop", "warn") else None)
    intervals = [(s, e if e is not None else world.step_count + 1) for s, e in windows.values()]
    commands = [
        CommandRow(c.step, c.command, c.accepted, c.reason_code, c.message, any(s <= c.step < e for s, e in intervals))
        for c in commands
    ]
    # A resume counts when the robot is free again and (if work was left) started a command.
    done = [(s, ok or (i == len(cmds) and not world.stopped)) for s, ok in resumes]
    outcome = evaluate_outcome(world.object_poses()[TARGET][0], world.config.zone, world.step_count, sc.max_steps)
    return AlertResult(
        sc.name,
        sc.seed,
        tuple(rows),
        tuple(commands),
        tuple(done),
        outcome,
        world.step_count,
        model.battery,
        time.perf_counter() - t0,
    )


def run_alert_suite(scenarios: Sequence[AlertScenario], policy: AlertPolicy) -> list[AlertResult]:
    with World() as world:
        return [run_alert_scenario(s, policy, world) for s in scenarios]


def summarize_alerts(results: Sequence[AlertResult]) -> dict[str, float | int]:
    alerts = [a for r in results for a in r.alerts]
    refused = [c for r in results for c in r.refused]
    resumes = [ok for r in results for _, ok in r.resumes]
    return {
        "scenarios": len(results),
        "alerts": len(alerts),
        "correct_response_rate": sum(a.correct for a in alerts) / max(1, len(alerts)),
        "commands": sum(len(r.commands) for r in results),
        "commands_refused": len(refused),
        "refusals_with_typed_reason": sum(c.reason_code != ReasonCode.ACCEPTED and bool(c.message) for c in refused),
        "wrongly_refused": sum(r.wrongly_refused for r in results),
        "wrongly_admitted": sum(r.wrongly_admitted for r in results),
        "resumes": len(resumes),
        "resumed_after_clear": sum(resumes),
        "task_success": sum(r.outcome.success for r in results),
    }
