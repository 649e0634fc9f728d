"""The VLA-confidence emulator: distribution, feasibility, seeded noise, reach envelope."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator
from alpha_matrix.core.suites.confidence.scenarios import load_skills_config
from alpha_matrix.core.suites.confidence.skills import SkillState

SUITE = load_skills_config()
CFG = SUITE.confidence
POS = {"red": (0.5, -0.1, 0.65), "green": (0.6, 0.05, 0.65), "blue": (0.45, 0.1, 0.65), "yellow": (0.65, -0.25, 0.65)}
FREE = SkillState(dict(POS), None, 0.08)
HOLD_RED = SkillState({**POS, "red": (0.5, -0.1, 0.80)}, "red", 0.05)


def conf(text: str, state: SkillState, seed: int = 1, q: int = 0) -> float:
    return ConfidenceEmulator(CFG, seed, "t").confidences([text], state, q)[0]


def test_in_distribution_high_out_of_distribution_low() -> None:
    th = CFG.threshold
    assert conf("pick(red)", FREE) > th
    assert conf("place(red, zone_a)", HOLD_RED) > th
    assert conf("place(red, on=blue)", HOLD_RED) > th
    assert conf("pick(yellow)", FREE) < th  # object never trained
    assert conf("place(red, zone_far)", HOLD_RED) < th  # region never trained
    tower = SkillState({**HOLD_RED.positions, "green": (0.45, 0.1, 0.70)}, "red", 0.05)
    assert conf("place(red, on=green)", tower) < th  # three high: level never trained
    assert conf("lift(red)", FREE) == 0.0  # not even a skill


@pytest.mark.parametrize(
    ("text", "state", "why"),
    [
        ("pick(red)", HOLD_RED, "already holding red"),
        ("place(red, zone_a)", FREE, "not holding red"),
        ("pick(blue)", SkillState({**POS, "red": (0.45, 0.1, 0.70)}), "red is on top of blue"),
        ("place(red, zone_a)", SkillState({**HOLD_RED.positions, "green": (0.6, 0.36, 0.65)}, "red", 0.05), "occupies"),
        ("pick(red)", SkillState({**POS, "red": (1.05, 0.0, 0.65)}), "reach"),
        ("pick(red)", SkillState(dict(POS), None, 0.0), "gripper is not open"),
        ("place(red, on=red)", HOLD_RED, "on itself"),
    ],
)
def test_infeasible_is_below_threshold_with_a_reason(text: str, state: SkillState, why: str) -> None:
    em = ConfidenceEmulator(CFG, 3, "t")
    a = em.assess(text, state, 0)
    assert not a.feasible and why in a.reason
    assert a.confidence < CFG.threshold


def test_noise_is_seeded_and_independent_of_order_and_company() -> None:
    em = ConfidenceEmulator(CFG, 7, "task")
    cands = ["pick(red)", "pick(green)", "pick(blue)", "pick(yellow)"]
    a = em.confidences(cands, FREE, 4)
    b = em.confidences(list(reversed(cands)), FREE, 4)
    assert a == list(reversed(b))
    assert em.confidences(["pick(blue)"], FREE, 4) == [a[2]]
    assert ConfidenceEmulator(CFG, 7, "task").confidences(cands, FREE, 4) == a  # a fresh emulator agrees
    assert em.confidences(cands, FREE, 5) != a  # another query draws other noise
    assert ConfidenceEmulator(CFG, 8, "task").confidences(cands, FREE, 4) != a
    assert all(0.0 <= c <= 1.0 for c in a)


def test_noise_has_the_configured_spread() -> None:
    em = ConfidenceEmulator(CFG, 11, "spread")
    noise = [em.assess("pick(red)", FREE, q).noise for q in range(400)]
    mean = sum(noise) / len(noise)
    sd = math.sqrt(sum((n - mean) ** 2 for n in noise) / len(noise))
    assert abs(mean) < 0.01 and sd == pytest.approx(CFG.noise_sigma, rel=0.15)
    quiet = ConfidenceEmulator(replace(CFG, noise_sigma=0.0), 11, "spread")
    assert quiet.confidences(["pick(red)"], FREE, 0) == [CFG.in_distribution]


def test_reach_envelope_is_conservative() -> None:
    env = CFG.reach
    with World() as w:
        w.reset(0)
        for ang in (-60.0, 0.0, 45.0, 90.0):
            for r in (env.r_min + 0.01, 0.55, env.r_max - 0.01):
                for z in (0.645, 0.80):
                    x = env.base_xy[0] + r * math.cos(math.radians(ang))
                    y = env.base_xy[1] + r * math.sin(math.radians(ang))
                    assert env.margin((x, y, z)) > 0.0
                    assert w.reach_error((x, y, z)) < 0.01, (x, y, z)
        far = (env.base_xy[0] + env.r_max + 0.15, 0.0, 0.65)
        assert env.margin(far) < 0.0 and w.reach_error(far) > 0.01
