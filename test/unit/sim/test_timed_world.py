"""TimedWorld: the same episode as World, with its steps counted and timed."""

from __future__ import annotations

from alpha_matrix.core.matrix.bare import run_episode_bare
from alpha_matrix.core.sim.timed_world import TIMING_RE, TimedWorld, timing_line
from alpha_matrix.core.sim.world import World


def test_timing_changes_no_step_and_counts_every_one() -> None:
    plain, timed = World(), TimedWorld()
    try:
        a = run_episode_bare(plain, 5)
        b = run_episode_bare(timed, 5)
        steps, ns = timed.take_timing()
        assert timed.take_timing() == (0, 0)  # a take starts the count again
    finally:
        plain.close()
        timed.close()
    assert (a.outcome, a.final_poses, a.steps) == (b.outcome, b.final_poses, b.steps)
    assert steps == b.steps and ns > 0


def test_the_logged_line_parses_back() -> None:
    line = f"[sim_bridge] {timing_line(1260, 171_000_000)}"
    assert TIMING_RE.findall(line) == [("1260", "171000000")]
