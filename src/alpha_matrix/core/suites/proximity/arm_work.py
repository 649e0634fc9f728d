"""What proximity_executive decides: the arm's work until the run's end step, and how the run's
ground truth and the detector's estimates are gathered for scoring.

The arm does the task, then shuttles between two poses (as in the bare run,
core/suites/proximity/eval.py), command by command. A command cut by a protective stop is
re-issued; while stopped (commands refused) it holds ``hold_steps`` at a time, so sim time
passes and the person keeps walking. The last command may run past the end step; only steps up
to it are scored. The robot is reached through ``ArmRobot`` (ros/robot_client.RobotClient);
statuses and messages are read by attribute.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

import numpy as np

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.commands import Command
from alpha_matrix.core.robot.driver import State
from alpha_matrix.core.suites.proximity.eval import SHUTTLE
from alpha_matrix.core.suites.proximity.run import ArmAccount, ProximityScenario
from alpha_matrix.core.suites.proximity.sorting import ArmView, Seen, SortingController
from alpha_matrix.core.suites.proximity.transition import Sample

SHUTTLE_STEPS = 240


class ArmRobot(Protocol):
    def send(self, cmd: Command) -> Any: ...  # reply: accepted, command_id, message
    def wait(self, command_id: int) -> Any: ...  # terminal status: state, start_step, end_step
    def hold(self, steps: int) -> Any: ...  # the hold's terminal status


def work_until(end_step: int, cmds: list[Command], arm: ArmAccount, robot: ArmRobot, hold_steps: int, last: Any) -> Any:
    """The task, then shuttling, until ``end_step``; re-issue what a stop cut, hold while stopped.
    Returns the last command's status."""
    step, i = int(last.end_step), 0
    while step < end_step:
        left = end_step - step
        cmd = cmds[i] if i < len(cmds) else Command("move", SHUTTLE_STEPS, target=SHUTTLE[(i - len(cmds)) % 2])
        reply = robot.send(cmd)
        if not reply.accepted:
            if "protective stop" not in reply.message:
                raise AlphaMatrixError(f"{cmd.kind} refused by the robot: {reply.message}")
            arm.refused_while_stopped += 1
            last = robot.hold(min(hold_steps, left))
            arm.holds_while_stopped += 1
        else:
            last = robot.wait(reply.command_id)
            arm.commands.append((int(last.start_step), int(last.end_step), cmd.kind, State(last.state).name))
            if last.state == State.DONE and cmd.kind != "hold":
                arm.plan_done += i < len(cmds)
                i += 1  # a command cut by a stop is re-issued
        step = int(last.end_step)  # a command a stop cut ends at the stop's step
    return last


# -- scoring inputs ------------------------------------------------------------------------------
def truth_reaches(msgs: Iterable[Any], end_step: int) -> bool:
    """The ProximityTruth rows received cover every step up to ``end_step``."""
    return max((m.first_step + len(m.distance) - 1 for m in msgs), default=-1) >= end_step


def truth_arrays(msgs: Iterable[Any], end_step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per step 0..end_step: true distance, person in view, protective stop in effect."""
    n = end_step + 1
    gt, seen, stopped = np.full(n, np.inf), np.zeros(n, bool), np.zeros(n, bool)
    for m in msgs:
        a, b = m.first_step, min(m.first_step + len(m.distance), n)
        if a >= b:  # steps past the end (the last command's overrun): not scored
            continue
        gt[a:b] = np.asarray(m.distance)[: b - a]
        seen[a:b] = np.asarray(m.in_view, bool)[: b - a]
        stopped[a:b] = np.asarray(m.stopped, bool)[: b - a]
    gt[0] = gt[1]
    return gt, seen, stopped


def last_frame(sc: ProximityScenario) -> int:
    """The step of the run's last camera frame (frames come every allowed latency - L steps)."""
    every = sc.score.allowed_latency - sc.reaction_steps  # the frame period
    return sc.end_step - sc.end_step % every


def estimate_rows(msgs: Iterable[Any]) -> list[dict[str, Any]]:
    """The detector's ProximityEstimates as rows, by step (not arrival)."""
    return [
        {
            "step": int(e.step), "detected": bool(e.detected), "distance": float(e.distance),
            "confidence": float(e.confidence), "blob_count": int(e.blob_count), "action": e.action,
            "stop_requested": bool(e.stop_requested), "limit": float(e.limit),
        }
        for e in sorted(msgs, key=lambda e: int(e.step))
    ]  # fmt: skip


# -- the sorting task with the safe-pose transition (sorting.py) ---------------------------------
def sort_until(
    end_step: int,
    ctrl: SortingController,
    arm: ArmAccount,
    robot: ArmRobot,
    hold_steps: int,
    last: Any,
    view_of: Callable[[Any], ArmView],
    inputs: Callable[[int], tuple[list[Seen], list[tuple[int, str]]]],
) -> tuple[Any, list[Sample]]:
    """The sorting task until ``end_step``: at every command boundary the controller gets the
    detector's frames and the agent's calls up to that step (``inputs`` waits for them: they
    depend on the steps alone) and answers the next command. A command cut or refused by a
    protective stop is planned again; while stopped the arm holds ``hold_steps`` at a time.
    Returns the last status and the samples (every command that ran to its end)."""
    samples: list[Sample] = []
    step = int(last.end_step)
    while step < end_step:
        view = view_of(last)
        frames, calls = inputs(view.step)
        cmd = ctrl.next_command(view, frames, calls)
        reply = robot.send(cmd)
        if not reply.accepted:
            if "protective stop" not in reply.message:
                ctrl.refused(cmd, reply.message)  # unreachable: the controller skips it
                last = robot.hold(min(hold_steps, end_step - step))
                arm.commands.append((int(last.start_step), int(last.end_step), "hold", State(last.state).name))
            else:
                ctrl.cut()
                arm.refused_while_stopped += 1
                last = robot.hold(min(hold_steps, end_step - step))
                arm.holds_while_stopped += 1
                arm.commands.append((int(last.start_step), int(last.end_step), "hold", State(last.state).name))
        else:
            last = robot.wait(reply.command_id)
            arm.commands.append((int(last.start_step), int(last.end_step), cmd.kind, State(last.state).name))
            if last.state == State.CANCELLED:
                ctrl.cut()
        if last.state == State.DONE:
            v = view_of(last)
            samples.append(Sample(v.step, v.grasp, v.objects))
        step = int(last.end_step)
    arm.plan_commands = len(ctrl.cfg.blocks)
    arm.plan_done = len(ctrl.placed)
    return last, samples
