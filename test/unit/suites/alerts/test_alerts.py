"""Hardware alerts: policy, monitor state machine, status model, and a physical scenario."""

from __future__ import annotations

import pytest

from alpha_matrix.core.suites.alerts.policy import (
    Alert,
    AlertClass,
    AlertMonitor,
    ReasonCode,
    Response,
    RobotStatus,
    Severity,
    StatusConfig,
    StatusModel,
)
from alpha_matrix.core.suites.alerts.run import run_alert_scenario
from alpha_matrix.core.suites.alerts.scenarios import AlertScenario, load_alert_policy

SUITE = load_alert_policy()
POLICY = SUITE.policy


def alert(aid: str, cls: str, sev: str = "warning", at: int = 10, clear: int | None = None) -> Alert:
    return Alert(aid, AlertClass(cls), Severity(sev), at, {"note": aid}, clear)


def test_policy_per_class_and_critical_override() -> None:
    assert POLICY.response(alert("a", "battery_low")) == Response.WARN
    assert POLICY.response(alert("a", "estop_button")) == Response.STOP
    assert POLICY.response(alert("a", "sensor_degraded", "critical")) == Response.STOP


def test_stop_refuses_with_typed_reason_and_clear_resumes() -> None:
    m = AlertMonitor(POLICY)
    assert m.admit("hover", 1).accepted
    d = m.on_alert(alert("e1", "estop_button", "critical"), 10)
    assert d.action == "stop" and m.stopped
    adm = m.admit("grasp", 11)
    assert not adm.accepted and adm.reason_code == ReasonCode.ESTOP_BUTTON
    assert "grasp refused" in adm.message and "e1" in adm.message
    d = m.on_clear("e1", 50)
    assert d.action == "resume" and not m.stopped
    assert m.admit("grasp", 51) == m.admit("grasp", 51) and m.admit("grasp", 51).accepted
    assert m.on_clear("e1", 60) is None  # clearing twice is a no-op


def test_warning_never_refuses() -> None:
    m = AlertMonitor(POLICY)
    assert m.on_alert(alert("b1", "battery_low"), 5).action == "warn"
    assert m.admit("hover", 6).accepted and not m.stopped


def test_overlapping_stops_resume_only_after_the_last_clear() -> None:
    m = AlertMonitor(POLICY)
    m.on_alert(alert("e1", "estop_button", "critical"), 10)
    m.on_alert(alert("f1", "actuator_fault"), 20)
    assert m.on_clear("f1", 30).action == "clear" and m.stopped
    assert m.admit("lift", 31).reason_code == ReasonCode.ESTOP_BUTTON
    assert m.on_clear("e1", 40).action == "resume" and m.admit("lift", 41).accepted


def test_alert_json_round_trip() -> None:
    a = alert("x", "actuator_fault", "critical", 123)
    b = Alert.from_json(a.to_json())
    assert (b.alert_id, b.cls, b.severity, b.at_step, b.payload) == ("x", a.cls, a.severity, 123, {"note": "x"})


def test_status_model_drains_with_motion_and_raises_alerts() -> None:
    cfg = StatusConfig(battery_start_pct=20.2)
    idle, moving = StatusModel(cfg), StatusModel(cfg)
    for k in range(240):
        s_idle = idle.update(k, [0.0] * 7)
        s_move = moving.update(k, [1.0] * 7)
    assert s_move.battery_pct < s_idle.battery_pct < 20.2
    assert max(s_move.joint_temp_c) > max(s_idle.joint_temp_c)
    assert StatusModel(cfg).update(0, [1.0] * 7) == StatusModel(cfg).update(0, [1.0] * 7)
    m = AlertMonitor(POLICY, cfg)
    out = m.on_status(s_move)
    assert [d.action for d in out] == ["warn"] and m.alerts[0].cls == AlertClass.BATTERY_LOW
    hot = RobotStatus(300, 50.0, (80.0,) + (35.0,) * 6, (True,) * 7)
    assert [d.action for d in m.on_status(hot)] == ["clear", "stop"]  # battery recovered; a joint is hot
    cool = RobotStatus(900, 50.0, (35.0,) * 7, (True,) * 7)
    assert "resume" in [d.action for d in m.on_status(cool)] and not m.stopped


def scenario(*alerts: Alert, max_steps: int = 2000) -> AlertScenario:
    return AlertScenario("t", 5, tuple(alerts), SUITE.status, max_steps=max_steps)


def test_physical_estop_mid_hover_refuses_then_resumes_and_completes() -> None:
    sc = scenario(alert("e1", "estop_button", "critical", 300, 500))
    res = run_alert_scenario(sc, POLICY)
    assert [a.correct for a in res.alerts] == [True] and res.alerts[0].robot_stopped_after
    refused = res.refused
    assert refused and all(c.reason_code == "estop_button" and c.message for c in refused)
    assert all(300 <= c.step < 500 for c in refused)
    assert res.wrongly_refused == 0 and res.wrongly_admitted == 0
    assert res.resumes == ((500, True),) and res.outcome.success
    again = run_alert_scenario(sc, POLICY)
    assert again.commands == res.commands and again.outcome == res.outcome  # deterministic


def test_never_cleared_stop_refuses_to_the_end() -> None:
    res = run_alert_scenario(scenario(alert("b1", "battery_critical", "critical", 300), max_steps=1300), POLICY)
    assert res.steps == 1300 and not res.outcome.success and res.resumes == ()
    assert res.refused and all(c.should_refuse for c in res.refused) and res.wrongly_admitted == 0


@pytest.mark.parametrize("cls", ["battery_low", "sensor_degraded"])
def test_warn_classes_keep_the_task_going(cls: str) -> None:
    res = run_alert_scenario(scenario(alert("w", cls, "warning", 450, 700)), POLICY)
    assert res.alerts[0].actual == "warn" and res.alerts[0].correct
    assert not res.refused and res.outcome.success
