"""core/suites/proximity/arm_work.py: the proximity executive's work loop and scoring inputs."""

from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np
import pytest

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.commands import Command
from alpha_matrix.core.robot.driver import State
from alpha_matrix.core.suites.proximity.arm_work import (
    SHUTTLE_STEPS,
    estimate_rows,
    last_frame,
    truth_arrays,
    truth_reaches,
    work_until,
)
from alpha_matrix.core.suites.proximity.eval import SHUTTLE
from alpha_matrix.core.suites.proximity.run import ArmAccount


class FakeRobot:
    """Runs commands back to back; stopped over [stop_from, stop_to): cuts the running command and
    refuses new ones (holds still run)."""

    def __init__(self, step: int, stop: tuple[int, int] = (10**9, 10**9)) -> None:
        self.step, self.stop, self.sent, self._queued = step, stop, [], {}

    def _stopped(self, at: int) -> bool:
        return self.stop[0] <= at < self.stop[1]

    def send(self, cmd: Command) -> NS:
        self.sent.append(cmd)
        if self._stopped(self.step + 1):
            return NS(accepted=False, message="refused: protective stop in effect", command_id=0)
        cid = len(self.sent)
        self._queued[cid] = cmd
        return NS(accepted=True, message="", command_id=cid)

    def wait(self, command_id: int) -> NS:
        cmd, start = self._queued.pop(command_id), self.step + 1
        end = start + cmd.steps - 1
        if start <= self.stop[0] <= end:  # cut: the stop's step runs (stopped), the command ends at it
            self.step = self.stop[0]
            return NS(state=State.CANCELLED, start_step=start, end_step=self.step)
        self.step = end
        return NS(state=State.DONE, start_step=start, end_step=end)

    def hold(self, steps: int) -> NS:
        start, self.step = self.step + 1, self.step + steps
        return NS(state=State.DONE, start_step=start, end_step=self.step)


def test_the_task_then_shuttling_until_the_end_step() -> None:
    cmds = [Command("move", 100, target=(0.5, 0.0, 0.8)), Command("gripper", 50, width=0.0, force=20.0)]
    robot, arm = FakeRobot(120), ArmAccount(plan_commands=2)
    last = work_until(600, cmds, arm, robot, 24, NS(state=State.DONE, end_step=120))
    assert [c.kind for c in robot.sent] == ["move", "gripper", "move", "move"]
    assert [c.target for c in robot.sent[2:]] == [SHUTTLE[0], SHUTTLE[1]] and robot.sent[2].steps == SHUTTLE_STEPS
    assert arm.plan_done == 2 and arm.commands[0] == (121, 220, "move", "DONE")
    assert last.end_step == 750


def test_a_cut_command_is_reissued_and_the_arm_holds_while_stopped() -> None:
    cmds = [Command("move", 100, target=(0.5, 0.0, 0.8))]
    robot, arm = FakeRobot(0, stop=(50, 100)), ArmAccount(plan_commands=1)
    work_until(200, cmds, arm, robot, 24, NS(state=State.DONE, end_step=0))
    assert arm.commands[0] == (1, 50, "move", "CANCELLED")
    assert arm.refused_while_stopped == arm.holds_while_stopped == 3  # 51..74, 75..98, 99..122
    assert arm.commands[1][2:] == ("move", "DONE") and arm.plan_done == 1


def test_a_refusal_other_than_a_stop_ends_the_run() -> None:
    robot = FakeRobot(0)
    robot.send = lambda cmd: NS(accepted=False, message="IK failed", command_id=0)  # type: ignore[method-assign]
    with pytest.raises(AlphaMatrixError, match="move refused by the robot: IK failed"):
        work_until(100, [Command("move", 10, target=(0, 0, 0))], ArmAccount(), robot, 24, NS(end_step=0))


def test_truth_rows_become_per_step_arrays_cut_at_the_end_step() -> None:
    msgs = [
        NS(first_step=1, distance=[3.0, 2.5], in_view=[True, True], stopped=[False, False]),
        NS(first_step=3, distance=[2.0, 1.5, 1.0], in_view=[True, False, False], stopped=[False, True, True]),
    ]
    assert truth_reaches(msgs, 5) and not truth_reaches(msgs, 6) and not truth_reaches([], 0)
    gt, seen, stopped = truth_arrays(msgs, 4)
    assert gt.tolist() == [3.0, 3.0, 2.5, 2.0, 1.5]  # step 0 copies step 1
    assert seen.tolist() == [False, True, True, True, False] and stopped.tolist() == [False] * 4 + [True]
    assert np.isinf(truth_arrays([], 2)[0]).all()


def test_estimates_are_rows_by_step_and_the_last_frame_is_on_the_frame_grid() -> None:
    def est(step: int) -> NS:
        return NS(step=step, detected=True, distance=1.5, confidence=0.9, blob_count=1, action="none",
                  stop_requested=False, limit=1.0)  # fmt: skip

    rows = estimate_rows([est(48), est(24)])
    assert [r["step"] for r in rows] == [24, 48] and set(rows[0]) >= {"distance", "limit", "action"}
    sc = NS(end_step=1000, reaction_steps=24, score=NS(allowed_latency=48))
    assert last_frame(sc) == 984
