"""episode_runner: resets, asks the arm's planner, has the executive run the plan, records.

Runs a batch of episodes through the graph and exits 0 when done (the launcher then stops
the graph). Episodes already in the run directory are skipped, so an interrupted run resumes.
What the batch runs and what a record says are core/matrix/episode.py's; the robot, planners,
executive, chaos node, safety monitor and recorder are reached through their links in ros/.
"""

from __future__ import annotations

import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from alpha_matrix_interfaces.msg import EpisodeResult
from alpha_matrix_interfaces.srv import Disturb, GetPlan, Observe
from rclpy.duration import Duration
from rclpy.node import Node

from alpha_matrix.core.matrix import episode as batch
from alpha_matrix.core.matrix.cells import Cell, episode_id, episode_seed
from alpha_matrix.core.matrix.params import EpisodeRunnerParams
from alpha_matrix.core.matrix.summary import summarize
from alpha_matrix.core.outcome import ZONE
from alpha_matrix.core.records import EpisodeRecord, Provenance, RunStore, provenance
from alpha_matrix.ros.chaos_link import ChaosLink
from alpha_matrix.ros.convert import episode_result, point, poses_of
from alpha_matrix.ros.episode_robot import EpisodeRobot
from alpha_matrix.ros.executive_link import ExecutiveLink
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.live_link import LiveLink
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.planner_link import PlannerLink
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.recorder_link import RecorderLink
from alpha_matrix.ros.safety_link import SafetyLink
from alpha_matrix.ros.services import handshake, wait_for_services
from alpha_matrix.ros.spin import spin_behind
from alpha_matrix.ros.stop import progress_info


class EpisodeRunner(Node):
    def __init__(self, **kwargs) -> None:  # noqa: ANN003 - rclpy Node options (tests pass a context)
        super().__init__("episode_runner", **kwargs)
        p = self.params = declare_params(self, EpisodeRunnerParams)
        self.zone, self.timeout = ZONE, p.service_timeout_s
        self.robot = EpisodeRobot(self, p.service_timeout_s)
        self.planners = PlannerLink(self, p.service_timeout_s, p.plan_timeout_s)
        self.executive = ExecutiveLink(self, p.service_timeout_s)
        self.chaos = ChaosLink(self, p.chaos, p.service_timeout_s)
        self.safety = SafetyLink(self, p.safety_monitor, p.service_timeout_s)
        self.recorder = RecorderLink(self, p.recorder, p.service_timeout_s)
        self.live = LiveLink(self, p.live_wait_s, p.live_wait_for)
        self.result_pub = self.create_publisher(EpisodeResult, "episode/result", EVENTS)

    def wait_for_graph(self, arms: list[str] | None = None) -> None:
        arms = arms or ["oracle"]
        nudge = [self.robot.disturb_cli] if self.params.task_variant == "closed_loop" else []
        clients = [self.robot.reset_cli, *self.planners.clients(arms), *self.chaos.clients(), *nudge]
        wait_for_services(clients, self.timeout)
        # One harmless exchange per planner and chaos client: the first reply is then not lost.
        for cli, probe in [
            *self.planners.probes(arms),
            *self.chaos.probes(),
            (self.robot.observe_cli, Observe.Request()),
        ]:
            self.planners.check_probe(probe, handshake(cli, probe, self.timeout))
        self.executive.wait_connected()

    def run_episode(
        self, index: int, run_id: str, prov: Provenance, arm: str = "oracle", cell: Cell | None = None
    ) -> EpisodeRecord:
        p = self.params
        cell = cell or Cell("none", 0.0, index)
        eid, seed = episode_id(arm, index), episode_seed(p.master_seed, index)
        started, t0 = datetime.now(UTC).isoformat(timespec="milliseconds"), time.perf_counter()
        self.chaos.configure(eid, index, p.master_seed, cell)
        closed_loop = p.task_variant == "closed_loop"
        nudge = Disturb.Request(object=p.object, dx=p.disturb_dx, dy=p.disturb_dy, at_step=p.disturb_step)
        settled = self.robot.reset(eid, seed, p.settle_steps, nudge if closed_loop else None)
        scene = poses_of(settled.objects)
        t1 = time.perf_counter()
        ask = GetPlan.Request(
            episode_id=eid, task=p.task, object=p.object, scene=settled.objects, zone=point(self.zone), seed=seed
        )
        planned = self.planners.plan(arm, ask)
        t2 = time.perf_counter()
        initial = {name: pos for name, (pos, _q) in scene.items()}
        trace = batch.EpisodeTrace(index, arm, cell, seed, started, initial, planned, scene, settled.end_step)
        if planned.request is None:
            trace.abort_kind, trace.abort_reason = "planner", planned.error
        else:
            planned.request.reobserve_before_grasp = closed_loop
            res = self.executive.execute(planned.request)
            trace.abort_kind, trace.abort_reason, trace.actions = (
                res.abort_kind,
                res.abort_reason,
                res.actions_completed,
            )
            trace.final_step = max(res.final_step, settled.end_step)
        # Judge the outcome on the world as it is now (idle after the last command), not on an
        # observation that reached the runner through the chaos node (F1 delays those).
        trace.final_poses = poses_of(self.robot.observe().objects)
        trace.safety = self.safety.account(eid, int(trace.final_step))
        self.robot.observed_through(eid, int(trace.final_step))
        trace.faults = self.chaos.injections(eid)
        trace.clock = (t0, t1, t2, time.perf_counter())
        return batch.episode_record(p, run_id, prov, self.zone, trace)

    def run_batch(self) -> None:
        p, log = self.params, self.get_logger()
        arms, run_id = batch.batch_arms(p)
        self.wait_for_graph(arms)  # first: a graph that never came up leaves no run directory behind
        self.recorder.wait_ready()
        self.live.wait_viewer()
        store = RunStore(Path(p.runs_dir) / run_id, batch.config_hash(p))
        prov = provenance(batch.config_hash(p), p.driver)
        cells, every = batch.batch_cells(p, arms)
        todo = batch.still_to_run(every, store)
        log.info(f"run {run_id}: {len(every)} episodes, {len(every) - len(todo)} already recorded, {len(todo)} to run")
        t_start = time.perf_counter()
        for n, (index, arm) in enumerate(todo, 1):
            rec = self.run_episode(index, run_id, prov, arm, cells[index])
            self.result_pub.publish(episode_result(run_id, rec))
            self.recorder.committed(rec.episode_id)  # the bag holds the episode: now the record
            store.append(rec)
            progress_info(self, batch.progress_line(n, len(todo), rec, cells[index], time.perf_counter() - t_start))
        # The process exits next: let every reader (the recorder) have the last messages first.
        for pub in (self.result_pub, self.safety.end_pub, self.executive.pub):
            if not pub.wait_for_all_acked(Duration(seconds=5.0)):
                log.warning(f"{pub.topic_name}: not every subscriber acknowledged the last messages within 5 s")
        chosen = [store.records[episode_id(arm, i)] for i, arm in every]
        print(f"\nrun {run_id} -> {store.path}\n" + summarize(chosen), flush=True)


def main(args: list[str] | None = None) -> int:
    return run_node(EpisodeRunner, lambda node: spin_behind(node, node.run_batch), args)


if __name__ == "__main__":
    sys.exit(main())
