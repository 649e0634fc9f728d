"""The reference agent decides as today's scripted code does, from the observation alone.

For each suite the expected decision comes from the existing core (StopPolicy as the detector
node drives it, GuardCore as alert_guard drives it, SkillAgent as run_skill_task drives it) on
the shipped scenario files; the reference sees only the observations built from what the
runner has, and answers with a native tool call that fits the offered tools.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from suite_situations import START, alert_events, observation, proximity_frames, symbolic_effect

from alpha_matrix.core.agent.protocol import AgentPrompt, Observation, RawToolCall
from alpha_matrix.core.agent.reference import ReferenceAgent, ReferenceAgentError
from alpha_matrix.core.agent.tools import CONTINUE_TASK
from alpha_matrix.core.suites.alerts.guard import AlertEvent, GuardCore
from alpha_matrix.core.suites.alerts.policy import (
    Alert,
    AlertClass,
    AlertPolicy,
    Response,
    RobotStatus,
    Severity,
    StatusConfig,
)
from alpha_matrix.core.suites.alerts.scenarios import load_alert_policy, load_alert_scenarios
from alpha_matrix.core.suites.alerts.situation import AlertsEvent, AlertsRobotView, alerts_situation
from alpha_matrix.core.suites.confidence.agent import Call, Query, SkillAgent, Stop, Task
from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.scenarios import load_confidence_scenarios, load_skills_config
from alpha_matrix.core.suites.confidence.situation import (
    CallView,
    CheckView,
    check_state,
    confidence_brief,
    confidence_situation,
)
from alpha_matrix.core.suites.confidence.skills import Skill, SkillState, place_target, skill_succeeded
from alpha_matrix.core.suites.confidence.tools import skill_of
from alpha_matrix.core.suites.proximity.policy import PolicyConfig, StopPolicy
from alpha_matrix.core.suites.proximity.run import ProximityScenario, scenario_from_json
from alpha_matrix.core.suites.proximity.scenarios import scenario_requests
from alpha_matrix.core.suites.proximity.situation import FrameEstimate, ProximityRobotView, proximity_situation
from alpha_matrix.core.suites.registry import suite as suite_named

L = 24
PROMPT = AgentPrompt(system="s", user="u", template_sha256="ab" * 32, template_version="test_v1")


def _fits(obs: Observation, call: RawToolCall) -> None:
    """The call names an offered tool and its arguments satisfy that tool's schema."""
    tool = next(t for t in obs.tools if t.name == call.name)
    assert isinstance(call.arguments, dict)
    errors = list(Draft202012Validator(tool.parameters).iter_errors(call.arguments))
    assert not errors, f"{call.name}{call.arguments}: {errors[0].message}"


# ----------------------------------------------------------------------------- proximity
@pytest.fixture(scope="module")
def proximity_runs() -> list[ProximityScenario]:
    return [scenario_from_json(r.scenario_json) for r in scenario_requests(None)]


def test_the_default_proximity_policy_is_the_shipped_files(proximity_runs) -> None:
    for sc in proximity_runs:
        assert replace(sc.policy, threshold=PolicyConfig().threshold) == PolicyConfig()


def _expected_proximity(sc: ProximityScenario, frames) -> list[tuple[int, str, str]]:
    """(step, the tool the policy's state calls for, the policy's action) per frame: the detector node's loop."""
    policy, out = StopPolicy(sc.policy), []
    for f in frames:
        e = f.estimate
        d = policy.update(e.step, e.detected, e.distance)
        out.append((e.step, "robot_stop" if d.stop_requested else "continue_task", d.action))
    return out


def _robot(stopped: bool) -> ProximityRobotView:
    return ProximityRobotView(stopped=stopped, command="hold" if stopped else "move")


def test_proximity_reference_decides_as_the_stop_policy_on_every_shipped_run(proximity_runs) -> None:
    stops = resumes = 0
    for sc in proximity_runs:
        frames = proximity_frames(sc)
        expected = _expected_proximity(sc, frames)
        ref, stopped = ReferenceAgent(suite_named), False
        for i, f in enumerate(frames):
            sit = proximity_situation([g.estimate for g in frames[: i + 1]], _robot(stopped), sc.threshold)
            obs = observation(sit, sc.run, i)
            answer = ref.answer(obs, PROMPT, seed=sc.seed)
            (call,) = answer.tool_calls
            _fits(obs, call)
            step, tool, action = expected[i]
            assert (call.name, sit.step) == (tool, step), f"{sc.run} frame {i}"
            if f.estimate.detected:
                assert call.arguments["distance_m"] == pytest.approx(f.estimate.distance)
            stops += action == "stop"
            resumes += action == "resume"
            stopped = tool == "robot_stop"
    assert stops > 50 and resumes > 50  # the runs exercise both transitions


