"""The confidence suite's reference decision: SkillAgent over the brief, with per-episode memory.

As core/agent/reference.py says of every suite's: from the observation alone, never the
scenario's truth, and as a native tool call judged like any model's.

* confidence: ``SkillAgent`` (core/suites/confidence/agent.py) over the brief's goals and
  threshold; each query's candidates are checked one call at a time, in order; a query whose
  candidates all scored below the threshold is followed by one ``replan`` before the agent's
  next move (unless that move is the stop).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from alpha_matrix.core.agent.protocol import RawToolCall
from alpha_matrix.core.agent.reference import EpisodicReference, ReferenceAgentError
from alpha_matrix.core.agent.reference import call as _call
from alpha_matrix.core.suites.confidence.agent import Call, Decision, Goal, Query, SkillAgent, Stop, Task
from alpha_matrix.core.suites.confidence.situation import ConfidenceSituation
from alpha_matrix.core.suites.confidence.skills import SceneGeometry, SkillState
from alpha_matrix.core.suites.confidence.tools import skill_arguments, skill_of


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


class ConfidenceReference(EpisodicReference):
    """``geometry``/``max_attempts``: the reference's own (default: the shipped config/skills.yaml's).
    Its decisions must come one after the other: a check's answer is the next observation."""

    consecutive = True

    def __init__(self, geometry: SceneGeometry | None = None, max_attempts: int | None = None) -> None:
        self._geometry, self._max_attempts = geometry, max_attempts

    def _skills(self) -> tuple[SceneGeometry, int]:
        if self._geometry is None or self._max_attempts is None:
            from alpha_matrix.core.suites.confidence.scenarios import load_skills_config

            suite = load_skills_config()
            self._geometry = self._geometry or suite.geometry
            self._max_attempts = self._max_attempts or suite.max_attempts
        return self._geometry, self._max_attempts

    def start(self, situation: Any) -> _Confidence:
        return _Confidence.start(situation, *self._skills())
