"""The alert guard's core: step-ordered merge of alerts and statuses, latency-aware admission,
the account both runners keep (rows, stop windows, resumes), and the scenario JSON."""

from __future__ import annotations

import json

import pytest

from alpha_matrix.core.outcome import Outcome
from alpha_matrix.core.suites.alerts.guard import (
    AlertAccount,
    AlertEvent,
    GuardCore,
    alert_from_result,
    compose_alert_result,
)
from alpha_matrix.core.suites.alerts.policy import (
    Alert,
    AlertClass,
    AlertMonitor,
    ReasonCode,
    RobotStatus,
    Severity,
    StatusConfig,
)
from alpha_matrix.core.suites.alerts.scenarios import (
    alert_scenario_from_json,
    alert_scenario_json,
    load_alert_policy,
    load_alert_scenarios,
)

L = 24


def _status(step: int) -> RobotStatus:
    return RobotStatus(step, 90.0, (35.0,) * 7, (True,) * 7)


def _estop(at: int, cleared: int) -> Alert:
    return Alert("es", AlertClass.ESTOP_BUTTON, Severity.CRITICAL, at, {"button": "pendant"}, cleared)


@pytest.fixture(scope="module")
def policy():
    return load_alert_policy().policy


def _run_guard(policy, feed: list) -> GuardCore:
    g = GuardCore(policy, StatusConfig(), L)
    for kind, item in feed:
        if kind == "alert":
            g.on_alert(item)
        else:
            g.on_status(*item)
    return g


def test_guard_processes_in_step_order_whatever_the_arrival_order(policy) -> None:
    a = _estop(40, 100)
    raise_, clear = AlertEvent(a, 40, False), AlertEvent(a, 100, True)
    in_order = [("status", (_status(32), 0)), ("alert", raise_), ("status", (_status(48), 1))]
    in_order += [("alert", clear), ("status", (_status(112), 2))]
    # DDS orders within a topic only: the alerts may come after the statuses that count them.
    late = [("status", (_status(32), 0)), ("status", (_status(48), 1)), ("status", (_status(112), 2))]
    late += [("alert", raise_), ("alert", clear)]
    g1, g2 = _run_guard(policy, in_order), _run_guard(policy, late)
    assert g1.export() == g2.export()
    assert [(r.engage, r.decision_step) for r in g1.stop_requests] == [(True, 40), (False, 100)]
    assert g1.watermark == 112


def test_guard_holds_the_watermark_until_every_counted_alert_arrived(policy) -> None:
    g = GuardCore(policy, StatusConfig(), L)
    g.on_status(_status(16), 0)
    g.on_status(_status(32), 1)  # counts an alert not yet received
    assert g.watermark == 16
    g.on_alert(AlertEvent(_estop(20, 90), 20, False))
    assert g.watermark == 32 and g.monitor.stopped


def test_guard_refuses_with_a_typed_reason_until_the_resume_lands(policy) -> None:
    a = _estop(40, 100)
    g = _run_guard(policy, [("alert", AlertEvent(a, 40, False)), ("status", (_status(64), 1))])
    refused = g.admit("move_to", 65)
    assert not refused.accepted and refused.reason_code == ReasonCode.ESTOP_BUTTON and refused.message
    g.on_alert(AlertEvent(a, 100, True))
    g.on_status(_status(110), 2)
    pending = g.admit("gripper", 111)  # cleared at 100, but the robot resumes only at 124
    assert not pending.accepted and pending.reason_code == ReasonCode.ESTOP_BUTTON
    assert g.admit("gripper", 100 + L).accepted
    out = compose_alert_result("x", 1, json.loads(json.dumps(g.export())), 200, True, Outcome(True, 0.0, 200, ""))
    rows = out["commands"]
    assert [c["should_refuse"] for c in rows] == [True, True, False]
    assert out["resumes"] == [[100, True]]
    result = alert_from_result(out)
    assert result.refusals_typed and result.wrongly_refused == 0 and result.wrongly_admitted == 0


def test_guard_warns_without_stopping(policy) -> None:
    warn = Alert("bl", AlertClass.BATTERY_LOW, Severity.WARNING, 40, {"battery_pct": 19.0})
    g = _run_guard(policy, [("alert", AlertEvent(warn, 40, False)), ("status", (_status(48), 1))])
    assert g.stop_requests == [] and g.admit("move_to", 49).accepted
    assert g.account.rows[0].actual == "warn" and g.account.rows[0].correct


def test_alert_scenario_json_round_trip() -> None:
    suite = load_alert_policy()
    for s in load_alert_scenarios(suite=suite):
        assert alert_scenario_from_json(alert_scenario_json(s)) == s


@pytest.mark.parametrize("latency", [0, 24])
def test_the_account_closes_a_stop_window_where_the_resume_lands(policy, latency: int) -> None:
    monitor, account = AlertMonitor(policy), AlertAccount(policy, latency)
    a = _estop(40, 100)
    account.note(monitor.on_alert(a, 40), a, monitor, stopped=True)
    resume = monitor.on_clear("es", 100)
    assert resume is not None and resume.action == "resume"
    account.note(resume, None, monitor, stopped=False)
    assert account.windows == {"es": [40, 100 + latency]} and account.resume_steps == [100]
    (row,) = account.rows
    assert (row.expected, row.actual, row.robot_stopped_after, row.correct) == ("stop", "stop", True, True)
