"""core/robot/plan_execution.py: the executive's decisions, without a robot."""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from alpha_matrix.core.planning.oracle import oracle_plan
from alpha_matrix.core.planning.plan import PlanError, plan_to_text
from alpha_matrix.core.robot.commands import Command, StepDefaults
from alpha_matrix.core.robot.plan_execution import (
    Aborted,
    Progress,
    check_reach,
    checked_plan,
    follow_object,
    split_at_grasp,
)

SCENE = {"red": (0.5, 0.1, 0.65), "blue": (0.4, -0.2, 0.65)}
ZONE = (0.55, -0.3, 0.65)


def test_a_plan_from_text_or_data_gives_the_same_commands() -> None:
    plan = oracle_plan("red", SCENE["red"], ZONE)
    from_text, cmds = checked_plan(plan_to_text(plan), None, SCENE, 0.03, StepDefaults())
    from_data, same = checked_plan(None, plan.model_dump(mode="json"), SCENE, 0.03, StepDefaults())
    assert from_text == from_data and cmds == same and cmds[0].kind == "move"


def test_schema_and_scene_errors_are_plan_errors() -> None:
    with pytest.raises(PlanError) as err:
        checked_plan("not json", None, SCENE, 0.03, StepDefaults())
    assert err.value.kind == "json"
    plan = oracle_plan("red", (0.9, 0.9, 0.65), ZONE)  # grasps where no block is
    with pytest.raises(PlanError) as err:
        checked_plan(None, plan.model_dump(mode="json"), SCENE, 0.03, StepDefaults())
    assert err.value.kind == "semantic"


def test_the_first_refused_target_makes_the_plan_invalid() -> None:
    check_reach([NS(accepted=True, message="")])
    with pytest.raises(PlanError, match="out of reach") as err:
        check_reach([NS(accepted=True, message=""), NS(accepted=False, message="out of reach")])
    assert err.value.kind == "semantic"


def test_closed_loop_splits_at_the_grasp_move_and_follows_the_block() -> None:
    cmds = [
        Command("move", 240, target=(0.5, 0.1, 0.8)),
        Command("move", 240, target=(0.5, 0.1, 0.66)),
        Command("gripper", 60, width=0.0, force=20.0),
    ]
    before, rest = split_at_grasp(cmds)
    assert before == cmds[:1] and rest == cmds[1:]
    moved = follow_object(rest[0], "red", SCENE, {"red": (0.56, 0.08, 0.65)})
    assert moved.target == pytest.approx((0.56, 0.08, 0.66)) and moved.steps == 240
    with pytest.raises(Aborted, match="does not see 'red'"):
        follow_object(rest[0], "red", SCENE, {})
    with pytest.raises(PlanError, match="no move followed by a grip"):
        split_at_grasp(cmds[:2])


def test_progress_counts_plan_steps_and_a_cancel_ends_the_plan() -> None:
    progress = Progress()
    progress.command_ended(Command("move", 240, source_index=0), 360, True, "")
    progress.command_ended(Command("move", 240, source_index=1), 600, True, "")
    assert (progress.final_step, progress.actions_completed) == (600, 2)
    with pytest.raises(Aborted) as err:
        progress.command_ended(Command("gripper", 60, source_index=2), 640, False, "protective stop")
    assert (err.value.kind, err.value.reason) == ("cancelled", "gripper cancelled at step 640: protective stop")
    assert (progress.final_step, progress.actions_completed) == (640, 2)
