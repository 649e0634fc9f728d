"""The confidence-gated skill loop, once, over any robot: a World here, the ROS graph in skill_executive.

``run_skill_task`` is the loop a ROS executive runs: agent decision -> (scorer | skill compiled to
commands on the robot) -> next frame. The ledger sees every answer and every call before it
runs, and refuses a call that breaks the rules (it is never executed; the episode fails). The
robot is always stopped at the end; goals are judged physically from the final poses.

The robot is a ``SkillRobot``: ``WorldSkillRobot`` on a bare World (the bare suite,
``run_confidence_task``), or the executive's robot behind the driver contract. The scorer is a
``Scorer``: the ``ConfidenceEmulator`` directly, or the skill_confidence service.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from alpha_matrix.core.outcome import SETTLE_STEPS
from alpha_matrix.core.planning.plan import Plan
from alpha_matrix.core.robot.commands import plan_to_commands, start_command
from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.confidence.agent import Call, ConfidenceLedger, Decision, Query, SkillAgent, Stop, Task
from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.scenarios import ConfidenceScenario, SkillsSuite
from alpha_matrix.core.suites.confidence.skills import (
    SceneGeometry,
    Skill,
    SkillState,
    Vec3,
    compile_skill,
    goal_achieved,
    infer_holding,
    place_target,
    skill_succeeded,
)

STOP_HOLD_STEPS = 60  # settle after the final stop before the poses are judged


class Scorer(Protocol):
    def confidences(
        self, candidates: Sequence[Skill], state: SkillState, query_index: int, hypothetical: bool = False
    ) -> list[float]: ...


class SkillRobot(Protocol):
    """What the skill loop needs from the robot: the driver contract, seen as skill frames."""

    def start(self) -> tuple[SkillState, int]: ...  # reset + settle: (state, step)

    def execute(self, plan: Plan) -> tuple[SkillState, int]: ...  # run the commands: (state after, last step)

    def finish(self, hold_steps: int) -> tuple[SkillState, int, bool]: ...  # hold, then stop: (state, steps, stopped)


@dataclass(frozen=True)
class SubStepRow:
    """One skill call: what was asked, how sure the policy was, and what the physics did."""

    task: str
    seed: int
    index: int
    instruction: str
    query_index: int
    confidence: float
    rank: int  # 0 = the agent's first choice; > 0 = it re-planned past unsure candidates
    start_step: int
    end_step: int
    succeeded: bool
    violation: str  # "" unless the ledger refused the call


@dataclass(frozen=True)
class ConfidenceResult:
    task: str
    seed: int
    rows: tuple[SubStepRow, ...]
    goal_status: dict[str, str]  # agent's view: done / skipped / failed / pending
    achieved: dict[str, bool]  # physical, from the final poses
    expected: dict[str, bool]
    queries: int
    calls: int
    checked: int
    below_threshold: int
    violations: tuple[str, ...]
    stop_reason: str
    robot_stopped: bool
    steps: int
    wall_time_s: float

    @property
    def task_completed(self) -> bool:
        """No rule broken, the robot stopped, and every goal expected to be achievable achieved."""
        ok = not self.violations and self.robot_stopped
        return ok and all(self.achieved.get(o, False) for o, want in self.expected.items() if want)

    @property
    def check_rate(self) -> float:
        return self.checked / self.calls if self.calls else 1.0

    @property
    def substeps_completed(self) -> int:
        return sum(r.succeeded for r in self.rows)


def confidence_result_dict(r: ConfidenceResult) -> dict[str, Any]:
    """The result as a record (``suite/result``): everything but the wall time."""
    d = asdict(r)
    del d["wall_time_s"]
    return d


def confidence_from_result(d: dict[str, Any]) -> ConfidenceResult:
    rows = tuple(SubStepRow(**r) for r in d["rows"])
    fields = {k: v for k, v in d.items() if k not in ("rows", "agent")}  # the agent part: agent_score.py's
    fields["violations"] = tuple(fields["violations"])
    return ConfidenceResult(rows=rows, wall_time_s=0.0, **fields)


# ----------------------------------------------------------------------------- the loop
def run_skill_task(
    task: Task,
    seed: int,
    suite: SkillsSuite,
    expected: dict[str, bool],
    scorer: Scorer,
    robot: SkillRobot,
    hold_steps: int = STOP_HOLD_STEPS,
    agent: SkillAgent | None = None,
    on_answer: Callable[[Query, list[float], Decision, int], None] | None = None,
) -> ConfidenceResult:
    """Run ``task`` with the gating agent on ``robot``, every query answered by ``scorer``.

    Every query goes to ``scorer`` and into the ledger; every call passes the ledger before it is
    compiled and executed; the robot is always stopped at the end; goals are judged physically.
    ``on_answer(query, scores, next decision, step)`` sees every answer and what the agent made of
    it (the executive records them on skill/queries); it cannot change the run.
    """
    t0 = time.perf_counter()
    geo, cfg = suite.geometry, suite.confidence
    agent = agent or SkillAgent(task, geo, cfg.threshold, suite.max_attempts)
    ledger = ConfidenceLedger(cfg.threshold)
    state, step = robot.start()
    decision = agent.observe(state)
    rows: list[SubStepRow] = []
    while not isinstance(decision, Stop):
        if isinstance(decision, Query):
            scores = scorer.confidences(decision.candidates, decision.state, decision.index, decision.hypothetical)
            ledger.record_query([c.text for c in decision.candidates], scores, decision.hypothetical)
            query, decision = decision, agent.on_confidence(scores)
            if on_answer is not None:
                on_answer(query, list(scores), decision, step)
            continue
        assert isinstance(decision, Call)
        call, start = decision, step + 1
        violation = ledger.admit(call.skill.text)
        if violation:
            rows.append(
                SubStepRow(
                    task.name, seed, len(rows), call.skill.text, call.query_index, call.confidence, call.rank,
                    start, step, False, violation,
                )
            )  # fmt: skip
            decision = Stop(f"rule violation: {violation}")
            break
        target = place_target(call.skill, state, geo)
        state, step = robot.execute(compile_skill(call.skill, state, geo))
        ok = skill_succeeded(call.skill, target, state, geo)
        rows.append(
            SubStepRow(
                task.name, seed, len(rows), call.skill.text, call.query_index, call.confidence, call.rank,
                start, step, ok, "",
            )
        )  # fmt: skip
        ledger.skill_finished()
        decision = agent.observe(state)
    final, steps, stopped = robot.finish(hold_steps)
    if stopped:
        ledger.record_stop()
    achieved = {g.obj: goal_achieved(g.targets, final, geo) for g in task.goals}
    return ConfidenceResult(
        task.name,
        seed,
        tuple(rows),
        {g.goal.obj: g.status.value for g in agent.goals},
        achieved,
        dict(expected),
        ledger.queries,
        ledger.calls,
        ledger.checked,
        ledger.below_threshold,
        tuple(ledger.violations),
        decision.reason,
        stopped,
        steps,
        time.perf_counter() - t0,
    )


# ----------------------------------------------------------------------------- on a bare World
def _vec3(v: Iterable[float]) -> Vec3:
    x, y, z = (float(c) for c in v)
    return (x, y, z)


def observe_state(world: World, sample: StepSample, geo: SceneGeometry) -> SkillState:
    """What the policy sees after a skill: positions, finger opening, and what they hold."""
    positions = {n: _vec3(pose[0]) for n, pose in world.object_poses().items()}
    width = float(sample.joint_positions[-2] + sample.joint_positions[-1])
    grasp = _vec3(sample.grasp_position)
    return SkillState(positions, infer_holding(positions, grasp, width, geo), width)


class WorldSkillRobot:
    """``SkillRobot`` on a bare World: every command run to completion, the stop applied at once."""

    def __init__(self, world: World, seed: int, geo: SceneGeometry) -> None:
        self.world, self.seed, self.geo = world, seed, geo

    def _idle(self) -> SkillState:
        sample = self.world.step()
        while self.world.busy:
            sample = self.world.step()
        return observe_state(self.world, sample, self.geo)

    def start(self) -> tuple[SkillState, int]:
        self.world.reset(self.seed)
        self.world.start_hold(SETTLE_STEPS)
        return self._idle(), self.world.step_count

    def execute(self, plan: Plan) -> tuple[SkillState, int]:
        state = None
        for cmd in plan_to_commands(plan):
            start_command(self.world, cmd)
            state = self._idle()
        assert state is not None
        return state, self.world.step_count

    def finish(self, hold_steps: int) -> tuple[SkillState, int, bool]:
        self.world.start_hold(hold_steps)
        state = self._idle()
        self.world.protective_stop()  # a protective stop that refuses further motion
        return state, self.world.step_count, self.world.stopped


def run_confidence_task(
    task: Task,
    seed: int,
    suite: SkillsSuite,
    world: World | None = None,
    expected: dict[str, bool] | None = None,
    scorer: Scorer | None = None,
    agent: SkillAgent | None = None,
) -> ConfidenceResult:
    """Execute ``task`` with the gating agent on a freshly reset world (one is made if not given).

    ``scorer`` and ``agent`` replace the emulator and the agent (tests: a rogue agent must fail).
    """
    own = world is None
    world = world or World(suite.world_config())
    try:
        scorer = scorer or ConfidenceEmulator(suite.confidence, seed, episode_id=task.name)
        robot = WorldSkillRobot(world, seed, suite.geometry)
        return run_skill_task(task, seed, suite, expected or {}, scorer, robot, agent=agent)
    finally:
        if own:
            world.close()


def run_confidence_suite(scenarios: Sequence[ConfidenceScenario], suite: SkillsSuite) -> list[ConfidenceResult]:
    """Every scenario on one shared World (reset per task: history-independent)."""
    with World(suite.world_config()) as world:
        return [run_confidence_task(s.task, s.seed, suite, world, s.expected) for s in scenarios]
