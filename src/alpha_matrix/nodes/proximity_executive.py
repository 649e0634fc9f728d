"""proximity_executive: the arm's work and the scoring harness of the proximity suite.

For each proximity run on suite/request: configure the run's person (``sim/set_human``, before
the reset), reset, plan the oracle pick-and-place from the settled observation, and keep the
arm working until the run's last step (the task, then shuttling between two poses, as in the
bare run core/suites/proximity/eval.py), command by command. A command cut by a protective stop is
re-issued; while stopped (commands refused) it holds ``hold_steps`` at a time, so sim time
passes and the person keeps walking. Work goes on until the run's end step (the last command
may run past it, as in the bare run; only steps up to the end step are scored). Then it scores the run from the detector's ``proximity/estimate`` and the
sim-only ``sim/proximity_truth`` (the harness may read ground truth; the detector never does)
and answers on suite/result.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import numpy as np
from alpha_matrix_interfaces.msg import CommandStatus, ProximityEstimate, ProximityTruth, SuiteRequest
from alpha_matrix_interfaces.srv import SetHuman

from alpha_matrix.core.config import ProximityExecutiveParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.outcome import evaluate_outcome
from alpha_matrix.core.planning.oracle import oracle_plan
from alpha_matrix.core.robot.commands import Command, plan_to_commands
from alpha_matrix.core.sim.world import WorldConfig
from alpha_matrix.core.suites.proximity.eval import SHUTTLE
from alpha_matrix.core.suites.proximity.run import (
    SUITE,
    ArmAccount,
    ProximityScenario,
    compose_result,
    scenario_from_json,
)
from alpha_matrix.ros.convert import poses_of
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.robot_client import RobotClient
from alpha_matrix.ros.services import call_service
from alpha_matrix.ros.suite_executive import SuiteExecutive, main_for

ZONE = WorldConfig().zone
STATE = {CommandStatus.DONE: "DONE", CommandStatus.CANCELLED: "CANCELLED"}


class ProximityExecutive(SuiteExecutive):
    suite = SUITE

    def __init__(self) -> None:
        super().__init__("proximity_executive")
        self.params = declare_params(self, ProximityExecutiveParams)
        self.robot = RobotClient(self, self.params.service_timeout_s)
        self.human_cli = self.create_client(SetHuman, "sim/set_human")
        self.cond = threading.Condition()
        self.truth: dict[str, list[ProximityTruth]] = {}
        self.estimates: dict[str, list[ProximityEstimate]] = {}
        self.create_subscription(ProximityTruth, "sim/proximity_truth", self._on_truth, EVENTS)
        self.create_subscription(ProximityEstimate, "proximity/estimate", self._on_estimate, EVENTS)

    def _on_truth(self, msg: ProximityTruth) -> None:
        with self.cond:
            self.truth.setdefault(msg.episode_id, []).append(msg)
            self.cond.notify_all()

    def _on_estimate(self, msg: ProximityEstimate) -> None:
        with self.cond:
            self.estimates.setdefault(msg.episode_id, []).append(msg)
            self.cond.notify_all()

    def forget(self, episode_id: str) -> None:
        with self.cond:  # nothing of this episode is needed any more
            self.truth.pop(episode_id, None)
            self.estimates.pop(episode_id, None)

    def run_request(self, req: SuiteRequest) -> dict[str, Any]:
        sc = scenario_from_json(req.scenario_json)
        p = self.params
        if sc.reaction_steps != p.reaction_latency_steps:
            raise AlphaMatrixError(
                f"the scenario's reaction_steps {sc.reaction_steps} differ from the robot's L {p.reaction_latency_steps}"
            )
        human = SetHuman.Request(
            episode_id=req.episode_id, name=sc.name, seed=sc.seed, start_step=sc.settle_steps,
            lighting=sc.lighting, path_json=json.dumps(sc.path, sort_keys=True),
        )  # fmt: skip
        reply = call_service(self.human_cli, human, p.service_timeout_s)
        if not reply.accepted:
            raise AlphaMatrixError(f"sim/set_human refused: {reply.message}")
        last = self.robot.reset(req.episode_id, sc.seed, sc.settle_steps)
        cmds = plan_to_commands(oracle_plan(p.object, _pose(last, p.object), ZONE))
        arm = ArmAccount(plan_commands=len(cmds))
        last = self._work(sc, cmds, arm, last)
        last_step = int(last.end_step) + (last.state == CommandStatus.CANCELLED)
        placed = evaluate_outcome(_pose(last, p.object), ZONE, last_step, last_step).success
        gt, in_view, stopped = self._truth(req.episode_id, sc)
        estimates = self._estimates(req.episode_id, sc)
        return {**compose_result(sc, gt, in_view, stopped, estimates, arm, placed), "last_step": last_step}

    def _work(self, sc: ProximityScenario, cmds: list[Command], arm: ArmAccount, last: CommandStatus) -> CommandStatus:
        """The task, then shuttling, until the end step; re-issue what a stop cut, hold while stopped."""
        step, i = int(last.end_step), 0
        while step < sc.end_step:
            left = sc.end_step - step
            cmd = cmds[i] if i < len(cmds) else Command("move", 240, target=SHUTTLE[(i - len(cmds)) % 2])
            reply = self.robot.send(cmd)
            if not reply.accepted:
                if "protective stop" not in reply.message:
                    raise AlphaMatrixError(f"{cmd.kind} refused by the robot: {reply.message}")
                arm.refused_while_stopped += 1
                last = self.robot.hold(min(self.params.hold_steps, left))
                arm.holds_while_stopped += 1
            else:
                last = self.robot.wait(reply.command_id)
                arm.commands.append((int(last.start_step), int(last.end_step), cmd.kind, STATE[last.state]))
                if last.state == CommandStatus.DONE and cmd.kind != "hold":
                    arm.plan_done += i < len(cmds)
                    i += 1  # a command cut by a stop is re-issued
            step = int(last.end_step) + (last.state == CommandStatus.CANCELLED)
        return last

    def _wait(self, what: str, cond) -> None:  # noqa: ANN001
        with self.cond:
            if not self.cond.wait_for(cond, timeout=self.params.result_timeout_s):
                raise AlphaMatrixError(f"{what} did not arrive within {self.params.result_timeout_s:.0f} s")

    def _truth(self, episode: str, sc: ProximityScenario) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        def have() -> bool:
            msgs = self.truth.get(episode, [])
            return max((m.first_step + len(m.distance) - 1 for m in msgs), default=-1) >= sc.end_step

        self._wait(f"sim/proximity_truth up to step {sc.end_step}", have)
        n = sc.end_step + 1
        gt, seen, stopped = np.full(n, np.inf), np.zeros(n, bool), np.zeros(n, bool)
        with self.cond:
            for m in self.truth[episode]:
                a, b = m.first_step, min(m.first_step + len(m.distance), n)
                if a >= b:  # steps past the end (the last command's overrun): not scored
                    continue
                gt[a:b] = np.asarray(m.distance)[: b - a]
                seen[a:b] = np.asarray(m.in_view, bool)[: b - a]
                stopped[a:b] = np.asarray(m.stopped, bool)[: b - a]
        gt[0] = gt[1]
        return gt, seen, stopped

    def _estimates(self, episode: str, sc: ProximityScenario) -> list[dict[str, Any]]:
        every = sc.score.allowed_latency - sc.reaction_steps  # the frame period
        last_frame = sc.end_step - sc.end_step % every
        self._wait(
            f"proximity/estimate of step {last_frame}",
            lambda: any(e.step >= last_frame for e in self.estimates.get(episode, [])),
        )
        with self.cond:
            return [
                {
                    "step": int(e.step), "detected": bool(e.detected), "distance": float(e.distance),
                    "confidence": float(e.confidence), "blob_count": int(e.blob_count), "action": e.action,
                    "stop_requested": bool(e.stop_requested), "limit": float(e.limit),
                }
                for e in sorted(self.estimates[episode], key=lambda e: int(e.step))  # by step, not arrival
            ]  # fmt: skip


def _pose(status: CommandStatus, obj: str) -> tuple[float, float, float]:
    poses = poses_of(status.objects)
    if obj not in poses:
        raise AlphaMatrixError(f"no object {obj!r} in the observation")
    return poses[obj][0]


def main(args: list[str] | None = None) -> int:
    return main_for(ProximityExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
