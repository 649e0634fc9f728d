"""An agent's decisions that reach the recorder after the scenario's result still make the bag.

make test-long once recorded confidence bags with no /agent/* message at all: the recorder matched
the agent's writers late, the commit waited only for the request, and the agent, stopped before the
recorder, took its history with it. Here the lateness is made certain: the agent's topics are
remapped to a holding relay in this process, which passes them on to /agent/* only once the
recorder says its commit waits for them (it never does on the old code, and that bag has none).
The ambiguity suite's agent sees a name that hides the item: its decisions carry that id.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from alpha_matrix_interfaces.msg import AgentDecision, AgentObservation
from rclpy.context import Context
from rclpy.node import Node

from alpha_matrix.core.bag import read_bag
from alpha_matrix.core.suites.records import SuiteStore
from alpha_matrix.ros.qos import EVENTS
from conftest import cli_beside, remapped_config, run_cli, wait_until

TASK = """seed: 42
tasks:
  - name: sort_two
    goals: ["red -> zone_a", "green -> zone_b"]
"""
AMBIGUITY = """seed: 11
pairs_per_category: 20
categories: [pronoun_without_referent]
families: [templates]
"""
# suite -> its scenario file, extra arguments, and how many decisions its record says the agent made
SUITES: dict[str, tuple[str, list[str], Callable[[dict[str, Any]], int]]] = {
    "confidence": (TASK, ["--agent", "reference"], lambda result: result["agent"]["decisions"]),
    # its agent sees a name that says nothing of the item, not the scenario's episode id
    "ambiguity": (AMBIGUITY, ["--shard", "0/40"], lambda result: result["decisions"]),
}
HELD = "held/"  # the agent publishes under held/agent/..., the relay on /agent/...
TOPICS = {"agent/observations": AgentObservation, "agent/decisions": AgentDecision}
WAITS = "commit waits for /agent/decisions"  # the recorder's log line (nodes/recorder.py)


class HoldingRelay(Node):
    """held/agent/* -> /agent/*, each message held until ``release()``, then passed on at once."""

    def __init__(self, context: Context) -> None:
        super().__init__("held_agent_relay", context=context)
        self.lock = threading.Lock()
        self.held: list[tuple[Any, Any]] = []
        self.released = False
        for topic, cls in TOPICS.items():
            pub = self.create_publisher(cls, f"/{topic}", EVENTS)
            self.create_subscription(cls, f"/{HELD}{topic}", lambda m, p=pub: self._on(p, m), EVENTS)

    def _on(self, pub: Any, msg: Any) -> None:
        with self.lock:
            if not self.released:
                self.held.append((pub, msg))
                return
        pub.publish(msg)

    def release(self) -> None:
        with self.lock:
            self.released, held = True, self.held
            self.held = []
        for pub, msg in held:
            pub.publish(msg)


@pytest.mark.parametrize("suite", list(SUITES))
def test_decisions_reaching_the_recorder_after_the_result_are_in_the_bag(suite: str, tmp_path: Path) -> None:
    scenarios, extra, decisions_of = SUITES[suite]
    cfg = remapped_config(tmp_path / "config", f"graph_{suite}.yaml", "agent", {t: HELD + t for t in TOPICS})
    (tmp_path / "t.yaml").write_text(scenarios)
    log = tmp_path / "run.log"
    args = ["--config", str(cfg), "suite", suite, "--scenarios", "t.yaml", "--run-id", "late", *extra,
            "--set", "suite_runner.scenario_timeout_s=120"]  # fmt: skip
    with cli_beside(HoldingRelay, args, tmp_path, log) as (relay, proc):
        wait_until(
            lambda: proc.poll() is not None or WAITS in log.read_text(errors="replace"),
            300,
            "the recorder to wait for the held decisions, or the run to end",
        )
        relay.release()
        assert proc.wait(timeout=300) == 0, log.read_text()[-3000:]

    (rec,) = SuiteStore.read_only(tmp_path / "runs" / "late")
    decisions = decisions_of(rec.result)
    assert rec.ok and decisions >= 2
    bag = [topic for topic, _, _ in read_bag(tmp_path / "bags" / "late") if topic.startswith("/agent/")]
    assert (bag.count("/agent/decisions"), bag.count("/agent/observations")) == (decisions, decisions), log.read_text()
    audit = run_cli(["audit", str(tmp_path / "bags" / "late")], tmp_path, timeout=120)
    assert audit.returncode == 0, audit.stdout[-2000:] + audit.stderr[-2000:]
    assert WAITS in log.read_text()  # they did reach the recorder after the result
