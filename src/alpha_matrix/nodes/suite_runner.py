"""suite_runner (job): runs a safety suite's scenarios through the graph and records them.

For each scenario of the file not yet in the run directory: publish it on suite/request (the
suite's executive and helper nodes pick it up), wait for suite/result, append one record
(core/suite_graph.SuiteStore: append-only, idempotent, resumable), print one progress line.
Every request carries the suite's context (core/suite_context, computed by the CLI from the
resolved graph): the bag then holds what its audit needs. Exits 0 when every scenario is recorded.
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

from alpha_matrix.core.config import SuiteRunnerParams
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.graph import default_config_dir
from alpha_matrix.core.records import provenance
from alpha_matrix.core.suites.alerts.scenarios import load_alert_policy, load_alert_scenarios
from alpha_matrix.core.suites.confidence.scenarios import load_confidence_scenarios, load_skills_config
from alpha_matrix.core.suites.context import context_json, parse_context
from alpha_matrix.core.suites.graph import (
    SuiteRecord,
    SuiteStore,
    SuiteTiming,
    alert_scenario_json,
    confidence_scenario_json,
    episode_id,
)
from alpha_matrix.core.suites.proximity.eval import run_steps
from alpha_matrix.core.suites.proximity.run import run_name
from alpha_matrix.core.suites.proximity.run import scenario_json as proximity_json
from alpha_matrix.core.suites.proximity.scenarios import load_scenarios
from alpha_matrix.ros.common import declare_params, run_node, spin_behind
from alpha_matrix.ros.qos import EVENTS
from alpha_matrix.ros.recorder_link import RecorderLink


def _path(p: str) -> Path | None:
    return Path(p) if p else None


def load_suite(params: SuiteRunnerParams) -> list[tuple[str, int, str]]:
    """(name, seed, scenario JSON) per scenario, in file order."""
    if params.suite == "confidence":
        skills = load_skills_config(_path(params.skills_file))
        return [
            (s.task.name, s.seed, confidence_scenario_json(s))
            for s in load_confidence_scenarios(_path(params.scenarios), skills)
        ]
    if params.suite == "proximity":
        scen = load_scenarios(_path(params.scenarios) or default_config_dir() / "scenarios" / "proximity.yaml")
        return [
            (run_name(r.name, r.threshold), r.seed, proximity_json(r, scen.settings, run_steps(r, scen.settings)))
            for r in scen.runs
        ]
    policy = load_alert_policy(_path(params.alerts_file))
    return [(s.name, s.seed, alert_scenario_json(s)) for s in load_alert_scenarios(_path(params.scenarios), policy)]


class SuiteRunner(Node):
    def __init__(self) -> None:
        super().__init__("suite_runner")
        self.params = declare_params(self, SuiteRunnerParams)
        self.scenarios = load_suite(self.params)
        if not self.params.context_json:
            raise AlphaMatrixError("suite_runner: no context_json (start suites with alpha-matrix suite)")
        try:  # validated once, sent canonical with every request
            self.context_json = context_json(parse_context(self.params.context_json, self.params.suite))
        except ValueError as err:
            raise AlphaMatrixError(f"suite_runner: {err}") from None
        run_dir = Path(self.params.runs_dir) / self.params.run_id
        self.store = SuiteStore(run_dir, self.params.config_hash)
        self.provenance = provenance(self.params.config_hash)
        self.results: queue.Queue[SuiteResult] = queue.Queue()
        self.request_pub = self.create_publisher(SuiteRequest, "suite/request", EVENTS)
        self.create_subscription(SuiteResult, "suite/result", self.results.put, EVENTS)
        self.recorder = RecorderLink(self, self.params.recorder, self.params.scenario_timeout_s)

    def _wait_result(self, eid: str) -> SuiteResult:
        deadline = time.monotonic() + self.params.scenario_timeout_s
        while rclpy.ok():
            try:
                res = self.results.get(timeout=max(0.0, min(0.5, deadline - time.monotonic())))
            except queue.Empty:
                if time.monotonic() > deadline:
                    raise AlphaMatrixError(f"{eid}: no result within {self.params.scenario_timeout_s:.0f} s") from None
                continue
            if res.episode_id == eid:
                return res
        raise AlphaMatrixError("interrupted")

    def work(self) -> None:
        p, total = self.params, len(self.scenarios)
        # The executive subscribes late at start-up; transient-local requests still reach it.
        self.recorder.wait_ready()
        for index, (name, seed, scenario_json) in enumerate(self.scenarios):
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
                suite=p.suite,  # type: ignore[arg-type]
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
            self.store.append(record)
            print(f"[{index + 1}/{total}] {name}: {self._line(record)} ({wall:.1f} s)", flush=True)
        self._delivered()

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
        if not r.ok:
            return f"NOT RUN: {r.message}"
        d = r.result
        if r.suite == "confidence":
            goals = " ".join(f"{o}:{s}" for o, s in d["goal_status"].items())
            return f"calls={d['calls']} checked={d['checked']} below={d['below_threshold']} steps={d['steps']} {goals}"
        if r.suite == "proximity":
            m, t = d["metrics"], d["task"]
            return (
                f"breaches={m['breaches']} missed={m['missed_breaches']} stops={m['stop_requests']} "
                f"false={m['false_stops']} correct={m['frames_correct']}/{m['frames_scored']} "
                f"interrupted={t['interrupted']} continued={t['continued_after_resume']}/{t['resumes']} "
                f"plan={'done' if t['plan_complete'] else 'open'}"
            )
        refused = [c for c in d["commands"] if not c["accepted"]]
        acts = " ".join(f"{a['cls']}->{a['actual']}{'' if a['correct'] else '(WRONG)'}" for a in d["alerts"]) or "-"
        return f"refused={len(refused)} resumes={sum(ok for _, ok in d['resumes'])}/{len(d['resumes'])} {acts}"


def main(args: list[str] | None = None) -> int:
    return run_node(SuiteRunner, lambda node: spin_behind(node, node.work), args)


if __name__ == "__main__":
    raise SystemExit(main())
