"""episode_runner: resets, asks the arm's planner, has the executive run the plan, records.

Runs a batch of episodes through the graph and exits 0 when done (the launcher then stops
the graph). Episodes already in the run directory are skipped, so an interrupted run resumes.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from alpha_matrix_interfaces.msg import (
    CommandStatus,
    EpisodeEnd,
    EpisodeResult,
    PlanExecution,
    PlannerReply,
    PlanRequest,
    SafetyEvent,
    SafetySummary,
)
from alpha_matrix_interfaces.srv import Disturb, FaultReport, GetPlan, GetPlanText, Observe, Reset, SetFault
from rclpy.duration import Duration
from rclpy.node import Node

from alpha_matrix.core.config import EpisodeRunnerParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.cells import (
    ARMS,
    TEXT_ARMS,
    TEXT_REPLIES,
    TEXT_SERVICES,
    Cell,
    default_run_id,
    episode_id,
    episode_seed,
    matrix_cells,
    parse_arms,
    parse_cell_fault,
    shard,
    validate_intensity,
)
from alpha_matrix.core.matrix.fault_log import checked_fault_order
from alpha_matrix.core.matrix.summary import summarize
from alpha_matrix.core.outcome import ZONE, evaluate_outcome
from alpha_matrix.core.planning.guards import parse_plan_text
from alpha_matrix.core.planning.plan import PlanError
from alpha_matrix.core.planning.provenance import reply_from_msg, reply_timing, reply_to_record
from alpha_matrix.core.records import (
    EpisodeRecord,
    FaultRecord,
    OutcomeRecord,
    PlannerRecord,
    Provenance,
    RunStore,
    SafetyEventRecord,
    SafetyRecord,
    Timing,
    provenance,
    record_sha256,
)
from alpha_matrix.ros.common import call_service, declare_params, handshake, run_node, spin_behind
from alpha_matrix.ros.convert import plan_msg_to_dict, point, poses_of
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.recorder_link import RecorderLink


@dataclass
class Planned:
    """What the arm's planner gave: the executive's request (None: no plan), and for the record."""

    request: PlanRequest | None = None
    data: dict | None = None  # the plan as data, if it parses
    text: str | None = None  # text arms: the text the executive receives (after any F4)
    planner: PlannerReply | None = None  # the planner's own publication: provenance, text before any fault
    error: str = ""


def planner_record(planned: Planned) -> PlannerRecord | None:
    """Text arms: the planner's provenance and its own text (before any F4), as it published them."""
    if planned.planner is None:
        return None
    return reply_to_record(reply_from_msg(planned.planner.text, planned.planner.provenance))


def planner_timing(planned: Planned) -> dict[str, float | None]:
    if planned.planner is None:
        return {}
    return reply_timing(reply_from_msg(planned.planner.text, planned.planner.provenance))