def test_proximity_reference_catches_up_on_frames_it_was_not_asked_about(proximity_runs) -> None:
    """Asked on every third frame only, it still decides from every frame of the window."""
    sc = next(s for s in proximity_runs if s.run == "a01-2m")
    frames = proximity_frames(sc)
    expected = _expected_proximity(sc, frames)
    ref = ReferenceAgent(suite_named)
    for n, i in enumerate(range(0, len(frames), 3)):
        sit = proximity_situation([g.estimate for g in frames[: i + 1]], _robot(False), sc.threshold)
        assert ref.decide(observation(sit, sc.run, n)).name == expected[i][1]


def test_proximity_episode_restarts_and_out_of_order_is_refused(proximity_runs) -> None:
    sc = proximity_runs[0]
    frames = proximity_frames(sc)
    ref = ReferenceAgent(suite_named)

    def obs(i: int, index: int) -> Observation:
        return observation(proximity_situation([f.estimate for f in frames[: i + 1]], _robot(False), sc.threshold),
                           sc.run, index)  # fmt: skip

    ref.decide(obs(0, 0))
    ref.decide(obs(1, 1))
    ref.decide(obs(0, 0))  # decision 0 again: the episode starts afresh
    ref.decide(obs(1, 1))
    with pytest.raises(ReferenceAgentError, match="out of order"):
        ref.decide(obs(2, 1))


def test_the_provenance_is_the_references() -> None:
    sit = proximity_situation([FrameEstimate(144, True, 1.0, 0.9, 1)], _robot(False), 2.0)
    answer = ReferenceAgent(suite_named).answer(observation(sit, "e", 0), PROMPT, seed=11)
    p = answer.provenance
    assert (p.backend, p.seed, p.template_sha256, p.template_version) == ("reference", 11, "ab" * 32, "test_v1")
    assert answer.text == "" and '"robot_stop"' in p.raw_text and not p.recorded


# ----------------------------------------------------------------------------- alerts
@pytest.fixture(scope="module")
def alert_policy() -> AlertPolicy:
    return load_alert_policy().policy


def _status(step: int, battery: float = 90.0) -> RobotStatus:
    return RobotStatus(step, battery, (35.0,) * 7, (True,) * 7)


def _stopped_at(guard: GuardCore, step: int) -> bool:
    """The robot's protective stop at ``step``: the last request that has landed (decision + L <= step)."""
    landed = [r for r in guard.stop_requests if r.decision_step + L <= step]
    return bool(landed) and landed[-1].engage


def _alerts_obs(received, event, guard, step, command=None, index=0) -> Observation:
    robot = AlertsRobotView(stopped=_stopped_at(guard, step), battery_pct=90.0)
    sit = alerts_situation(received, event, robot, "pick the red block and place it in zone a", command)
    return observation(sit, "ep", index)


def _monitor_tool(action: str, still_stopped: bool) -> str:
    if action == "clear":
        return "robot_stop" if still_stopped else "continue_task"
    return {"stop": "robot_stop", "warn": "warn_user", "resume": "resume"}[action]


def test_alerts_reference_decides_as_the_guard_on_every_shipped_scenario(alert_policy) -> None:
    ref = ReferenceAgent(suite_named, alerts=alert_policy)
    seen: dict[str, int] = {}
    for sc in load_alert_scenarios():
        guard = GuardCore(alert_policy, StatusConfig(), L)
        events = alert_events(sc)
        received: list[AlertEvent] = []
        cmd_steps = list(range(121, sc.max_steps, 24))
        timeline = sorted([(e.step, 0, e) for e in events] + [(s, 1, s) for s in cmd_steps], key=lambda t: t[:2])
        for step, kind, item in timeline:
            if kind == 0:  # an alert or a clear: the guard decides at its step
                assert isinstance(item, AlertEvent)
                received.append(item)
                n_log = len(guard.monitor.log)
                guard.on_alert(item)
                guard.on_status(_status(step), guard.alerts_received)
                (d,) = guard.monitor.log[n_log:]
                ev = AlertsEvent(kind="clear" if item.cleared else "alert", step=step, alert_id=item.alert.alert_id)
                obs = _alerts_obs(received, ev, guard, step)
                call = ref.decide(obs)
                _fits(obs, call)
                assert call.name == _monitor_tool(d.action, guard.monitor.stopped), f"{sc.name} {d}"
                seen[call.name] = seen.get(call.name, 0) + 1
            else:  # a command the robot would start at ``step``: the guard has everything up to step - 1
                assert isinstance(item, int)
                guard.on_status(_status(step - 1), guard.alerts_received)
                cmd = f"move_to(0.600, 0.350, 0.{step % 1000:03d})"
                obs = _alerts_obs(received, AlertsEvent(kind="command", step=step), guard, step, cmd)
                call = ref.decide(obs)
                _fits(obs, call)
                adm = guard.admit(cmd, step)
                if adm.accepted:
                    assert call.name == "continue_task", f"{sc.name} step {step}"
                else:
                    assert call.name == "refuse_command", f"{sc.name} step {step}: {adm.message}"
                    assert call.arguments["reason"].startswith(adm.reason_code.value + ":")
                seen[call.name] = seen.get(call.name, 0) + 1
    # every tool but one the reference never needs (a clear while another stop holds is robot_stop)
    assert {"robot_stop", "warn_user", "resume", "refuse_command", "continue_task"} <= set(seen), seen


