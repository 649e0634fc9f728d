"""Alerts audit on tiny bags written with the project's own SplitBagWriter.

The "live" side is the guard's own core (GuardCore, fed as the node is: statuses and alerts as
they come, each command asked before the status of its step) and ``compose_alert_result``.
Policy and L come from the bag's context only: a bag recorded with another L or another policy
audits clean against what it carries, and a bag without a context is a problem, not today's config.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from alpha_matrix.core.bag import SplitBagWriter, make_typestore
from alpha_matrix.core.outcome import Outcome
from alpha_matrix.core.records import provenance
from alpha_matrix.core.suites.alerts.audit import audit_alerts_bag
from alpha_matrix.core.suites.alerts.context import AlertsContext
from alpha_matrix.core.suites.alerts.guard import AlertEvent, GuardCore, compose_alert_result
from alpha_matrix.core.suites.alerts.policy import Alert, AlertClass, RobotStatus, Severity, StatusConfig
from alpha_matrix.core.suites.alerts.scenarios import AlertScenario, alert_scenario_json, load_alert_policy
from alpha_matrix.core.suites.audit_common import bag_suite
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.context import RecordedFile, context_json
from alpha_matrix.core.suites.records import SuiteRecord, SuiteStore, SuiteTiming

TOPICS = {
    "/suite/request": "alpha_matrix_interfaces/msg/SuiteRequest",
    "/suite/result": "alpha_matrix_interfaces/msg/SuiteResult",
    "/robot/alerts": "alpha_matrix_interfaces/msg/HardwareAlert",
    "/robot/status": "alpha_matrix_interfaces/msg/RobotStatus",
}
EP, END = "alerts-estop_and_low", 480
POLICY = RecordedFile.read(config_dir() / "alerts.yaml")
SCENARIO = AlertScenario(
    "estop_and_low",
    7,
    (
        Alert("es", AlertClass.ESTOP_BUTTON, Severity.CRITICAL, 100, {"button": "pendant"}, 200),
        Alert("bl", AlertClass.BATTERY_LOW, Severity.WARNING, 260, {"battery_pct": 19.0}, 330),
    ),
    StatusConfig(),
    max_steps=2000,
)
COMMANDS = [(50, "move_to"), (150, "move_to"), (210, "move_to"), (240, "gripper"), (300, "move_to")]


def _policy_file(battery_low: str) -> RecordedFile:
    text = POLICY.text.replace("battery_low: warn", f"battery_low: {battery_low}", 1)
    assert f"battery_low: {battery_low}" in text
    return RecordedFile(path=POLICY.path, sha256=hashlib.sha256(text.encode()).hexdigest(), text=text)


def _write_bag(
    bag: Path, latency: int, policy: RecordedFile, context: str | None = None, drop_clear: bool = False
) -> None:
    """One episode as the graph records it: request, alerts, statuses and the guard's result.

    ``drop_clear``: the e-stop's clear reached the guard but is missing from the bag."""
    with tempfile.TemporaryDirectory() as tmp:
        suite = load_alert_policy(policy.write_to(Path(tmp)))
    store = make_typestore()
    T = store.types
    w = SplitBagWriter(bag, TOPICS)

    def put(topic: str, ts: int, **fields: object) -> None:
        w.write(topic, ts, store.serialize_cdr(T[TOPICS[topic]](episode_id=EP, **fields), TOPICS[topic]))

    ctx = context_json(AlertsContext(policy=policy, reaction_latency_steps=latency)) if context is None else context
    put("/suite/request", 0, suite="alerts", index=0, seed=SCENARIO.seed,
        scenario_json=alert_scenario_json(SCENARIO), context_json=ctx)  # fmt: skip
    events = sorted(
        [(a.at_step, a, False) for a in SCENARIO.alerts] + [(a.cleared_at_step, a, True) for a in SCENARIO.alerts],
        key=lambda e: e[0],
    )
    guard, issued, todo = GuardCore(suite.policy, SCENARIO.status, latency), 0, list(COMMANDS)
    for step in range(24, END + 1, 24):
        while todo and todo[0][0] <= step:  # the executive asks while the robot is idle
            guard.admit(todo[0][1], todo[0][0])
            todo.pop(0)
        while events and events[0][0] <= step:
            at, a, cleared = events.pop(0)
            if not (drop_clear and cleared and a.alert_id == "es"):
                put("/robot/alerts", at * 1000, alert_id=a.alert_id, alert_class=a.cls.value, severity=a.severity.value,
                    payload_json=json.dumps(a.payload), step=at, cleared=cleared, source=a.source)  # fmt: skip
            guard.on_alert(AlertEvent(replace(a, cleared_at_step=None), at, cleared))  # as alert_guard builds it
            issued += 1
        status = RobotStatus(step, 90.0 - step / 100, (35.0,) * 7, (True,) * 7)
        put("/robot/status", step * 1000 + 1, step=step, battery_pct=status.battery_pct,
            joint_temp_c=np.array(status.joint_temp_c), actuator_ok=np.array(status.actuator_ok, bool), alerts_issued=issued)  # fmt: skip
        guard.on_status(status, issued)
    result = compose_alert_result(EP, SCENARIO.seed, guard.export(), END, True, Outcome(True, 0.01, END, ""))
    put("/suite/result", (END + 1) * 1000, ok=True, message="", result_json=json.dumps(result, sort_keys=True),
        agent_decisions=0, agent_episode_id="")  # fmt: skip
    w.close()


