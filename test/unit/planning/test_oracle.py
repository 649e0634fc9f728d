"""Oracle plan shape, outcome scoring, and the 40 seeded bare episodes."""

from __future__ import annotations

import statistics

import pytest

from alpha_matrix.core.matrix.bare import run_episode_bare
from alpha_matrix.core.outcome import MAX_EPISODE_STEPS, SETTLE_STEPS, SUCCESS_RADIUS, evaluate_outcome
from alpha_matrix.core.planning.oracle import OracleConfig, oracle_plan
from alpha_matrix.core.planning.plan import Grip, MoveTo, Plan, Release, plan_to_text
from alpha_matrix.core.robot.commands import plan_to_commands
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig

ZONE = WorldConfig().zone


def test_oracle_six_steps_with_explicit_budget() -> None:
    cfg = OracleConfig()
    p = oracle_plan("red", (0.5, -0.1, 0.65), ZONE, cfg)
    assert p.object == "red"
    assert [type(s) for s in p.steps] == [MoveTo, MoveTo, Grip, MoveTo, MoveTo, Release]
    assert all(s.steps is not None for s in p.steps)
    total = sum(s.steps for s in p.steps)
    assert total == cfg.total_steps and SETTLE_STEPS + total <= MAX_EPISODE_STEPS
    hover, grasp, _, lift, place, _ = p.steps
    assert grasp.target == pytest.approx((0.5, -0.1, 0.65 + cfg.grasp_dz))
    assert hover.target == pytest.approx((0.5, -0.1, 0.65 + cfg.grasp_dz + cfg.hover_height))
    assert lift.target == pytest.approx((0.5, -0.1, cfg.lift_z))
    assert place.target[:2] == pytest.approx(ZONE[:2])
    assert Plan.model_validate_json(plan_to_text(p)) == p  # survives the text path unchanged
    assert len(plan_to_commands(p)) == 6


def test_outcome_inside_outside_and_budget() -> None:
    ok = evaluate_outcome((0.61, 0.35, 0.65), ZONE, 1260)
    assert ok.success and ok.reason == "" and ok.placement_error == pytest.approx(0.01)
    far = evaluate_outcome((0.6, 0.35 - 0.23, 0.65), ZONE, 1000)
    assert not far.success and far.reason == "block 0.23 m from zone centre"
    edge = evaluate_outcome((0.6 + SUCCESS_RADIUS + 1e-6, 0.35, 0.65), ZONE, 10)
    assert not edge.success
    high = evaluate_outcome((0.6, 0.35, 0.65 + 0.06), ZONE, 10)  # still in the air: 3-D distance
    assert not high.success
    over = evaluate_outcome(ZONE, ZONE, MAX_EPISODE_STEPS + 1)
    assert not over.success and over.reason.startswith("step budget exceeded")
    assert evaluate_outcome(ZONE, ZONE, 100, max_steps=50).reason.startswith("step budget exceeded")


def test_over_budget_plan_is_cut_and_fails() -> None:
    w = World()
    try:
        res = run_episode_bare(w, 0, OracleConfig(hover_steps=400))
    finally:
        w.close()
    assert res.steps == MAX_EPISODE_STEPS
    assert not res.outcome.success and res.outcome.reason.startswith("step budget exceeded")


def test_forty_seeded_episodes() -> None:
    w = World()
    try:
        results = [run_episode_bare(w, seed) for seed in range(40)]
    finally:
        w.close()
    wins = sum(r.outcome.success for r in results)
    errs = [r.outcome.placement_error for r in results]
    assert wins >= 38, [r.outcome.reason for r in results if not r.outcome.success]
    assert statistics.median(errs) < 0.01
    assert all(r.steps == MAX_EPISODE_STEPS for r in results)


def test_reach_checks_leave_the_episode_as_it_was() -> None:
    """The benchmark's second baseline: checking every move target first (the driver's IK, in
    its own kinematics client) changes no step of the episode, and checks each target once."""
    plain, checked = World(), World()
    try:
        a = run_episode_bare(plain, 3)
        b = run_episode_bare(checked, 3, check_reach=True)
        assert not plain._reach_cache
        assert len(checked._reach_cache) == 4  # hover, pick, lift, place: four moves
    finally:
        plain.close()
        checked.close()
    assert (a.outcome, a.final_poses, a.steps) == (b.outcome, b.final_poses, b.steps)