def test_alerts_reference_on_status_derived_alerts(alert_policy) -> None:
    """Alerts the guard derives from the robot's status reach the agent as messages (source "status")."""
    guard = GuardCore(alert_policy, StatusConfig(), L)
    guard.on_status(_status(600, battery=7.5), 0)
    derived = [d for d in guard.monitor.log if d.action in ("stop", "warn")]
    assert [d.alert_id for d in derived] == ["status-battery-critical", "status-battery-low"]
    ref, received = ReferenceAgent(suite_named, alerts=alert_policy), []
    by_id = {a.alert_id: a for a in guard.monitor.alerts}
    for d in derived:
        received.append(AlertEvent(by_id[d.alert_id], 600, False))
        obs = _alerts_obs(received, AlertsEvent(kind="alert", step=600, alert_id=d.alert_id), guard, 600)
        assert obs.situation["alerts"][-1]["source"] == "status"
        assert ref.decide(obs).name == _monitor_tool(d.action, True)


def test_alerts_refusal_while_the_resume_has_not_landed(alert_policy) -> None:
    es = Alert("es", AlertClass.ESTOP_BUTTON, Severity.CRITICAL, 300, {"button": "pendant"}, 500)
    received = [AlertEvent(es, 300, False), AlertEvent(es, 500, True)]
    guard = GuardCore(alert_policy, StatusConfig(), L)
    for ev in received:
        guard.on_alert(ev)
        guard.on_status(_status(ev.step), guard.alerts_received)
    ref = ReferenceAgent(suite_named, alerts=alert_policy)
    for step in (510, 523, 524, 530):
        obs = _alerts_obs(received, AlertsEvent(kind="command", step=step), guard, step, "gripper(0.080)")
        adm = guard.admit("gripper(0.080)", step)
        call = ref.decide(obs)
        assert (call.name == "continue_task") == adm.accepted, step
        if not adm.accepted:
            assert call.arguments["reason"].startswith("estop_button:")


def test_the_alert_policy_is_the_references_own(alert_policy) -> None:
    """A different policy (its knowledge, not the prompt's) changes its decision; the observation is the same."""
    a = Alert("bl", AlertClass.BATTERY_LOW, Severity.WARNING, 250, {"battery_pct": 19.5})
    guard = GuardCore(alert_policy, StatusConfig(), L)
    obs = _alerts_obs([AlertEvent(a, 250, False)], AlertsEvent(kind="alert", step=250, alert_id="bl"), guard, 250)
    assert ReferenceAgent(suite_named, alerts=alert_policy).decide(obs).name == "warn_user"
    strict = AlertPolicy({**alert_policy.responses, AlertClass.BATTERY_LOW: Response.STOP})
    assert ReferenceAgent(suite_named, alerts=strict).decide(obs).name == "robot_stop"


# ----------------------------------------------------------------------------- confidence
SUITE = load_skills_config()
GEO = SUITE.geometry
TH = SUITE.confidence.threshold


def _emulator_scorer(seed: int, name: str):
    emu = ConfidenceEmulator(SUITE.confidence, seed, episode_id=name)
    return lambda skill, state: emu.assess(skill, state, 0).confidence


def _table_scorer(low: set[str]):
    return lambda skill, _state: 0.1 if skill.text in low else 0.9


def _expected_confidence(task: Task, scorer) -> tuple[list[tuple[str, ...]], list[int]]:
    """SkillAgent as run_skill_task drives it: (flattened decisions, where a re-plan is due)."""
    agent = SkillAgent(task, GEO, TH, SUITE.max_attempts)
    state = SkillState(dict(START))
    d = agent.observe(state)
    seq: list[tuple[str, ...]] = []
    replans: list[int] = []
    for _ in range(300):
        if isinstance(d, Stop):
            seq.append(("stop",))
            return seq, replans
        if isinstance(d, Query):
            scores = [scorer(c, d.state) for c in d.candidates]
            seq += [("check", c.text) for c in d.candidates]
            d = agent.on_confidence(scores)
            if all(s < TH for s in scores) and not isinstance(d, Stop):
                replans.append(len(seq))
            continue
        assert isinstance(d, Call)
        seq.append(("call", d.skill.text))
        state = symbolic_effect(state, d.skill, GEO)
        d = agent.observe(state)
    raise AssertionError("the agent did not stop")


