"""Wall-clock pacing: steps due at t0 + k·dt; a badly late loop restarts its schedule."""

from __future__ import annotations

import pytest

from alpha_matrix.core.standard_arm.pacing import Pacer


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_due_times_and_overruns() -> None:
    wall, cpu = Clock(), Clock()
    pacer = Pacer(1 / 240, max_lag=0.1, now=wall, cpu=cpu)
    assert pacer.due(240) == pytest.approx(101.0)
    wall.t = 100.05  # 50 ms late at step 0: runs at once, schedule kept
    pacer.start(0)
    assert pacer.due(240) == pytest.approx(101.0) and pacer.overruns == 0
    wall.t = 101.5  # step 240 half a second late: the schedule restarts here
    pacer.start(240)
    assert pacer.due(240) == pytest.approx(101.5) and pacer.due(480) == pytest.approx(102.5)
    assert pacer.overruns == 1
    cpu.t += 0.2
    s = pacer.take(480)
    assert s.steps == 480 and s.wall_s == pytest.approx(1.5) and s.rate_hz == pytest.approx(320.0)
    assert s.cpu_share == pytest.approx(0.2 / 1.5) and s.overruns == 1
    assert pacer.take(480).steps == 0
