"""proximity_executive: the arm's work and the scoring harness of the proximity suite.

For each proximity run on suite/request: configure the run's person (``sim/set_human``, before
the reset), reset, plan the oracle pick-and-place from the settled observation, and keep the
arm working until the run's last step (core/suites/proximity/arm_work.py: the task, then
shuttling; a command cut by a stop re-issued, holds while stopped). Then it scores the run from
the detector's ``proximity/estimate`` and the sim-only ``sim/proximity_truth`` (the harness
may read ground truth; the detector never does) and answers on suite/result.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any

from alpha_matrix_interfaces.msg import AgentDecision, CommandStatus, ProximityEstimate, ProximityTruth, SuiteRequest
from alpha_matrix_interfaces.srv import SetHuman
from geometry_msgs.msg import PointStamped

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.outcome import evaluate_outcome
from alpha_matrix.core.planning.oracle import oracle_plan
from alpha_matrix.core.robot.commands import plan_to_commands
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.proximity.agent_score import agent_part, decision_steps
from alpha_matrix.core.suites.proximity.arm_work import (
    estimate_rows,
    last_frame,
    sort_until,
    truth_arrays,
    truth_reaches,
    work_until,
)
from alpha_matrix.core.suites.proximity.detector import DetectorConfig
from alpha_matrix.core.suites.proximity.params import ProximityExecutiveParams
from alpha_matrix.core.suites.proximity.policy import StopPolicy
from alpha_matrix.core.suites.proximity.run import (
    SUITE,
    ArmAccount,
    ProximityScenario,
    compose_result,
    parse_frame_tag,
    scenario_from_json,
)
from alpha_matrix.core.suites.proximity.sorting import ArmView, Seen, SortingConfig, SortingController
from alpha_matrix.core.suites.proximity.transition import sorting_verdicts
from alpha_matrix.ros.convert import poses_of
from alpha_matrix.ros.mailbox import ListBox
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.robot_client import RobotClient
from alpha_matrix.ros.services import call_service
from alpha_matrix.ros.stop import STOP
from alpha_matrix.ros.suite_executive import SuiteExecutive, main_for

ZONE = WorldConfig().zone


class ProximityExecutive(SuiteExecutive):
    suite = SUITE

    def __init__(self) -> None:
        super().__init__("proximity_executive")
        self.params = declare_params(self, ProximityExecutiveParams)
        self.robot = RobotClient(self, self.params.service_timeout_s, self.params.agent_wait_s)
        self.human_cli = self.create_client(SetHuman, "sim/set_human")
        self.truth: ListBox[str, ProximityTruth] = ListBox()
        self.estimates: ListBox[str, ProximityEstimate] = ListBox()
        self.create_subscription(
            ProximityTruth, "sim/proximity_truth", lambda m: self.truth.append(m.episode_id, m), EVENTS
        )
        self.create_subscription(
            ProximityEstimate, "proximity/estimate", lambda m: self.estimates.append(m.episode_id, m), EVENTS
        )
        self.nearest: ListBox[str, PointStamped] = ListBox()  # sorting runs: the detector's nearest point
        self.create_subscription(
            PointStamped,
            "proximity/nearest",
            lambda m: self.nearest.append(parse_frame_tag(m.header.frame_id)[0], m),
            EVENTS,
        )
        self.decisions: ListBox[str, AgentDecision] = ListBox()
        if self.params.agent:  # the agent under test decides; its decisions are scored here
            self.create_subscription(
                AgentDecision, "agent/decisions", lambda m: self.decisions.append(m.episode_id, m), EVENTS
            )

    def forget(self, episode_id: str) -> None:  # nothing of this episode is needed any more
        self.nearest.pop(episode_id)
        self.truth.pop(episode_id)
        self.estimates.pop(episode_id)
        self.decisions.pop(episode_id)

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
        if sc.task is not None:  # a sorting run: the task with the safe-pose transition
            return self._sorting(req, sc, last)
        cmds = plan_to_commands(oracle_plan(p.object, _pose(last, p.object), ZONE))
        arm = ArmAccount(plan_commands=len(cmds))
        last = work_until(sc.end_step, cmds, arm, self.robot, p.hold_steps, last)
        last_step = int(last.end_step)
        placed = evaluate_outcome(_pose(last, p.object), ZONE, last_step, last_step).success
        truth = self._wait(self.truth, req.episode_id, lambda m: truth_reaches(m, sc.end_step),
                           f"sim/proximity_truth up to step {sc.end_step}")  # fmt: skip
        frame = last_frame(sc)
        estimates = self._wait(self.estimates, req.episode_id, lambda m: any(e.step >= frame for e in m),
                               f"proximity/estimate of step {frame}")  # fmt: skip
        gt, in_view, stopped = truth_arrays(truth, sc.end_step)
        result = compose_result(sc, gt, in_view, stopped, estimate_rows(estimates), arm, placed)
        result = {**result, "last_step": last_step, "guards": p.guards}
        if p.agent:
            steps = [s for s in decision_steps((int(e.step) for e in estimates), p.decision_every_frames) if s <= frame]
            last = max(steps, default=-1)
            decisions = self._wait(self.decisions, req.episode_id, lambda m: any(int(d.step) >= last for d in m),
                                   f"agent/decisions up to the frame of step {last}") if steps else []  # fmt: skip
            result["agent"] = agent_part(decisions, gt, stopped, sc, p.agent, p.guards, p.decision_every_frames)
        return result

    def _sorting(self, req: SuiteRequest, sc: ProximityScenario, last: CommandStatus) -> dict[str, Any]:
        """The sorting task (core/suites/proximity/sorting.py), then the run's score and the transition's verdicts."""
        p, ep = self.params, req.episode_id
        assert sc.task is not None
        cfg = SortingConfig.from_json(sc.task["config"])
        ctrl = SortingController(cfg, StopPolicy(sc.policy).limit()[0], sc.score.timestep, agent=bool(p.agent))
        every = sc.score.allowed_latency - sc.reaction_steps  # the frame period
        first = every * (DetectorConfig().reference_frames + 1)  # the first frame with an estimate
        fed = {"frame": 0, "call": -1}

        def inputs(step: int) -> tuple[list[Seen], list[tuple[int, str]]]:
            f = step - step % every
            if f < first:
                return [], []
            ests = self._wait(
                self.estimates, ep, lambda m: any(int(e.step) >= f for e in m), f"proximity/estimate of step {f}"
            )
            near = self._wait(
                self.nearest, ep, lambda m: any(tag_step(n) >= f for n in m), f"proximity/nearest of step {f}"
            )
            points = {tag_step(n): n.point for n in near}
            frames = [
                Seen(int(e.step), float(e.distance) if e.detected else math.inf,
                     (float(points[int(e.step)].x), float(points[int(e.step)].y))
                     if e.detected and int(e.step) in points and math.isfinite(points[int(e.step)].x) else None)
                for e in sorted(ests, key=lambda e: int(e.step)) if fed["frame"] < int(e.step) <= step
            ]  # fmt: skip
            fed["frame"] = max([fed["frame"], *(x.step for x in frames)])
            calls: list[tuple[int, str]] = []
            if p.agent:
                steps = [s for s in decision_steps((int(e.step) for e in ests), p.decision_every_frames) if s <= step]
                if steps:
                    k = steps[-1]
                    got = self._wait(
                        self.decisions, ep, lambda m: any(int(d.step) >= k for d in m), f"agent/decisions of step {k}"
                    )
                    calls = [(int(d.step), str(d.tool)) for d in sorted(got, key=lambda d: int(d.decision_index))
                             if d.kind == "tool_call" and fed["call"] < int(d.step) <= step]  # fmt: skip
                    fed["call"] = max([fed["call"], *(c[0] for c in calls)])
            return frames, calls

        arm = ArmAccount(plan_commands=len(cfg.blocks))
        last, samples = sort_until(sc.end_step, ctrl, arm, self.robot, p.hold_steps, last, _view, inputs)
        last_step = int(last.end_step)
        truth = self._wait(
            self.truth, ep, lambda m: truth_reaches(m, sc.end_step), f"sim/proximity_truth up to step {sc.end_step}"
        )
        frame = last_frame(sc)
        estimates = self._wait(
            self.estimates, ep, lambda m: any(e.step >= frame for e in m), f"proximity/estimate of step {frame}"
        )
        gt, in_view, stopped = truth_arrays(truth, sc.end_step)
        task = ctrl.task_part()
        verdicts = sorting_verdicts(sc, task, samples, gt, stopped, cfg)
        result = compose_result(sc, gt, in_view, stopped, estimate_rows(estimates), arm, verdicts["task_complete"])
        result = {**result, "last_step": last_step, "guards": p.guards, "sorting": {**verdicts, "events": task}}
        if p.agent:
            steps = [s for s in decision_steps((int(e.step) for e in estimates), p.decision_every_frames) if s <= frame]
            k = max(steps, default=-1)
            decisions = self._wait(self.decisions, ep, lambda m: any(int(d.step) >= k for d in m),
                                   f"agent/decisions up to the frame of step {k}") if steps else []  # fmt: skip
            result["agent"] = agent_part(decisions, gt, stopped, sc, p.agent, p.guards, p.decision_every_frames)
        return result

    def _wait(
        self, box: ListBox, episode: str, ready: Callable[[list], bool], what: str, timeout: float | None = None
    ) -> list:
        """The episode's messages once ``ready``; the last decision may still be a model's thought
        away (with an agent, the wait runs from its last decision: ros/agent_progress.py)."""
        timeout, start = timeout or self.params.result_timeout_s, time.monotonic()
        progress = self.robot.progress
        while (msgs := box.wait_until(ready, episode, 1.0)) is None:
            end = progress.deadline(start, timeout) if progress else start + timeout
            if time.monotonic() >= end or STOP.signal is not None:
                raise AlphaMatrixError(f"{what} did not arrive within {time.monotonic() - start:.0f} s")
        return msgs


def _view(status: CommandStatus) -> ArmView:
    g = status.grasp_position
    return ArmView(int(status.end_step), (float(g.x), float(g.y), float(g.z)),
                   {n: pq[0] for n, pq in poses_of(status.objects).items()})  # fmt: skip


def tag_step(msg: PointStamped) -> int:
    return parse_frame_tag(msg.header.frame_id)[1]


def _pose(status: CommandStatus, obj: str) -> tuple[float, float, float]:
    poses = poses_of(status.objects)
    if obj not in poses:
        raise AlphaMatrixError(f"no object {obj!r} in the observation")
    return poses[obj][0]


def main(args: list[str] | None = None) -> int:
    return main_for(ProximityExecutive, args)


if __name__ == "__main__":
    raise SystemExit(main())
