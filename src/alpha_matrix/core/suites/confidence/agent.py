"""The executive's confidence gate as a pure state machine, and the ledger that audits it.

Rules: check confidence before every skill call, never call below threshold,
re-plan when the chosen sub-task is unsure, stop the robot at the end. The agent is driven
frame-in/decision-out so a ROS node only converts messages:

    decision = agent.observe(state)          # robot idle: at start and after every skill
    decision = agent.on_confidence(scores)   # the answer to the last Query

and a decision is ``Query`` (ask the emulator), ``Call`` (run one skill) or ``Stop`` (stop the
robot; the last decision of every episode). ``ConfidenceLedger`` checks the rules from the
emulator's own answers, independently of the agent, so a faulty agent is caught, not trusted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.confidence.skills import (
    SceneGeometry,
    Skill,
    SkillState,
    Vec3,
    goal_achieved,
    pick,
    place,
    place_target,
    skill_succeeded,
)


@dataclass(frozen=True)
class Goal:
    """Move ``obj`` to the first feasible of ``targets`` (place skills, in order of preference)."""

    obj: str
    targets: tuple[Skill, ...]

    @property
    def text(self) -> str:
        return f"{self.obj} -> " + " | ".join(t.text.split(", ", 1)[1][:-1] for t in self.targets)


@dataclass(frozen=True)
class Task:
    name: str
    goals: tuple[Goal, ...]
    instruction: str = ""


@dataclass(frozen=True)
class Query:
    index: int
    candidates: tuple[Skill, ...]
    state: SkillState
    hypothetical: bool  # a look-ahead on a predicted state: never a check for a call
    purpose: str  # pick | lookahead | place | putback


@dataclass(frozen=True)
class Call:
    skill: Skill
    query_index: int
    confidence: float
    rank: int  # position of the skill among the query's candidates (0 = first choice)


@dataclass(frozen=True)
class Stop:
    reason: str


Decision = Query | Call | Stop


class GoalStatus(StrEnum):
    PENDING = "pending"
    DONE = "done"
    SKIPPED = "skipped"  # below threshold: never attempted, or put back
    FAILED = "failed"  # attempted, the physics did not cooperate


@dataclass
class _Goal:
    goal: Goal
    status: GoalStatus = GoalStatus.PENDING
    attempts: int = 0
    low_at: int = -1  # version at which it last scored below threshold
    note: str = ""


class AgentError(AlphaMatrixError, RuntimeError):
    """The driver called the agent out of protocol (a bug in the wrapper, not in the robot)."""


class SkillAgent:
    def __init__(self, task: Task, geometry: SceneGeometry, threshold: float, max_attempts: int = 2) -> None:
        self.task, self.geo, self.threshold, self.max_attempts = task, geometry, threshold, max_attempts
        self.goals = [_Goal(g) for g in task.goals]
        self.version = 0  # skills finished so far: a check is valid only within one version
        self.stopped = False
        self.state: SkillState | None = None
        self._query: Query | None = None
        self._n_queries = 0
        self._call: Call | None = None
        self._call_target: Vec3 | None = None
        self._pick_query: Query | None = None
        self._pick_queue: list[tuple[int, float]] = []  # (candidate index, score) of confident picks
        self._pick_chosen: tuple[int, float] = (0, 0.0)
        self._origin: dict[str, tuple[float, float]] = {}
        self.results: list[tuple[str, bool]] = []  # (instruction, physically succeeded)

    @property
    def pending(self) -> Query | None:
        """The query awaiting its answer (what a scorer is being asked), else None."""
        return self._query

    # ------------------------------------------------------------------ frames in
    def observe(self, state: SkillState) -> Decision:
        if self.stopped or self._query is not None:
            raise AgentError("observe() while stopped or while a query is unanswered")
        self.state = state
        if self._call is not None:
            self._finish_call(state, self._call)
        for g in self._pending():
            if state.holding != g.goal.obj and self._achieved(g.goal, state):
                g.status, g.note = GoalStatus.DONE, "achieved"
        if state.holding is not None:
            held = self._goal_of(state.holding)
            if held is not None and held.status == GoalStatus.PENDING:
                return self._ask(held.goal.targets, state, "place")
            return self._ask((self._putback(state.holding),), state, "putback")
        return self._plan_pick()

    def on_confidence(self, scores: Sequence[float]) -> Decision:
        q = self._query
        if q is None or len(scores) != len(q.candidates):
            raise AgentError("on_confidence() without a query, or with the wrong number of scores")
        self._query = None
        ok = [i for i, s in enumerate(scores) if s >= self.threshold]
        if q.purpose == "pick":
            for i, cand in enumerate(q.candidates):
                if i not in ok:
                    self._goal(cand.obj).low_at = self.version
            self._pick_query, self._pick_queue = q, [(i, scores[i]) for i in ok]
            return self._next_lookahead()
        if q.purpose == "lookahead":
            obj = q.candidates[0].obj
            if not ok:
                self._goal(obj).low_at = self.version
                return self._next_lookahead()
            i, s = self._pick_chosen
            self._origin[obj] = self._observed().positions[obj][:2]
            picks = self._picks()
            return self._start(Call(picks.candidates[i], picks.index, s, i))
        if ok:
            i = ok[0]
            return self._start(Call(q.candidates[i], q.index, scores[i], i))
        if q.purpose == "place":
            return self._ask((self._putback(q.candidates[0].obj),), q.state, "putback")
        return self._stop(f"holding {q.candidates[0].obj} with no confident place: aborting")

    # ------------------------------------------------------------------ internals
    def _pending(self) -> list[_Goal]:
        return [g for g in self.goals if g.status == GoalStatus.PENDING]

    def _goal_of(self, obj: str) -> _Goal | None:
        return next((g for g in self.goals if g.goal.obj == obj and g.status == GoalStatus.PENDING), None) or next(
            (g for g in self.goals if g.goal.obj == obj), None
        )

    def _goal(self, obj: str) -> _Goal:
        """The goal of a candidate's object: every candidate comes from a goal."""
        g = self._goal_of(obj)
        if g is None:
            raise AgentError(f"no goal moves {obj!r}")
        return g

    def _observed(self) -> SkillState:
        """The state of the last observe(): every query and call follows one."""
        if self.state is None:
            raise AgentError("no state observed yet")
        return self.state

    def _picks(self) -> Query:
        """The pick query whose confident candidates are being looked ahead."""
        if self._pick_query is None:
            raise AgentError("a look-ahead without a pick query")
        return self._pick_query

    def _ready(self, goal: Goal) -> bool:
        """Stacking waits until the block below will not move again (its own goal is settled)."""
        busy = {g.goal.obj for g in self._pending()}
        return all(t.on is None or t.on not in busy for t in goal.targets)

    def _achieved(self, goal: Goal, state: SkillState) -> bool:
        return goal_achieved(goal.targets, state, self.geo)

    def _putback(self, obj: str) -> Skill:
        xy = self._origin.get(obj) or self._observed().positions[obj][:2]
        return place(obj, at=xy)

    def _ask(self, candidates: tuple[Skill, ...], state: SkillState, purpose: str, hypothetical: bool = False) -> Query:
        self._query = Query(self._n_queries, candidates, state, hypothetical, purpose)
        self._n_queries += 1
        return self._query

    def _plan_pick(self) -> Decision:
        for _ in range(2):
            ready = [g for g in self._pending() if g.low_at != self.version and self._ready(g.goal)]
            if ready:
                return self._ask(tuple(pick(g.goal.obj) for g in ready), self._observed(), "pick")
            # Nothing left to try in this state, and nothing will change it: the unsure goals are
            # skipped, which may free goals that were waiting to stack on them.
            for g in self._pending():
                if g.low_at == self.version:
                    g.status, g.note = GoalStatus.SKIPPED, "below threshold"
        if not self._pending():
            return self._stop("every goal settled")
        for g in self._pending():
            g.status, g.note = GoalStatus.SKIPPED, "waits on a skipped goal"
        return self._stop("no confident sub-task left")

    def _next_lookahead(self) -> Decision:
        if not self._pick_queue:
            return self._plan_pick()
        self._pick_chosen = self._pick_queue.pop(0)
        obj = self._picks().candidates[self._pick_chosen[0]].obj
        now = self._observed()
        x, y, _ = now.positions[obj]
        lifted = {**now.positions, obj: (x, y, 0.80)}
        predicted = replace(now, positions=lifted, holding=obj, gripper_width=self.geo.size)
        return self._ask(self._goal(obj).goal.targets, predicted, "lookahead", hypothetical=True)

    def _start(self, call: Call) -> Call:
        self._call = call
        self._call_target = place_target(call.skill, self._observed(), self.geo)
        return call

    def _finish_call(self, state: SkillState, call: Call) -> None:
        self._call = None
        self.version += 1
        g = self._goal_of(call.skill.obj)
        ok = skill_succeeded(call.skill, self._call_target, state, self.geo)
        self.results.append((call.skill.text, ok))
        if g is None or g.status != GoalStatus.PENDING:
            return
        if call.skill.at is not None:  # a put-back ends the goal
            g.status, g.note = GoalStatus.SKIPPED, "put back: no confident place"
        elif call.skill.verb == "place" and ok:
            g.status, g.note = GoalStatus.DONE, "achieved"
        elif not ok:
            g.attempts += 1
            if g.attempts >= self.max_attempts:
                g.status, g.note = GoalStatus.FAILED, f"{call.skill.text} failed {g.attempts} times"

    def _stop(self, reason: str) -> Stop:
        self.stopped = True
        return Stop(reason)


