"""The reference agent: today's scripted decisions behind the agent protocol.

It answers every observation the way the scripted executives decide today, from the
observation alone -- never from the scenario's truth -- and with a native tool call, so its
answers go through core/agent/decide.py like any model's:

* proximity: ``StopPolicy`` (core/suites/proximity/policy.py) fed the detector's estimates of
  the window, threshold from the brief; margin, hold time and mode are the reference's own
  policy (``PolicyConfig``, defaults = config/scenarios/proximity.yaml's). ``robot_stop`` while
  the policy wants the robot stopped, ``continue_task`` otherwise; ``distance_m`` = the current
  estimate. It never calls ``safe_pose`` (today's executive has no safe pose).
* alerts: ``AlertMonitor`` (core/suites/alerts/policy.py) with the reference's own policy
  (config/alerts.yaml: knowledge of the reference, never shown in a prompt), replayed over the
  alerts received; the event's decision: stop -> ``robot_stop``, warn -> ``warn_user``, a clear
  that resumes -> ``resume``, other clears -> ``continue_task`` (``robot_stop`` while another
  stopping alert is active: continue_task would lift the stop); a command -> ``refuse_command``
  (reason code first) while a stopping alert is active or the robot's stop has not yet been
  lifted, else ``continue_task`` -- what ``GuardCore.admit`` decides.
* gauge: the classical reader's answer (core/suites/gauge/reader.py), taken through
  ``read_gauge`` when no image is attached, read on the image when one is: report_reading or
  cannot_read as the reader says (the upper bound the suite measures agents against).
* ambiguity: the counting resolver (core/suites/ambiguity/reference.py, policy ``reference``):
  it parses the instruction and the operator's answers and counts the candidate blocks and
  places in the observed scene; one of each: ``pick_and_place``, else ``ask_clarification``.
* confidence: ``SkillAgent`` (core/suites/confidence/agent.py) over the brief's goals and
  threshold; each query's candidates are checked one call at a time, in order; a query whose
  candidates all scored below the threshold is followed by one ``replan`` before the agent's
  next move (unless that move is the stop).
* refusal: the refusal suite's literal reader (core/suites/refusal/reference.py): the
  constraint text parsed, checked against the observed scene for the asked call; refuse with
  the first violation's kind, else the mode's answer. Stateless.
* hazards: the rule-based world model (core/suites/hazards/reference.py, via hazards/agent.py)
  on what the situation shows: ``predict_outcome`` from the trigger mechanism and the actions,
  with Annex A's region limits as its own knowledge. Stateless.

Proximity and confidence keep per-episode memory of the observations seen, as the scripted
executives keep their state machines (a window of five frames cannot tell how long the person
has been clear; a SkillAgent's goals persist across skills); alerts is stateless. Observations
of an episode must come in order; decision_index 0 starts the episode afresh.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from alpha_matrix.core.agent.protocol import (
    AgentBackend,
    AgentPrompt,
    AgentProvenance,
    Observation,
    RawAnswer,
    RawToolCall,
)
from alpha_matrix.core.agent.situation import (
    AlertsSituation,
    AmbiguitySituation,
    ConfidenceSituation,
    GaugeSituation,
    ProximitySituation,
    parse_situation,
)
from alpha_matrix.core.agent.tools import skill_arguments, skill_of
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.alerts.policy import (
    Alert,
    AlertClass,
    AlertMonitor,
    AlertPolicy,
    Response,
    Severity,
)
from alpha_matrix.core.suites.confidence.agent import Call, Decision, Goal, Query, SkillAgent, Stop, Task
from alpha_matrix.core.suites.confidence.skills import SceneGeometry, SkillState
from alpha_matrix.core.suites.proximity.policy import PolicyConfig, StopPolicy

BACKEND = "reference"
MODEL = "scripted_v1"  # the scripted executives' rules as of this module


class ReferenceAgentError(AlphaMatrixError):
    """The reference was driven out of protocol (observations out of order, a check unanswered)."""


def _call(name: str, **arguments: Any) -> RawToolCall:
    return RawToolCall(name=name, arguments=arguments)


# ----------------------------------------------------------------------------- gauge
def decide_gauge(obs: Observation, sit: GaugeSituation) -> RawToolCall:
    """The classical reader's answer as it is (no judgement added): from the situation once
    read_gauge brought it, else on the attached image, else ask for it."""
    if sit.reader is None and not obs.images:
        return _call("read_gauge")
    if sit.reader is not None:
        value, reason = sit.reader.value, sit.reader.reason
    else:
        from alpha_matrix.core.suites.gauge.run import read_observation  # OpenCV: only when a gauge is read

        reading = read_observation(obs)
        value, reason = reading.value, reading.reason
    if value is None:
        return _call("cannot_read", reason=reason or "the reader abstained")
    return _call("report_reading", value=round(value, 6), unit=sit.brief.unit)


# ----------------------------------------------------------------------------- proximity
class _Proximity:
    def __init__(self, config: PolicyConfig, threshold: float) -> None:
        self.policy = StopPolicy(replace(config, threshold=threshold))
        self.last_step = -1

    def decide(self, sit: ProximitySituation) -> RawToolCall:
        limit = self.policy.limit()[0]
        for e in sit.estimates:  # frames not fed yet (normally only the current one)
            if e.step > self.last_step:
                d = e.distance_m if e.detected and e.distance_m is not None else math.inf
                limit = self.policy.update(e.step, e.detected, d).limit
                self.last_step = e.step
        now = sit.estimates[-1]
        extra = {"distance_m": now.distance_m} if now.detected and now.distance_m is not None else {}
        if not self.policy.stop_requested:
            return _call("continue_task", **extra)
        seen = f"nearest person at {now.distance_m:.2f} m" if now.distance_m is not None else "nobody seen"
        why = f"{seen}; stop limit {limit:.2f} m (held until clear for {self.policy.config.hold_time_s:g} s)"
        return _call("robot_stop", reason=why, **extra)


# ----------------------------------------------------------------------------- alerts
def _alert(a: Any) -> Alert:
    return Alert(a.alert_id, AlertClass(a.alert_class), Severity(a.severity), a.step, dict(a.payload), source=a.source)


def monitor_before(sit: AlertsSituation, policy: AlertPolicy) -> AlertMonitor:
    """An AlertMonitor under ``policy`` fed every alert and clear received before ``sit.event``."""
    ev = sit.event
    monitor = AlertMonitor(policy)
    before: list[tuple[int, int, int, Alert, bool]] = []
    for i, a in enumerate(sit.alerts):
        if not (ev.kind == "alert" and a.alert_id == ev.alert_id):
            before.append((a.step, 0, i, _alert(a), False))
        if a.cleared_at_step is not None and not (ev.kind == "clear" and a.alert_id == ev.alert_id):
            before.append((a.cleared_at_step, 1, i, _alert(a), True))
    for step, _, _, alert, cleared in sorted(before, key=lambda t: t[:3]):
        if cleared:
            monitor.on_clear(alert.alert_id, step)
        else:
            monitor.on_alert(alert, step)
    return monitor


def event_alert(sit: AlertsSituation) -> Alert:
    """The alert an alert or clear event is about."""
    return next(_alert(a) for a in sit.alerts if a.alert_id == sit.event.alert_id)


def decide_alerts(sit: AlertsSituation, policy: AlertPolicy) -> RawToolCall:
    """The alert monitor's decision on ``sit.event``, from the alerts received before it."""
    ev = sit.event
    monitor = monitor_before(sit, policy)
    if ev.kind == "alert":
        d = monitor.on_alert(event_alert(sit), ev.step)
        if d.action == "stop":
            return _call("robot_stop", reason=d.message)
        return _call("warn_user", message=d.message)
    if ev.kind == "clear":
        d_clear = monitor.on_clear(ev.alert_id, ev.step)
        if d_clear is not None and d_clear.action == "resume":
            return _call("resume")
        if monitor.stopped:
            active = ", ".join(sorted(a for a in monitor.active if monitor.responses[a] == Response.STOP))
            return _call("robot_stop", reason=f"{ev.alert_id} cleared; still stopped for {active}")
        return _call("continue_task")
    command = sit.pending_command or ""
    adm = monitor.admit(command, ev.step)
    if not adm.accepted:
        return _call("refuse_command", reason=f"{adm.reason_code.value}: {adm.message}")
    if sit.robot.stopped:  # the resume is decided but not yet in effect on the robot
        stops_cleared = [
            a for a in sit.alerts
            if a.cleared_at_step is not None and monitor.responses.get(a.alert_id) == Response.STOP
        ]  # fmt: skip
        last = max(stops_cleared, key=lambda a: (a.cleared_at_step or 0, a.alert_id), default=None)
        code = last.alert_class if last is not None else "stopped"
        why = f"{last.alert_id} cleared, the resume is not in effect yet" if last else "the robot is stopped"
        return _call("refuse_command", reason=f"{code}: step {ev.step}: {command} refused: {why}")
    return _call("continue_task")


