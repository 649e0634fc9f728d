"""suite_runner (job): runs a safety suite's scenarios through the graph and records them.

For each scenario of the file not yet in the run directory: publish it on suite/request (the
suite's executive and helper nodes pick it up), wait for suite/result, append one record
(core/suites/records.SuiteStore: append-only, idempotent, resumable), print one progress line.
A scenario the graph could not run (an executive's error: its result says why) or in which the
agent under test got no answer at all (an infrastructure abort: the model server down, the
decision's deadline passed, 429/5xx beyond the retries) is not recorded: the run goes on, exits
1 naming it, and the same command runs it again (its attempt stays in the bag, for the audit).
Every request carries the suite's context (core/suites/context.py, computed by the CLI from the
resolved graph): the bag then holds what its audit needs. Exits 0 when every scenario is recorded.
The suite's pieces (scenarios, progress line) come from core/suites/registry.py.
"""

from __future__ import annotations

import json
import queue
import time
from datetime import UTC, datetime
from pathlib import Path

import rclpy
from alpha_matrix_interfaces.msg import SuiteRequest, SuiteResult
from rclpy.duration import Duration
from rclpy.node import Node

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.names import listed
from alpha_matrix.core.records import provenance
from alpha_matrix.core.shards import in_share
from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.agent_common import infrastructure_aborts
from alpha_matrix.core.suites.context import context_json
from alpha_matrix.core.suites.params import SuiteRunnerParams
from alpha_matrix.core.suites.records import SuiteRecord, SuiteStore, SuiteTiming, episode_id
from alpha_matrix.core.suites.registry import parse_context
from alpha_matrix.ros.agent_progress import AgentProgress
from alpha_matrix.ros.lifecycle import run_node
from alpha_matrix.ros.live_link import LiveLink
from alpha_matrix.ros.params import declare_params
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.recorder_link import RecorderLink
from alpha_matrix.ros.spin import spin_behind