def test_a_clean_bag_audits_clean_with_the_recorded_context(tmp_path: Path) -> None:
    _write_bag(tmp_path / "b", 24, POLICY)
    assert bag_suite(tmp_path / "b") == "alerts"
    (a,) = audit_alerts_bag(tmp_path / "b")
    assert a.episode_id == EP and a.ok, a.problems
    assert a.context == f"from the bag: alert_guard L=24, policy alerts.yaml sha256 {POLICY.sha256[:12]}"
    assert a.inputs == 4 + END // 24 and a.recorded == a.replayed > 0


def test_latency_and_policy_come_from_the_bag(tmp_path: Path) -> None:
    # Recorded with L = 48 and battery_low -> stop: audits clean against what the bag carries.
    stop_low = _policy_file("stop")
    _write_bag(tmp_path / "b", 48, stop_low)
    (a,) = audit_alerts_bag(tmp_path / "b")
    assert a.ok, a.problems
    assert a.context.startswith("from the bag: alert_guard L=48")
    # The same run claiming today's policy, or today's L, in its context: the replay disagrees.
    _write_bag(tmp_path / "c", 48, stop_low, context_json(AlertsContext(policy=POLICY, reaction_latency_steps=48)))
    (c,) = audit_alerts_bag(tmp_path / "c")
    assert c.problems == (
        "suite/result differs from the guard's replay at alerts.1.actual: recorded 'stop', replay 'warn'",
    )
    _write_bag(tmp_path / "d", 48, stop_low, context_json(AlertsContext(policy=stop_low, reaction_latency_steps=24)))
    (d,) = audit_alerts_bag(tmp_path / "d")
    assert not d.ok and d.problems[0].startswith("suite/result differs from the guard's replay at commands.")


def test_a_bag_without_context_is_a_problem_not_todays_config(tmp_path: Path) -> None:
    _write_bag(tmp_path / "b", 24, POLICY, context="")
    (a,) = audit_alerts_bag(tmp_path / "b")
    assert a.problems == (
        "suite/request carries no context_json, so the run's alert_guard policy file and L cannot be known"
        " (never taken from today's config)",
    )
    assert a.replayed == 0 and a.context == ""


def test_a_dropped_clear_is_caught(tmp_path: Path) -> None:
    _write_bag(tmp_path / "b", 24, POLICY, drop_clear=True)
    (a,) = audit_alerts_bag(tmp_path / "b")
    assert not a.ok and a.problems[0].startswith("suite/result differs from the guard's replay at ")


def test_a_record_that_differs_from_the_bag_is_named(tmp_path: Path) -> None:
    _write_bag(tmp_path / "b", 24, POLICY)
    result = {"name": EP, "seed": SCENARIO.seed, "outcome": asdict(Outcome(True, 0.01, END, ""))}
    store = SuiteStore(tmp_path / "run", "h")
    store.append(
        SuiteRecord(suite="alerts", run_id="run", episode_id=EP, index=0, scenario="estop_and_low", seed=7, ok=True,
                    message="", result=result, provenance=provenance("h"),
                    timing=SuiteTiming(started_at="now", wall_s=1.0))
    )  # fmt: skip
    (r,) = audit_alerts_bag(tmp_path / "b", tmp_path / "run")
    assert r.problems == ("JSONL record differs from suite/result at alerts: only in the replay",)
