"""Skill grammar, compilation onto the oracle's motion, and pose-only state judgements."""

from __future__ import annotations

import pytest

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.planning.oracle import OracleConfig, oracle_plan
from alpha_matrix.core.planning.plan import Grip, MoveTo, Release
from alpha_matrix.core.suites.confidence.skills import (
    SceneGeometry,
    SkillError,
    SkillState,
    block_on_top,
    compile_skill,
    infer_holding,
    parse_skill,
    pick,
    place,
    place_target,
    skill_succeeded,
)

GEO = SceneGeometry(zones={"zone_a": (0.6, 0.35, 0.65)})
STATE = SkillState({"red": (0.5, -0.1, 0.65), "blue": (0.45, 0.1, 0.65)})


@pytest.mark.parametrize(
    "text", ["pick(red)", "place(red, zone_a)", "place(red, on=blue)", "place(red, at=(0.512, -0.103))"]
)
def test_text_round_trip(text: str) -> None:
    assert parse_skill(text).text == text
    assert parse_skill(text.replace(", ", ",")) == parse_skill(text)


@pytest.mark.parametrize("text", ["grab(red)", "pick(red, blue)", "place(red)", "place(red, on=)", "pick(Red)", ""])
def test_bad_instructions_raise(text: str) -> None:
    with pytest.raises(SkillError, match="not a skill instruction"):
        parse_skill(text)


def test_place_needs_exactly_one_target() -> None:
    with pytest.raises(SkillError):
        place("red", "zone_a", on="blue")
    with pytest.raises(SkillError):
        place("red")
    assert issubclass(SkillError, AlphaMatrixError) and issubclass(SkillError, ValueError)  # old handlers still match


def test_pick_and_place_reuse_the_oracle_geometry() -> None:
    cfg = OracleConfig()
    full = oracle_plan("red", STATE.positions["red"], GEO.zones["zone_a"], cfg)
    p = compile_skill(pick("red"), STATE, GEO)
    assert list(p.steps) == list(full.steps[:4])
    holding = SkillState(STATE.positions, holding="red", gripper_width=0.05)
    q = compile_skill(place("red", "zone_a"), holding, GEO)
    assert list(q.steps[:2]) == list(full.steps[4:])
    assert [type(s) for s in q.steps] == [MoveTo, Release, MoveTo]
    assert q.steps[2].target == pytest.approx((0.6, 0.35, cfg.lift_z))
    assert isinstance(p.steps[2], Grip)


def test_stack_target_is_one_block_above_the_support() -> None:
    t = place_target(place("red", on="blue"), STATE, GEO)
    assert t == pytest.approx((0.45, 0.1, 0.70))
    assert place_target(place("red", on="ghost"), STATE, GEO) is None
    with pytest.raises(SkillError, match="unknown place target"):
        compile_skill(place("red", "nowhere"), STATE, GEO)


def test_on_top_holding_and_success_from_poses() -> None:
    stacked = SkillState({"blue": (0.45, 0.1, 0.65), "red": (0.451, 0.1, 0.70)})
    assert block_on_top("blue", stacked, GEO) == "red"
    assert block_on_top("red", stacked, GEO) is None
    grasp = (0.5, -0.1, 0.645)
    assert infer_holding(STATE.positions, grasp, 0.05, GEO) == "red"
    assert infer_holding(STATE.positions, grasp, 0.08, GEO) is None  # fingers open: not holding
    assert skill_succeeded(pick("red"), None, SkillState(STATE.positions, "red", 0.05), GEO)
    done = SkillState({"red": (0.61, 0.35, 0.65)})
    assert skill_succeeded(place("red", "zone_a"), GEO.zones["zone_a"], done, GEO)
    assert not skill_succeeded(place("red", "zone_a"), GEO.zones["zone_a"], STATE, GEO)
