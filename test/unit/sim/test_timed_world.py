"""TimedWorld: the same episode as World, with its steps counted and timed."""

from __future__ import annotations

import pytest

from alpha_matrix.core.matrix.bare import run_episode_bare
from alpha_matrix.core.sim.timed_world import TimedWorld, Timing, parse_timing, timing_line
from alpha_matrix.core.sim.world import World


def test_timing_changes_no_step_and_counts_every_one() -> None:
    plain, timed = World(), TimedWorld()
    try:
        a = run_episode_bare(plain, 5)
        b = run_episode_bare(timed, 5, hook=lambda w, s: timed.resume() if s.step % 16 == 0 else None)
        t = timed.take_timing()
        assert timed.take_timing() == (0, 0, 0, 0)  # a take starts the count again
    finally:
        plain.close()
        timed.close()
    assert (a.outcome, a.final_poses, a.steps) == (b.outcome, b.final_poses, b.steps)
    assert t.steps == b.steps and t.ns > 0
    # resumed after every 16th step: the step after it counted apart (none after the last one)
    assert t.first_steps == (b.steps - 1) // 16 and 0 < t.first_ns < t.ns


def test_resume_marks_only_the_next_step() -> None:
    with TimedWorld() as w:
        w.reset(1)
        w.start_hold(10)
        w.resume()
        w.resume()  # twice before one step: still one first step
        for _ in range(5):
            w.step()
        t = w.take_timing()
    assert (t.steps, t.first_steps) == (5, 1)


def test_cold_cost_is_the_first_steps_excess_over_the_others() -> None:
    t = Timing(steps=10, ns=1000, first_steps=2, first_ns=400)  # others: 8 steps at 75 ns
    assert t.cold_cost_ns() == pytest.approx(400 - 2 * 75)
    assert Timing(10, 1000, 0, 0).cold_cost_ns() == 0.0
    assert Timing(2, 400, 2, 400).cold_cost_ns() == 0.0  # no other steps to compare with


def test_the_logged_lines_parse_back_in_order() -> None:
    a, b = Timing(1260, 171_000_000, 156, 40_000_000), Timing(900, 120_000_000, 0, 0)
    text = f"[sim_bridge] {timing_line(a)}\n[executive] unrelated\n[sim_bridge] {timing_line(b)}\n"
    assert parse_timing(text) == [a, b]
    assert parse_timing(timing_line(a)) == []  # only the bridge's lines, as the launcher prefixes them