def _reference_confidence(task: Task, scorer, ref: ReferenceAgent) -> tuple[list[tuple[str, ...]], list[int]]:
    """The reference through observations: a minimal runner of check/call/replan/stop."""
    brief = confidence_brief(task, TH, GEO)
    state, step = SkillState(dict(START)), 121
    checks: list[CheckView] = []
    calls: list[CallView] = []
    replans: list[str] = []
    picked_from: tuple[float, float] | None = None
    seq: list[tuple[str, ...]] = []
    at: list[int] = []
    for n in range(400):
        sit = confidence_situation(
            brief, state, step, picked_from=picked_from, checks=checks, calls=calls, replans=replans
        )
        obs = observation(sit, task.name, n)
        call = ref.decide(obs)
        _fits(obs, call)
        args: dict[str, Any] = call.arguments  # type: ignore[assignment]
        if call.name == "check_confidence":
            skill: Skill = skill_of(args)
            scored, look = check_state(skill, state, GEO)
            checks.append(CheckView(instruction=skill.text, confidence=scorer(skill, scored), lookahead=look))
            seq.append(("check", skill.text))
        elif call.name == "call_skill":
            skill = skill_of(args)
            assert skill.text in sit.candidates
            if skill.verb == "pick":
                picked_from = state.positions[skill.obj][:2]
            target = place_target(skill, state, GEO)
            state, step = symbolic_effect(state, skill, GEO), step + 300
            calls.append(CallView(instruction=skill.text, succeeded=skill_succeeded(skill, target, state, GEO)))
            checks, replans = [], []
            seq.append(("call", skill.text))
        elif call.name == "replan":
            replans.append(args["reason"])
            at.append(len(seq))
        else:
            assert call.name == "stop_task"
            seq.append(("stop",))
            return seq, at
    raise AssertionError("the reference did not stop")


def test_confidence_reference_decides_as_the_skill_agent_on_every_shipped_task() -> None:
    ref = ReferenceAgent(suite_named)
    replanned = 0
    for sc in load_confidence_scenarios(suite=SUITE):
        for scorer in (_emulator_scorer(sc.seed, sc.task.name), _table_scorer({"pick(red)", "place(green, zone_b)"})):
            want, want_replans = _expected_confidence(sc.task, scorer)
            got, got_replans = _reference_confidence(sc.task, scorer, ref)
            assert got == want, sc.task.name
            assert got_replans == want_replans, sc.task.name
            replanned += len(got_replans)
    assert replanned > 5


def test_confidence_lookahead_is_scored_on_the_state_the_skill_agent_predicts() -> None:
    task = Task("t", (load_confidence_scenarios(suite=SUITE)[0].task.goals[0],))
    agent = SkillAgent(task, GEO, TH)
    state = SkillState(dict(START))
    q = agent.observe(state)
    assert isinstance(q, Query)
    look = agent.on_confidence([0.9] * len(q.candidates))
    assert isinstance(look, Query) and look.hypothetical
    scored, is_look = check_state(look.candidates[0], state, GEO)
    assert is_look and scored == look.state
    assert check_state(look.candidates[0], look.state, GEO) == (look.state, False)  # held: a real check


def test_confidence_reference_needs_the_answer_to_its_check() -> None:
    task = load_confidence_scenarios(suite=SUITE)[0].task
    brief = confidence_brief(task, TH, GEO)
    ref = ReferenceAgent(suite_named)
    sit = confidence_situation(brief, SkillState(dict(START)), 121)
    assert ref.decide(observation(sit, "e", 0)).name == "check_confidence"
    with pytest.raises(ReferenceAgentError, match="no answer"):
        ref.decide(observation(sit, "e", 1))


def test_an_unknown_suite_is_refused() -> None:
    obs = Observation(suite="ambiguity", episode_id="e", step=0, decision_index=0, situation={}, tools=(CONTINUE_TASK,))
    with pytest.raises(ReferenceAgentError, match="ambiguity"):
        ReferenceAgent(suite_named).decide(obs)


def test_distances_are_never_nan_in_a_reference_answer(proximity_runs) -> None:
    sc = proximity_runs[0]
    for f in proximity_frames(sc)[:40]:
        sit = proximity_situation([f.estimate], _robot(False), sc.threshold)
        call = ReferenceAgent(suite_named).decide(observation(sit, sc.run, 0))
        assert all(not (isinstance(v, float) and not math.isfinite(v)) for v in call.arguments.values())  # type: ignore[union-attr]
