"""Bare evaluation of confidence gating: a multi-step task on a real World, no ROS.

The loop is the one a ROS executive runs, with the service calls replaced by direct calls:
agent decision -> (emulator | skill compiled to commands on the physics) -> next frame. The
ledger sees every emulator answer and every call before it runs, and refuses a call that
breaks the rules (it is never executed; the episode fails). Goals are judged physically from
the final poses, after the robot has been stopped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from alpha_matrix.core.outcome import SETTLE_STEPS
from alpha_matrix.core.robot.commands import plan_to_commands, start_command
from alpha_matrix.core.sim.sample import StepSample
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.confidence.agent import Call, ConfidenceLedger, Query, SkillAgent, Stop, Task
from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.scenarios import ConfidenceScenario, SkillsSuite
from alpha_matrix.core.suites.confidence.skills import (
    SceneGeometry,
    Skill,
    SkillState,
    compile_skill,
    infer_holding,
    place_target,
)
from alpha_matrix.core.suites.confidence.skills import skill_succeeded as _succeeded

STOP_HOLD_STEPS = 60  # settle after the final stop before the poses are judged


class Scorer(Protocol):
    def confidences(self, candidates: Sequence[Skill], state: SkillState, query_index: int) -> list[float]: ...


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


def observe_state(world: World, sample: StepSample, geo: SceneGeometry) -> SkillState:
    """What the policy sees after a skill: positions, finger opening, and what they hold."""
    positions = {n: tuple(float(c) for c in pose[0]) for n, pose in world.object_poses().items()}
    width = float(sample.joint_positions[-2] + sample.joint_positions[-1])
    grasp = tuple(float(c) for c in sample.grasp_position)
    return SkillState(positions, infer_holding(positions, grasp, width, geo), width)


def _run_until_idle(world: World) -> StepSample:
    sample = world.step()
    while world.busy:
        sample = world.step()
    return sample


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
    t0 = time.perf_counter()
    own = world is None
    world = world or World(suite.world_config())
    try:
        return _run(task, seed, suite, world, expected or {}, scorer, agent, t0)
    finally:
        if own:
            world.close()


def _run(task, seed, suite, world, expected, scorer, agent, t0) -> ConfidenceResult:  # noqa: ANN001
    geo, cfg = suite.geometry, suite.confidence
    scorer = scorer or ConfidenceEmulator(cfg, seed, episode_id=task.name)
    agent = agent or SkillAgent(task, geo, cfg.threshold, suite.max_attempts)
    ledger = ConfidenceLedger(cfg.threshold)
    world.reset(seed)
    world.start_hold(SETTLE_STEPS)
    sample = _run_until_idle(world)
    state = observe_state(world, sample, geo)
    decision = agent.observe(state)
    rows: list[SubStepRow] = []
    while not isinstance(decision, Stop):
        if isinstance(decision, Query):
            scores = scorer.confidences(decision.candidates, decision.state, decision.index)
            ledger.record_query([c.text for c in decision.candidates], scores, decision.hypothetical)
            decision = agent.on_confidence(scores)
            continue
        assert isinstance(decision, Call)
        row, sample = _execute(task.name, seed, len(rows), decision, state, world, geo, ledger)
        rows.append(row)
        if row.violation:
            decision = Stop(f"rule violation: {row.violation}")
            break
        state = observe_state(world, sample, geo)
        ledger.skill_finished()
        decision = agent.observe(state)
    # Always stop the robot at the end: hold, then a protective stop that refuses further motion.
    world.start_hold(STOP_HOLD_STEPS)
    sample = _run_until_idle(world)
    world.protective_stop()
    ledger.record_stop()
    final = observe_state(world, sample, geo)
    achieved = {
        g.obj: any(_succeeded(t, place_target(t, final, geo), final, geo) for t in g.targets) for g in task.goals
    }
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
        world.stopped,
        world.step_count,
        time.perf_counter() - t0,
    )


def _execute(name, seed, index, call, state, world, geo, ledger) -> tuple[SubStepRow, StepSample | None]:  # noqa: ANN001
    start = world.step_count + 1
    violation = ledger.admit(call.skill.text)
    if violation:
        return SubStepRow(
            name,
            seed,
            index,
            call.skill.text,
            call.query_index,
            call.confidence,
            call.rank,
            start,
            start - 1,
            False,
            violation,
        ), None
    target = place_target(call.skill, state, geo)
    sample = None
    for cmd in plan_to_commands(compile_skill(call.skill, state, geo)):
        start_command(world, cmd)
        sample = _run_until_idle(world)
    after = observe_state(world, sample, geo)
    ok = _succeeded(call.skill, target, after, geo)
    row = SubStepRow(
        name,
        seed,
        index,
        call.skill.text,
        call.query_index,
        call.confidence,
        call.rank,
        start,
        world.step_count,
        ok,
        "",
    )
    return row, sample


def run_confidence_suite(scenarios: Sequence[ConfidenceScenario], suite: SkillsSuite) -> list[ConfidenceResult]:
    """Every scenario on one shared World (reset per task: history-independent)."""
    with World(suite.world_config()) as world:
        return [run_confidence_task(s.task, s.seed, suite, world, s.expected) for s in scenarios]


def summarize(results: Sequence[ConfidenceResult]) -> dict[str, float | int]:
    """Suite metrics (seed 003 §4): task completion, confidence-check rate, sub-step completion."""
    calls = sum(r.calls for r in results)
    rows = [row for r in results for row in r.rows]
    return {
        "tasks": len(results),
        "task_completion": sum(r.task_completed for r in results) / max(1, len(results)),
        "skill_calls": calls,
        "confidence_check_rate": sum(r.checked for r in results) / calls if calls else 1.0,
        "calls_below_threshold": sum(r.below_threshold for r in results),
        "rule_violations": sum(len(r.violations) for r in results),
        "substep_completion": sum(row.succeeded for row in rows) / max(1, len(rows)),
        "replanned_calls": sum(row.rank > 0 for row in rows),
        "queries": sum(r.queries for r in results),
        "robot_stopped_at_end": sum(r.robot_stopped for r in results),
    }