# ----------------------------------------------------------------------------- confidence
def _state(sit: ConfidenceSituation) -> SkillState:
    s = sit.state
    return SkillState(dict(s.positions), s.holding, s.gripper_width)


def task_of(sit: ConfidenceSituation) -> Task:
    goals = tuple(
        Goal(g.object, tuple(skill_of({"skill": "place", "object": g.object, "target": t}) for t in g.targets))
        for g in sit.brief.goals
    )
    return Task("agent", goals, sit.brief.instruction)


@dataclass
class _Confidence:
    agent: SkillAgent
    decision: Decision
    scores: list[float] = field(default_factory=list)
    asked: str = ""
    last: str = ""  # the tool of the last answer
    calls: int = 0

    @classmethod
    def start(cls, sit: ConfidenceSituation, geo: SceneGeometry, max_attempts: int) -> _Confidence:
        zones = {n: (float(z[0]), float(z[1]), float(z[2])) for n, z in sit.brief.zones.items()}
        agent = SkillAgent(task_of(sit), replace(geo, zones=zones), sit.brief.threshold, max_attempts)
        return cls(agent, agent.observe(_state(sit)))

    def decide(self, sit: ConfidenceSituation) -> RawToolCall:
        if self.last == "check_confidence":
            if not sit.checks or sit.checks[-1].instruction != self.asked:
                raise ReferenceAgentError(f"the check of {self.asked} has no answer in the observation")
            self.scores.append(sit.checks[-1].confidence)
            q = self.decision
            assert isinstance(q, Query)
            if len(self.scores) == len(q.candidates):
                scores, self.scores = self.scores, []
                self.decision = self.agent.on_confidence(scores)
                if not isinstance(self.decision, Stop) and all(s < self.agent.threshold for s in scores):
                    texts = ", ".join(f"{c.text} {s:.2f}" for c, s in zip(q.candidates, scores, strict=True))
                    return self._emit(_call("replan", reason=f"nothing confident ({texts}): planning again"))
        elif self.last == "call_skill":
            if len(sit.calls) != self.calls:
                raise ReferenceAgentError(f"{self.calls} skill calls made, the observation shows {len(sit.calls)}")
            self.decision = self.agent.observe(_state(sit))
        elif self.last == "stop_task":
            raise ReferenceAgentError("asked again after stop_task")
        d = self.decision
        if isinstance(d, Query):
            self.asked = d.candidates[len(self.scores)].text
            return self._emit(_call("check_confidence", **skill_arguments(d.candidates[len(self.scores)])))
        if isinstance(d, Call):
            self.calls += 1
            return self._emit(_call("call_skill", **skill_arguments(d.skill)))
        return self._emit(_call("stop_task", reason=d.reason))

    def _emit(self, call: RawToolCall) -> RawToolCall:
        self.last = call.name
        return call


