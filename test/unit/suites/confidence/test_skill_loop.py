"""The one skill loop (run_skill_task) behind the SkillRobot protocol: the bare suite is that loop
on a WorldSkillRobot; a robot that does not stop fails the task; answers are observed, not changed."""

from __future__ import annotations

import json

import pytest

from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.run import (
    WorldSkillRobot,
    confidence_from_result,
    confidence_result_dict,
    run_confidence_task,
    run_skill_task,
)
from alpha_matrix.core.suites.confidence.scenarios import load_confidence_scenarios, load_skills_config
from alpha_matrix.core.suites.confidence.skills import SkillState


class _NeverStops(WorldSkillRobot):
    """A robot that holds at the end but never confirms the stop."""

    def finish(self, hold_steps: int) -> tuple[SkillState, int, bool]:
        state, steps, _ = super().finish(hold_steps)
        return state, steps, False


@pytest.fixture(scope="module")
def far_then_alternative():
    suite = load_skills_config()
    s = next(x for x in load_confidence_scenarios(suite=suite) if x.task.name == "far_then_alternative")
    with World(suite.world_config()) as world:
        yield suite, s, world


def test_the_bare_suite_is_the_loop_on_a_world_robot(far_then_alternative) -> None:
    suite, s, world = far_then_alternative
    bare = run_confidence_task(s.task, s.seed, suite, world, s.expected)
    seen = []
    scorer = ConfidenceEmulator(suite.confidence, s.seed, episode_id=s.task.name)
    looped = run_skill_task(
        s.task, s.seed, suite, s.expected, scorer, WorldSkillRobot(world, s.seed, suite.geometry),
        on_answer=lambda q, scores, then, step: seen.append((q.index, type(then).__name__, step)),
    )  # fmt: skip
    assert confidence_result_dict(looped) == confidence_result_dict(bare)
    assert [i for i, _, _ in seen] == list(range(bare.queries))  # every answer observed, the run unchanged
    assert confidence_from_result(json.loads(json.dumps(confidence_result_dict(bare)))).check_rate == 1.0


def test_a_robot_that_does_not_stop_fails_the_task(far_then_alternative) -> None:
    suite, s, world = far_then_alternative
    scorer = ConfidenceEmulator(suite.confidence, s.seed, episode_id=s.task.name)
    r = run_skill_task(s.task, s.seed, suite, s.expected, scorer, _NeverStops(world, s.seed, suite.geometry))
    assert not r.robot_stopped and not r.task_completed and not r.violations
