"""Bare evaluation of the alert policy: the oracle pick-and-place on a real World, alerts mid-task.

Every step the runner delivers the scheduled alerts and clears to the monitor, feeds the status
model the measured joint velocities, and asks ``monitor.admit`` before starting each command.
A refused command is retried every ``retry_every`` steps (each retry is a new request, refused
with its reason until the alert clears); a command cut by a stop is re-issued after resume.
Decisions land on the robot at once (L = 0). The rows and the ground truth for refusals (from
the scenario and the configured policy, not the monitor) are the guard's own (alerts/guard.py).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence

from alpha_matrix.core.outcome import SETTLE_STEPS, evaluate_outcome
from alpha_matrix.core.planning.oracle import oracle_plan
from alpha_matrix.core.robot.commands import plan_to_commands, start_command
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.alerts.guard import AlertAccount, AlertResult, CommandRow, judge_commands, judge_resumes
from alpha_matrix.core.suites.alerts.policy import Alert, AlertMonitor, AlertPolicy, Decision, StatusModel
from alpha_matrix.core.suites.alerts.scenarios import AlertScenario

TARGET = "red"


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
    account = AlertAccount(policy, latency=0)
    commands: list[CommandRow] = []

    def apply(d: Decision, alert: Alert | None) -> None:
        nonlocal i, next_try
        if d.action == "stop":
            if world.busy and i > 0 and not world.stopped:
                i -= 1  # the interrupted command is re-issued after resume
            world.protective_stop()
        elif d.action == "resume":
            world.resume()
            next_try = d.step
        account.note(d, alert, monitor, world.stopped)

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
    judged = judge_commands(commands, account.windows.values(), world.step_count)
    resumes = judge_resumes(account.resume_steps, commands, i == len(cmds), world.stopped)
    outcome = evaluate_outcome(world.object_poses()[TARGET][0], world.config.zone, world.step_count, sc.max_steps)
    return AlertResult(
        sc.name,
        sc.seed,
        tuple(account.rows),
        tuple(judged),
        tuple(resumes),
        outcome,
        world.step_count,
        model.battery,
        time.perf_counter() - t0,
    )


def run_alert_suite(scenarios: Sequence[AlertScenario], policy: AlertPolicy) -> list[AlertResult]:
    with World() as world:
        return [run_alert_scenario(s, policy, world) for s in scenarios]