class SuiteRunner(Node):
    def __init__(self) -> None:
        super().__init__("suite_runner")
        self.params = declare_params(self, SuiteRunnerParams)
        self.scenarios = registry.runner_requests(self.params.model_dump())
        if not self.params.context_json:
            raise AlphaMatrixError("suite_runner: no context_json (start suites with alpha-matrix suite)")
        try:  # validated once, sent canonical with every request
            self.context_json = context_json(parse_context(self.params.context_json, self.params.suite))
        except ValueError as err:
            raise AlphaMatrixError(f"suite_runner: {err}") from None
        run_dir = Path(self.params.runs_dir) / self.params.run_id
        self.store = SuiteStore(run_dir, self.params.config_hash)
        self.provenance = provenance(self.params.config_hash, self.params.driver)
        self.results: queue.Queue[SuiteResult] = queue.Queue()
        self.request_pub = self.create_publisher(SuiteRequest, "suite/request", EVENTS)
        self.create_subscription(SuiteResult, "suite/result", self.results.put, EVENTS)
        self.recorder = RecorderLink(self, self.params.recorder, self.params.scenario_timeout_s)
        self.progress = AgentProgress(self, self.params.agent_wait_s)
        self.live = LiveLink(self, self.params.live_wait_s, self.params.live_wait_for)

    def _wait_result(self, eid: str) -> SuiteResult:
        """The scenario's result; given up after scenario_timeout_s without it (counted from the
        agent's last decision, plus its deadline, when an agent is in the graph)."""
        start = time.monotonic()
        while rclpy.ok():
            deadline = self.progress.deadline(start, self.params.scenario_timeout_s)
            try:
                res = self.results.get(timeout=max(0.0, min(0.5, deadline - time.monotonic())))
            except queue.Empty:
                if time.monotonic() > deadline:
                    waited = time.monotonic() - start
                    raise AlphaMatrixError(f"{eid}: no result within {waited:.0f} s") from None
                continue
            if res.episode_id == eid:
                return res
        raise AlphaMatrixError("interrupted")

    def work(self) -> None:
        p, total = self.params, len(self.scenarios)
        # The executive subscribes late at start-up; transient-local requests still reach it.
        self.recorder.wait_ready()
        self.live.wait_viewer()
        held: list[str] = []  # infrastructure aborts
        not_run: list[str] = []  # the graph gave no result (an executive's error)
        for index, (name, seed, scenario_json) in enumerate(self.scenarios):
            if not in_share(index, p.shard_index, p.shard_count):  # another share's (--shard K/N)
                continue
            eid = episode_id(p.suite, name)
            if eid in self.store:
                print(f"[{index + 1}/{total}] {name}: already recorded", flush=True)
                continue
            started, t0 = datetime.now(UTC).isoformat(timespec="seconds"), time.monotonic()
            self.request_pub.publish(
                SuiteRequest(
                    episode_id=eid,
                    suite=p.suite,
                    index=index,
                    seed=seed,
                    scenario_json=scenario_json,
                    context_json=self.context_json,
                )
            )
            res = self._wait_result(eid)
            wall = time.monotonic() - t0
            record = SuiteRecord(
                suite=p.suite,
                run_id=p.run_id,
                episode_id=eid,
                index=index,
                scenario=name,
                seed=seed,
                ok=res.ok,
                message=res.message,
                result=json.loads(res.result_json) if res.ok else {},
                provenance=self.provenance,
                timing=SuiteTiming(started_at=started, wall_s=round(wall, 3)),
            )
            self.recorder.committed(eid)  # the bag holds the scenario: now the record
            if not record.ok:  # no result to record: the attempt stays in the bag, the scenario is re-run
                not_run.append(name)
                print(f"[{index + 1}/{total}] {name}: NOT RUN: {record.message} ({wall:.1f} s)", flush=True)
                continue
            if aborts := infrastructure_aborts(record.result):
                held.append(name)
                print(
                    f"[{index + 1}/{total}] {name}: NOT RECORDED: {aborts} decision(s) got no answer from "
                    f"the agent's model (infrastructure abort; run again to re-run it) ({wall:.1f} s)",
                    flush=True,
                )
                continue
            self.store.append(record)
            print(f"[{index + 1}/{total}] {name}: {self._line(record)} ({wall:.1f} s)", flush=True)
        self._delivered()
        if failed := _unrecorded(not_run, "not run") + _unrecorded(held, "not recorded after infrastructure aborts"):
            raise AlphaMatrixError(f"{'; '.join(failed)}: run the same command again to re-run them")

    def _delivered(self) -> None:
        """Transient-local history dies with this process: before it exits, the recorder must have
        matched the request topic (discovery can lag on a loaded machine) and acknowledged it."""
        name, deadline = self.params.recorder, time.monotonic() + 30.0
        while name and name not in {
            i.node_name for i in self.get_subscriptions_info_by_topic(self.request_pub.topic_name)
        }:
            if time.monotonic() > deadline:
                raise AlphaMatrixError(
                    f"{name} never subscribed to {self.request_pub.topic_name}; the bag lacks the requests"
                )
            time.sleep(0.05)
        if not self.request_pub.wait_for_all_acked(Duration(seconds=10.0)):
            self.get_logger().warning("not every reader acknowledged the last request within 10 s")

    @staticmethod
    def _line(r: SuiteRecord) -> str:
        return registry.progress_line(r.suite, r.result)


def _unrecorded(names: list[str], why: str) -> list[str]:
    """One clause naming the scenarios (the first five), or none."""
    if not names:
        return []
    return [f"{len(names)} scenario(s) {why} ({listed(names)})"]


def main(args: list[str] | None = None) -> int:
    return run_node(SuiteRunner, lambda node: spin_behind(node, node.work), args)


if __name__ == "__main__":
    raise SystemExit(main())