class EpisodeRunner(Node):
    def __init__(self, **kwargs) -> None:  # noqa: ANN003 - rclpy Node options (tests pass a context)
        super().__init__("episode_runner", **kwargs)
        self.params = declare_params(self, EpisodeRunnerParams)
        self.zone = ZONE
        self.reset_cli = self.create_client(Reset, "robot/reset")
        self.plan_cli = self.create_client(GetPlan, "planner/get_plan")
        self.text_clis = {arm: self.create_client(GetPlanText, srv) for arm, srv in TEXT_SERVICES.items()}
        self._replies: dict[str, PlannerReply] = {}
        for topic in TEXT_REPLIES.values():
            self.create_subscription(PlannerReply, topic, self._on_planner_reply, EVENTS)
        self.chaos_cli = self.create_client(SetFault, "chaos/set_fault")
        self.disturb_cli = self.create_client(Disturb, "sim/disturb")
        # The robot's own observation, never through the chaos node: what the outcome is judged on.
        self.observe_cli = self.create_client(Observe, "robot/observe")
        self.report_cli = self.create_client(FaultReport, "chaos/fault_report")
        self.exec_pub = self.create_publisher(PlanRequest, "executive/request", EVENTS)
        self._executions: dict[str, PlanExecution] = {}
        self.create_subscription(PlanExecution, "executive/result", self._on_execution, EVENTS)
        self.result_pub = self.create_publisher(EpisodeResult, "episode/result", EVENTS)
        self._status: dict[int, CommandStatus] = {}
        self._observed: dict[str, int] = {}
        self._cond = threading.Condition()
        self.create_subscription(CommandStatus, "robot/command_status", self._on_status, EVENTS)
        self.end_pub = self.create_publisher(EpisodeEnd, "episode/end", EVENTS)
        self._safety_events: dict[str, list[SafetyEvent]] = {}
        self._summaries: dict[str, SafetySummary] = {}
        self.create_subscription(SafetyEvent, "safety/events", self._on_safety_event, EVENTS)
        self.create_subscription(SafetySummary, "safety/summary", self._on_summary, EVENTS)
        self.recorder = RecorderLink(self, self.params.recorder, self.params.service_timeout_s)

    def _await(self, ready, what: str) -> None:  # noqa: ANN001 - a predicate; call holding self._cond
        """Wait (bounded) for a condition set by a subscription callback, or fail naming it."""
        timeout = self.params.service_timeout_s
        if not self._cond.wait_for(ready, timeout=timeout):
            raise AlphaMatrixError(f"{what} within {timeout:.0f} s")

    def _on_planner_reply(self, msg: PlannerReply) -> None:
        with self._cond:
            self._replies[msg.episode_id] = msg
            self._cond.notify_all()

    def _on_safety_event(self, msg: SafetyEvent) -> None:
        if msg.closed:
            with self._cond:
                self._safety_events.setdefault(msg.episode_id, []).append(msg)

    def _on_summary(self, msg: SafetySummary) -> None:
        with self._cond:
            self._summaries[msg.episode_id] = msg
            self._cond.notify_all()

    def safety_account(self, episode_id: str, last_step: int) -> SafetyRecord | None:
        """Tell consumers the episode ended; with a monitor, wait for its account of every step."""
        self.end_pub.publish(EpisodeEnd(episode_id=episode_id, last_step=last_step))
        if not self.params.safety_monitor:
            return None
        with self._cond:

            def complete() -> bool:  # the summary and every closed event it counts (separate topics)
                summary = self._summaries.get(episode_id)
                return summary is not None and len(self._safety_events.get(episode_id, [])) >= summary.events

            self._await(complete, f"no complete safety account for {episode_id}")
            summary = self._summaries.pop(episode_id)
            events = self._safety_events.pop(episode_id, [])
        return SafetyRecord(
            **{f: getattr(summary, f) for f in SafetyRecord.model_fields if f != "events"},
            events=[
                SafetyEventRecord.model_validate(e, from_attributes=True)
                for e in sorted(events, key=lambda e: (e.start_step, e.kind, e.key))
            ],
        )

    def _on_execution(self, msg: PlanExecution) -> None:
        with self._cond:
            self._executions[msg.episode_id] = msg
            self._cond.notify_all()

    def execute(self, request: PlanRequest) -> PlanExecution:
        self.exec_pub.publish(request)
        with self._cond:
            self._await(lambda: request.episode_id in self._executions, "no result from the executive")
            return self._executions.pop(request.episode_id)

    def _on_status(self, msg: CommandStatus) -> None:
        if msg.state in (CommandStatus.DONE, CommandStatus.CANCELLED):
            with self._cond:
                self._status[msg.command_id] = msg
                self._observed[msg.episode_id] = max(self._observed.get(msg.episode_id, 0), msg.end_step)
                self._cond.notify_all()

    def observed_through(self, episode_id: str, step: int) -> None:
        """Wait until the observation stream (possibly delayed by the chaos node) reached ``step``:
        every injection on it has then been made and can be reported."""
        with self._cond:
            self._await(
                lambda: self._observed.get(episode_id, 0) >= step, f"{episode_id}: no observation of step {step}"
            )
            self._observed.pop(episode_id, None)

    def call(self, client, request):  # noqa: ANN001, ANN201
        return call_service(client, request, self.params.service_timeout_s)

    def wait_for_graph(self, arms: list[str] | None = None) -> None:
        timeout = self.params.service_timeout_s
        arms = arms or ["oracle"]
        clients = [self.reset_cli]
        clients += [self.text_clis[arm] for arm in arms if arm in TEXT_ARMS]
        clients += [self.plan_cli] if set(arms) - TEXT_ARMS else []
        clients += [self.chaos_cli, self.report_cli] if self.params.chaos else []
        clients += [self.disturb_cli] if self.params.task_variant == "closed_loop" else []
        for cli in clients:
            if not cli.wait_for_service(timeout_sec=timeout):
                raise AlphaMatrixError(
                    f"service {cli.srv_name} not available after {timeout:.0f} s; is its node running?"
                )
        # One harmless exchange per planner and chaos client: the first reply is then not lost.
        probes = [(self.text_clis[arm], GetPlanText.Request()) for arm in arms if arm in TEXT_ARMS]
        probes += [(self.plan_cli, GetPlan.Request())] if set(arms) - TEXT_ARMS else []
        probes += [(self.report_cli, FaultReport.Request())] if self.params.chaos else []
        probes += [(self.observe_cli, Observe.Request())]
        for cli, probe in probes:
            handshake(cli, probe, timeout)
        deadline = time.monotonic() + timeout
        while self.exec_pub.get_subscription_count() == 0 or self.count_publishers("executive/result") == 0:
            if time.monotonic() > deadline:
                raise AlphaMatrixError(f"the executive is not connected after {timeout:.0f} s; is it running?")
            time.sleep(0.05)

    def wait_status(self, command_id: int) -> CommandStatus:
        with self._cond:
            self._await(lambda: command_id in self._status, f"robot command {command_id} did not finish")
            return self._status.pop(command_id)

    def configure_chaos(self, episode_id: str, index: int, cell: Cell) -> None:
        req = SetFault.Request(
            episode_id=episode_id,
            episode_index=index,
            master_seed=self.params.master_seed,
            fault=cell.fault,
            intensity=cell.intensity,
        )
        reply = self.call(self.chaos_cli, req)
        if not reply.accepted:
            raise AlphaMatrixError(f"chaos refused {cell.fault} at I={cell.intensity}: {reply.message}")

    def injections(self, episode_id: str) -> list[FaultRecord]:
        if not self.params.chaos:
            return []
        events = self.call(self.report_cli, FaultReport.Request(episode_id=episode_id)).events
        # The chaos node sends them in canonical order; checked (and sorted) here so a record can
        # never depend on arrival order.
        return checked_fault_order(
            FaultRecord(
                fault=e.fault,
                step=e.step,
                seq=e.seq,
                requested=json.loads(e.requested_json),
                delivered=json.loads(e.delivered_json),
            )
            for e in events
        )

    def plan(self, arm: str, request: GetPlan.Request) -> Planned:
        """The arm's plan for the executive, or why there is none."""
        if arm not in TEXT_ARMS:
            reply = self.call(self.plan_cli, request)
            if not reply.success:
                return Planned(error=reply.message)
            req = PlanRequest(episode_id=request.episode_id, plan=reply.plan, scene=request.scene)
            return Planned(req, plan_msg_to_dict(reply.plan))
        ask = GetPlanText.Request(
            episode_id=request.episode_id,
            task=request.task,
            object=request.object,
            scene=request.scene,
            zone=request.zone,
            seed=request.seed,
        )
        reply = call_service(self.text_clis[arm], ask, self.params.plan_timeout_s)
        if reply.unavailable:  # no model answered: stop the run rather than record a plan nobody wrote
            raise AlphaMatrixError(f"{arm} planner unavailable: {reply.message}")
        if not reply.success:
            return Planned(error=reply.message)
        try:
            data = parse_plan_text(reply.text).model_dump(mode="json")
        except PlanError:
            data = None  # the executive reports why; the record keeps the raw text
        req = PlanRequest(episode_id=request.episode_id, text_path=True, plan_text=reply.text, scene=request.scene)
        with self._cond:
            self._await(lambda: request.episode_id in self._replies, f"{arm} planner published no reply")
            published = self._replies.pop(request.episode_id)
        return Planned(req, data, reply.text, planner=published)

    def run_episode(
        self, index: int, run_id: str, prov: Provenance, arm: str = "oracle", cell: Cell | None = None
    ) -> EpisodeRecord:
        p = self.params
        cell = cell or Cell("none", 0.0, index)
        eid = episode_id(arm, index)
        seed = episode_seed(p.master_seed, index)
        started = datetime.now(UTC).isoformat(timespec="milliseconds")
        t0 = time.perf_counter()
        if p.chaos:
            self.configure_chaos(eid, index, cell)
        reply = self.call(self.reset_cli, Reset.Request(episode_id=eid, seed=seed, settle_steps=p.settle_steps))
        if not reply.accepted:
            raise AlphaMatrixError(f"reset refused: {reply.message}")
        closed_loop = p.task_variant == "closed_loop"
        if closed_loop:  # scheduled before the plan exists: the world cannot pass step 120 before then
            nudge = Disturb.Request(object=p.object, dx=p.disturb_dx, dy=p.disturb_dy, at_step=p.disturb_step)
            if not (r := self.call(self.disturb_cli, nudge)).accepted:
                raise AlphaMatrixError(f"disturbance refused: {r.message}")
        settled = self.wait_status(reply.command_id)
        scene = poses_of(settled.objects)
        initial = {name: pos for name, (pos, _q) in scene.items()}
        t1 = time.perf_counter()
        planned = self.plan(
            arm,
            GetPlan.Request(
                episode_id=eid,
                task=p.task,
                object=p.object,
                scene=settled.objects,
                zone=point(self.zone),
                seed=seed,
            ),
        )
        t2 = time.perf_counter()
        final_poses, final_step = scene, settled.end_step
        abort_kind, abort_reason, actions = "", "", 0
        if planned.request is None:
            abort_kind, abort_reason = "planner", planned.error
        else:
            planned.request.reobserve_before_grasp = closed_loop
            res = self.execute(planned.request)
            abort_kind, abort_reason, actions = res.abort_kind, res.abort_reason, res.actions_completed
            final_poses = poses_of(res.objects)
            final_step = max(res.final_step, settled.end_step)
        # Judge the outcome on the world as it is now (idle after the last command), not on an
        # observation that reached the runner through the chaos node (F1 delays those).
        final_poses = poses_of(self.call(self.observe_cli, Observe.Request()).objects)
        safety = self.safety_account(eid, int(final_step))
        self.observed_through(eid, int(final_step))
        faults = self.injections(eid)
        t3 = time.perf_counter()
        block = final_poses.get(p.object, ((float("nan"),) * 3, None))[0]
        outcome = evaluate_outcome(block, self.zone, int(final_step))
        reason = outcome.reason if not abort_kind else f"{abort_kind}: {abort_reason}"
        return EpisodeRecord(
            run_id=run_id,
            episode_id=eid,
            arm=arm,
            episode_index=index,
            master_seed=p.master_seed,
            seed=seed,
            task=p.task,
            object=p.object,
            zone=self.zone,
            initial_positions=initial,
            plan=planned.data,
            plan_text=planned.text,
            planner=planner_record(planned),
            abort_kind=abort_kind,
            abort_reason=abort_reason,
            actions_completed=actions,
            outcome=OutcomeRecord(
                success=outcome.success and not abort_kind,
                placement_error=outcome.placement_error,
                steps_used=outcome.steps_used,
                reason=reason if not outcome.success or abort_kind else "",
            ),
            final_poses={k: (v[0], v[1]) for k, v in final_poses.items()},
            safety=safety,
            cell=cell.record(),
            faults=faults,
            provenance=prov,
            timing=Timing(
                started_at=started,
                wall_s=t3 - t0,
                plan_s=t2 - t1,
                execute_s=t3 - t2,
                **planner_timing(planned),
            ),
        )

    def run_batch(self) -> None:
        p = self.params
        config_hash = p.config_hash or "standalone"
        arms = parse_arms(list(p.arms), set(ARMS))
        if p.matrix and not p.chaos:
            raise AlphaMatrixError("the fault matrix needs the chaos node (episode_runner.chaos: true)")
        run_id = p.run_id or default_run_id(arms, config_hash)
        self.wait_for_graph(arms)  # first: a graph that never came up leaves no run directory behind
        self.recorder.wait_ready()
        store = RunStore(Path(p.runs_dir) / run_id, config_hash)
        prov = provenance(config_hash)
        if p.fault != "none" and not p.chaos:
            raise AlphaMatrixError(f"fault {p.fault} needs the chaos node (episode_runner.chaos: true)")
        single = Cell(parse_cell_fault(p.fault), validate_intensity(p.intensity), 0)
        cells = (
            matrix_cells()
            if p.matrix
            else [Cell(single.fault, single.intensity, i) for i in range(p.first_episode + p.episodes)]
        )
        indices = range(len(cells)) if p.matrix else range(p.first_episode, p.first_episode + p.episodes)
        every = [(i, arm) for i in indices for arm in arms]  # arms adjacent: a pair runs back to back
        mine = set(shard(cells, p.shard_count, p.shard_index)) if p.shard_count > 1 else set(indices)
        every = [(i, arm) for i, arm in every if i in mine]
        todo = [(i, arm) for i, arm in every if episode_id(arm, i) not in store]
        log = self.get_logger()
        log.info(f"run {run_id}: {len(every)} episodes, {len(every) - len(todo)} already recorded, {len(todo)} to run")
        t_start = time.perf_counter()
        for n, (index, arm) in enumerate(todo, 1):
            rec = self.run_episode(index, run_id, prov, arm, cells[index])
            self.result_pub.publish(
                EpisodeResult(
                    run_id=run_id,
                    episode_id=rec.episode_id,
                    arm=rec.arm,
                    seed=rec.seed,
                    success=rec.outcome.success,
                    placement_error=rec.outcome.placement_error,
                    steps_used=rec.outcome.steps_used,
                    reason=rec.outcome.reason,
                    record_sha256=record_sha256(rec),
                )
            )
            self.recorder.committed(rec.episode_id)  # the bag holds the episode: now the record
            store.append(rec)
            elapsed = time.perf_counter() - t_start
            eta = elapsed / n * (len(todo) - n)
            verdict = "ok  " if rec.outcome.success else "FAIL"
            log.info(
                f"[{n}/{len(todo)}] {rec.episode_id} {verdict} error {rec.outcome.placement_error * 1000:7.2f} mm "
                f"{rec.timing.wall_s:.2f} s  eta {eta:.0f} s  [{cells[index].fault} {cells[index].intensity}]"
                + (f"  ({rec.outcome.reason})" if not rec.outcome.success else "")
            )
        # The process exits next: let every reader (the recorder) have the last messages first.
        for pub in (self.result_pub, self.end_pub, self.exec_pub):
            if not pub.wait_for_all_acked(Duration(seconds=5.0)):
                log.warning(f"{pub.topic_name}: not every subscriber acknowledged the last messages within 5 s")
        chosen = [store.records[episode_id(arm, i)] for i, arm in every]
        print(f"\nrun {run_id} -> {store.path}\n" + summarize(chosen), flush=True)


def main(args: list[str] | None = None) -> int:
    return run_node(EpisodeRunner, lambda node: spin_behind(node, node.run_batch), args)


if __name__ == "__main__":
    sys.exit(main())