@dataclass
class ConfidenceLedger:
    """Audits skill calls against the emulator's answers, independently of the agent.

    A call is *checked* when a real-state query since the last skill finished scored exactly that
    instruction; it is *below threshold* when that latest score is under the threshold. Either
    breach is a rule violation and fails the episode; so does a missing final stop.
    """

    threshold: float
    calls: int = 0
    checked: int = 0
    below_threshold: int = 0
    queries: int = 0
    violations: list[str] = field(default_factory=list)
    stopped: bool = False
    _scores: dict[str, float] = field(default_factory=dict)

    def record_query(self, candidates: Sequence[str], scores: Sequence[float], hypothetical: bool) -> None:
        self.queries += 1
        if not hypothetical:
            self._scores.update(zip(candidates, scores, strict=True))

    def admit(self, instruction: str) -> str:
        """Record a skill call; '' when it respects the rules, else the violation (do not execute)."""
        self.calls += 1
        score = self._scores.get(instruction)
        if score is None:
            why = f"{instruction}: called without a confidence check"
        elif score < self.threshold:
            self.checked += 1
            self.below_threshold += 1
            why = f"{instruction}: confidence {score:.3f} below threshold {self.threshold:.3f}"
        else:
            self.checked += 1
            return ""
        self.violations.append(why)
        return why

    def skill_finished(self) -> None:
        self._scores.clear()

    def record_stop(self) -> None:
        self.stopped = True

    @property
    def check_rate(self) -> float:
        return self.checked / self.calls if self.calls else 1.0

    @property
    def passed(self) -> bool:
        return self.stopped and not self.violations