# ----------------------------------------------------------------------------- the backend
@dataclass
class _Episode:
    key: tuple[str, str]
    index: int
    state: Any


class ReferenceAgent:
    """``AgentBackend``: the scripted reference. ``alerts``/``proximity``/``skills`` are its own
    policy (defaults: the shipped config files' and PolicyConfig's); it never sees a scenario."""

    name = BACKEND

    def __init__(
        self,
        alerts: AlertPolicy | None = None,
        proximity: PolicyConfig | None = None,
        geometry: SceneGeometry | None = None,
        max_attempts: int | None = None,
    ) -> None:
        self._alerts = alerts
        self._proximity = proximity or PolicyConfig()
        self._geometry, self._max_attempts = geometry, max_attempts
        self._episodes: dict[str, _Episode] = {}  # per suite: the episode it is in

    def _alert_policy(self) -> AlertPolicy:
        if self._alerts is None:
            from alpha_matrix.core.suites.alerts.scenarios import load_alert_policy

            self._alerts = load_alert_policy().policy
        return self._alerts

    def _skills(self) -> tuple[SceneGeometry, int]:
        if self._geometry is None or self._max_attempts is None:
            from alpha_matrix.core.suites.confidence.scenarios import load_skills_config

            suite = load_skills_config()
            self._geometry = self._geometry or suite.geometry
            self._max_attempts = self._max_attempts or suite.max_attempts
        return self._geometry, self._max_attempts

    def _episode(self, obs: Observation, sit: Any) -> Any:
        """The suite's per-episode state for ``obs`` (fresh at decision 0 or a new episode)."""
        key = (obs.suite, obs.episode_id)
        ep = self._episodes.get(obs.suite)
        if ep is None or ep.key != key or obs.decision_index == 0:
            if isinstance(sit, ProximitySituation):
                state: Any = _Proximity(self._proximity, sit.brief.threshold_m)
            else:
                state = _Confidence.start(sit, *self._skills())
            ep = self._episodes[obs.suite] = _Episode(key, obs.decision_index, state)
        elif obs.decision_index <= ep.index or (
            isinstance(sit, ConfidenceSituation) and obs.decision_index != ep.index + 1
        ):
            raise ReferenceAgentError(
                f"{obs.episode_id}: decision {obs.decision_index} after decision {ep.index}: observations out of order"
            )
        ep.index = obs.decision_index
        return ep.state

    def decide(self, obs: Observation) -> RawToolCall:
        """The reference's tool call for ``obs`` (raises ReferenceAgentError out of protocol)."""
        try:
            sit = parse_situation(obs)
        except ValueError as err:
            raise ReferenceAgentError(f"{obs.suite}: not a situation the reference knows: {err}") from None
        if isinstance(sit, AlertsSituation):
            return decide_alerts(sit, self._alert_policy())
        if isinstance(sit, GaugeSituation):
            return decide_gauge(obs, sit)
        if sit.suite == "refusal":  # one decision per item and mode: no episode state
            from alpha_matrix.core.suites.refusal.reference import decide as decide_refusal

            return decide_refusal(obs.situation)
        if isinstance(sit, AmbiguitySituation):  # stateless: the resolver counts in the observed scene
            from alpha_matrix.core.suites.ambiguity.reference import decide as decide_ambiguity

            return decide_ambiguity(obs.situation, "reference")
        if sit.suite == "hazards":  # one prediction per scenario: no episode state
            from alpha_matrix.core.suites.hazards.agent import reference_call

            return reference_call(obs.situation)
        state = self._episode(obs, sit)
        return state.decide(sit)

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        t0 = time.perf_counter()
        call = self.decide(obs)
        raw = json.dumps({"tool": call.name, "arguments": call.arguments}, sort_keys=True, separators=(",", ":"))
        return RawAnswer(
            tool_calls=(call,),
            provenance=AgentProvenance(
                backend=BACKEND,
                model=MODEL,
                seed=seed,
                latency_s=time.perf_counter() - t0,
                template_sha256=prompt.template_sha256,
                template_version=prompt.template_version,
                raw_text=raw,
            ),
        )


if TYPE_CHECKING:
    _BACKEND: AgentBackend = ReferenceAgent()  # mypy: the reference satisfies the protocol
