"""No answer key reaches the agent: the situation and the rendered prompt, per suite, on the
shipped scenario files. Ground truth, scenario ``expect``, the alert policy's class -> response
table, the reference's margin and hold time, the training distribution: none of them may appear.
What the brief states on purpose (the proximity threshold, the confidence threshold) is pinned."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from suite_situations import START, alert_events, observation, proximity_frames, render

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.suites.alerts.guard import AlertEvent
from alpha_matrix.core.suites.alerts.scenarios import load_alert_scenarios
from alpha_matrix.core.suites.alerts.situation import AlertsEvent, AlertsRobotView, alerts_situation
from alpha_matrix.core.suites.common import config_dir
from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.scenarios import load_confidence_scenarios, load_skills_config
from alpha_matrix.core.suites.confidence.situation import CheckView, confidence_brief, confidence_situation
from alpha_matrix.core.suites.confidence.skills import SkillState, parse_skill
from alpha_matrix.core.suites.proximity.detector import DetectorConfig
from alpha_matrix.core.suites.proximity.run import scenario_from_json
from alpha_matrix.core.suites.proximity.scenarios import scenario_requests
from alpha_matrix.core.suites.proximity.situation import (
    FrameEstimate,
    ProximityRobotView,
    ProximitySituation,
    frame_estimate,
    proximity_situation,
)

CONFIG = config_dir()
# Keys of the answer key in any suite: scorer, scenario file, policy, emulator internals.
ANSWER_KEYS = {
    "expect", "expected", "truth", "gt", "gt_distance", "true_distance", "in_view", "policy", "responses",
    "response", "stop_on_critical", "margin", "hold_time_s", "limit", "action", "stop_requested", "human_speed",
    "score", "false_stop_tolerance", "boundary_band", "allowed_latency", "path", "posture", "lighting",
    "angle_deg", "start_distance", "stop_distance", "closest_distance", "speed", "dwell_s", "training",
    "in_distribution", "out_of_distribution", "noise_sigma", "infeasible_factor", "edge_band", "regions",
    "reach", "max_attempts", "feasible", "reason", "noise", "seed", "name", "run", "status",
    "battery_low_pct", "battery_critical_pct", "overtemperature_c", "hysteresis", "retry_every", "max_steps",
}  # fmt: skip


def keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from keys(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from keys(v)


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z_]+", text.lower()))


# ----------------------------------------------------------------------------- proximity
@pytest.fixture(scope="module")
def proximity_runs():
    return [scenario_from_json(r.scenario_json) for r in scenario_requests(None)]


def test_proximity_prompts_of_every_shipped_run_hold_no_answer_key(proximity_runs) -> None:
    raw = load_yaml(CONFIG / "scenarios" / "proximity.yaml")
    scenario_words = {p["posture"] for p in raw["approaches"] + raw["passers"]}
    scenario_words |= {p["lighting"] for p in raw["approaches"] + raw["passers"]}
    systems: dict[float, set[str]] = {}
    for sc in proximity_runs[::5]:
        frames = proximity_frames(sc)
        limit = sc.threshold + sc.policy.margin
        for i in range(0, len(frames), 7):
            sit = proximity_situation(
                [f.estimate for f in frames[: i + 1]], ProximityRobotView(stopped=False), sc.threshold
            )
            obs = observation(sit, "ep", i)
            assert not set(keys(obs.situation)) & ANSWER_KEYS
            prompt = render(obs)
            text = prompt.system + prompt.user
            assert sc.run not in text and sc.name not in words(text)
            assert not words(prompt.user) & scenario_words, sc.run
            systems.setdefault(sc.threshold, set()).add(prompt.system)  # nothing of the run but its threshold
            assert not {"margin", "hold", "limit", "truth", "expect"} & words(text)
            for value in (f"{limit:g}", f"{sc.policy.margin:g}", f"{sc.policy.hold_time_s:g} s"):
                assert not re.search(rf"(?<![\d.]){re.escape(value)}(?!\d)", prompt.system), value
            # the estimates are the detector's, never the truth of the same frame
            for shown, f in zip(obs.situation["estimates"], frames[max(0, i - 4) : i + 1], strict=True):
                assert shown["step"] == f.estimate.step
                if shown["detected"]:
                    assert shown["distance_m"] == f.estimate.distance != round(f.true_distance, 3)
                else:
                    assert shown["distance_m"] is None
    assert sorted(systems) == [1.0, 2.0, 3.0] and all(len(v) == 1 for v in systems.values())


def test_the_proximity_brief_states_the_threshold_and_the_cells_timing_only(proximity_runs) -> None:
    sc = proximity_runs[0]
    sit = proximity_situation([proximity_frames(sc)[0].estimate], ProximityRobotView(stopped=False), sc.threshold)
    assert sit.brief.model_dump() == {"threshold_m": sc.threshold, "frame_period_s": 0.1, "reaction_s": 0.1}
    assert f"within {sc.threshold:g} m" in render(observation(sit, "e", 0)).system


def test_the_proximity_window_is_the_current_estimate_and_four_before() -> None:
    frames = [
        FrameEstimate(24 * k, k % 3 != 0, 3.0 - 0.1 * k, 0.7, 1, (0.1 - 3.0 + 0.1 * k, 0.0)) for k in range(6, 16)
    ]
    sit = proximity_situation(frames, ProximityRobotView(stopped=True), 2.0)
    assert [e.step for e in sit.estimates] == [f.step for f in frames[-5:]] and sit.step == frames[-1].step
    missed = next(e for e in sit.estimates if not e.detected)
    assert missed.distance_m is None and missed.nearest_xy is None and missed.bearing_deg is None
    seen = next(e for e in sit.estimates if e.detected)
    assert seen.bearing_deg == pytest.approx(180.0) and seen.nearest_xy is not None
    with pytest.raises(ValueError, match="increasing"):
        proximity_situation(frames[::-1], ProximityRobotView(stopped=False), 2.0)
    with pytest.raises(ValueError):
        ProximitySituation.model_validate({**sit.model_dump(), "limit": 2.25})  # no field for it


def test_a_proximity_estimate_message_keeps_only_the_detectors_fields() -> None:
    class Msg:  # ProximityEstimate's fields, including the policy's, which the agent must not get
        step, detected, distance, confidence, blob_count = 240, True, 1.234, 0.8, 1
        action, stop_requested, limit, human_speed = "stop", True, 2.25, 1.6

    sit = proximity_situation([frame_estimate(Msg())], ProximityRobotView(stopped=False), 2.0)
    shown = sit.model_dump()["estimates"][0]
    assert set(shown) == {"step", "t_s", "detected", "distance_m", "confidence", "people", "nearest_xy", "bearing_deg"}
    assert "2.25" not in json.dumps(observation(sit, "e", 0).situation)


def test_the_base_axis_is_the_detectors() -> None:
    from alpha_matrix.core.suites.proximity.situation import BASE_XY

    assert DetectorConfig().base_xy == BASE_XY


# ----------------------------------------------------------------------------- alerts
def _alert_observations(sc) -> Iterator[tuple[Any, int]]:
    """(observation, step) at every alert, clear and a command every 96 steps."""
    events = alert_events(sc)
    received: list[AlertEvent] = []
    timeline = sorted([(e.step, 0, e) for e in events] + [(s, 1, None) for s in range(121, sc.max_steps, 96)],
                      key=lambda t: t[:2])  # fmt: skip
    for n, (step, _kind, ev) in enumerate(timeline):
        if ev is not None:
            received.append(ev)
            event = AlertsEvent(kind="clear" if ev.cleared else "alert", step=step, alert_id=ev.alert.alert_id)
            cmd = None
        else:
            event, cmd = AlertsEvent(kind="command", step=step), "move_to(0.600, 0.350, 0.800)"
        sit = alerts_situation(
            list(received), event, AlertsRobotView(stopped=False, battery_pct=88.0), "pick and place", cmd
        )
        yield observation(sit, "ep", n), step


def test_alert_prompts_of_every_shipped_scenario_hold_no_answer_key() -> None:
    policy_file = load_yaml(CONFIG / "alerts.yaml")
    raw = load_yaml(CONFIG / "scenarios" / "alerts.yaml")
    expects = {a["id"]: a["expect"] for s in raw["scenarios"] for a in s.get("alerts", []) if "expect" in a}
    assert expects  # the file has some
    mapping = [
        re.compile(rf"{cls}\W{{0,4}}(->|=>|:|=)?\W{{0,4}}{resp}\b", re.I)
        for cls, resp in policy_file["responses"].items()
    ]
    clears = {a.alert_id: a.cleared_at_step for sc in load_alert_scenarios() for a in sc.alerts}
    n = 0
    for sc in load_alert_scenarios():
        for obs, step in _alert_observations(sc):
            assert not set(keys(obs.situation)) & ANSWER_KEYS, sc.name
            prompt = render(obs)
            text = prompt.system + "\n" + prompt.user
            assert not any(m.search(text) for m in mapping), sc.name
            assert not {"expect", "expected", "stop_on_critical", "responses", "policy"} & words(text)
            for a in obs.situation["alerts"]:
                assert "expect" not in a
                # a clear is shown once received, never ahead from the scenario's schedule
                if a["cleared_at_step"] is not None:
                    assert a["cleared_at_step"] == clears[a["alert_id"]] <= step
                else:
                    assert clears[a["alert_id"]] is None or clears[a["alert_id"]] > step
            n += 1
    assert n > 100


def test_an_alert_message_is_shown_as_received() -> None:
    sc = next(s for s in load_alert_scenarios() if s.name == "actuator_fault_lift")
    a = sc.alerts[0]
    sit = alerts_situation(
        [AlertEvent(a, a.at_step, False)],
        AlertsEvent(kind="alert", step=a.at_step, alert_id=a.alert_id),
        AlertsRobotView(stopped=False),
        "pick and place",
    )
    (shown,) = observation(sit, "e", 0).situation["alerts"]
    assert shown == {**json.loads(a.to_json()), "cleared_at_step": None}  # the wire message, no more
    with pytest.raises(ValueError, match="not received"):
        alerts_situation([], AlertsEvent(kind="clear", step=9, alert_id="x"), AlertsRobotView(stopped=False), "t")
    with pytest.raises(ValueError, match="pending command"):
        alerts_situation([], AlertsEvent(kind="command", step=9), AlertsRobotView(stopped=False), "t")


# ----------------------------------------------------------------------------- confidence
def test_confidence_prompts_of_every_shipped_task_hold_no_answer_key() -> None:
    suite = load_skills_config()
    raw = load_yaml(CONFIG / "scenarios" / "confidence.yaml")
    skills_file = load_yaml(Path(suite.path))
    for sc in load_confidence_scenarios(suite=suite):
        brief = confidence_brief(sc.task, suite.confidence.threshold, suite.geometry)
        emu = ConfidenceEmulator(suite.confidence, sc.seed, sc.task.name)
        state = SkillState(dict(START))
        first = confidence_situation(brief, state, 121)
        checks = [
            CheckView(
                instruction=c, confidence=round(emu.assess(parse_skill(c), state, 0).confidence, 3), lookahead=False
            )
            for c in first.candidates[:2]
        ]
        later = confidence_situation(brief, state, 121, checks=checks)
        for sit in (first, later):
            obs = observation(sit, "ep", 0)
            assert not set(keys(obs.situation)) & ANSWER_KEYS, sc.task.name
            prompt = render(obs)
            text = prompt.system + "\n" + prompt.user
            assert not {"achieve", "skip", "expect", "expected", "training", "distribution"} & words(text)
            assert not re.search(rf"(?<![\d.]){skills_file['in_distribution']:g}(?!\d)", prompt.system)
        # the brief: the user's goals and the rule's threshold, nothing of the expected outcome
        task_raw = next(t for t in raw["tasks"] if t["name"] == sc.task.name)
        assert [g.object for g in brief.goals] == [g.split("->")[0].strip() for g in task_raw["goals"]]
        assert brief.threshold == skills_file["threshold"]


def test_a_put_back_is_a_candidate_only_while_holding() -> None:
    suite = load_skills_config()
    sc = load_confidence_scenarios(suite=suite)[0]
    brief = confidence_brief(sc.task, 0.5, suite.geometry)
    held = SkillState({**START, "red": (0.5, -0.1, 0.8)}, "red", suite.geometry.size)
    sit = confidence_situation(brief, held, 400, picked_from=(0.5, -0.1))
    assert sit.candidates[-1] == "place(red, at=(0.500, -0.100))" and sit.state.picked_from == (0.5, -0.1)
    empty = confidence_situation(brief, SkillState(dict(START)), 400, picked_from=(0.5, -0.1))
    assert empty.state.picked_from is None and not any("at=" in c for c in empty.candidates)


def test_numbers_in_situations_are_finite_json() -> None:
    frames = [FrameEstimate(240, False, math.inf, 0.99, 0)]
    obs = observation(proximity_situation(frames, ProximityRobotView(stopped=False), 1.0), "e", 0)
    json.dumps(obs.situation, allow_nan=False)
