"""core/robot/stepping.py: the bridge loop's pacing and batching, with a fake clock."""

from __future__ import annotations

import numpy as np
import pytest

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.driver import CommandEvent, State
from alpha_matrix.core.robot.gate import LookaheadGate
from alpha_matrix.core.robot.stepping import StepBuffer, StepPacer, names_by_id
from alpha_matrix.core.sim.world import StepSample


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def sample(step: int) -> StepSample:
    z = np.zeros(0)
    return StepSample(step, np.zeros(9), np.zeros(9), z, z, z, z, z, np.zeros(3))


def test_a_silent_consumer_fails_the_loop_after_the_ack_timeout() -> None:
    clock, gate = Clock(), LookaheadGate(["safety_monitor", "recorder"], 24)
    gate.ack("recorder", 10, 0)
    pacer = StepPacer(1 / 240, False, 5.0, clock)
    pacer.blocked(25, gate)
    clock.t += 5.0
    pacer.blocked(25, gate)  # exactly the timeout: still waiting
    clock.t += 0.1
    with pytest.raises(AlphaMatrixError, match=r"safety_monitor for 5 s \(blocked before step 25\)"):
        pacer.blocked(25, gate)


def test_a_slow_consumer_that_keeps_saying_it_is_alive_is_waited_for() -> None:
    """An agent thinking for minutes re-sends its last ack; only silence fails the loop."""
    clock, gate = Clock(), LookaheadGate(["agent_link", "recorder"], 24)
    gate.ack("agent_link", 0, 0)
    gate.ack("recorder", 100, 0)
    pacer = StepPacer(1 / 240, False, 5.0, clock)
    for _ in range(10):
        pacer.blocked(25, gate)
        clock.t += 4.0
        gate.hello("agent_link")  # its keep-alive (the same ack again)
        gate.ack("recorder", 100, 0)  # another consumer's messages do not count for the laggard
    pacer.blocked(25, gate)
    clock.t += 5.5
    gate.ack("recorder", 100, 0)
    with pytest.raises(AlphaMatrixError, match="agent_link"):
        pacer.blocked(25, gate)


def test_a_step_or_an_idle_spell_restarts_the_blocked_time() -> None:
    clock, gate = Clock(), LookaheadGate(["c"], 24)
    gate.ack("c", 0, 0)
    pacer = StepPacer(1 / 240, False, 5.0, clock)
    pacer.blocked(25, gate)
    clock.t += 4.0
    assert pacer.delay_before(25) == 0.0  # not real time: never waits
    clock.t += 4.0
    pacer.blocked(26, gate)  # a fresh spell
    pacer.idle(26)
    clock.t += 4.0
    pacer.blocked(27, gate)
    clock.t += 5.5
    with pytest.raises(AlphaMatrixError, match=r"\bc\b"):  # heard, but the slowest
        pacer.blocked(27, gate)


def test_real_time_paces_steps_from_the_last_idle_spell() -> None:
    clock = Clock()
    pacer = StepPacer(0.5, True, 5.0, clock)
    pacer.idle(10)  # step 10 is now
    assert pacer.delay_before(11) == pytest.approx(0.5)
    clock.t += 2.0
    assert pacer.delay_before(12) == 0.0  # behind: no wait, no catch-up sleep


def test_a_batch_ends_when_full_or_when_a_command_ends() -> None:
    buf = StepBuffer(3)
    assert not buf.add(sample(1), []) and not buf.add(sample(2), [])
    assert buf.add(sample(3), [])
    assert [s.step for s in buf.take()] == [1, 2, 3] and buf.take() == []
    assert buf.add(sample(4), [CommandEvent(1, State.DONE, 1, 4)])
    assert buf.last is not None and buf.last.step == 4


def test_body_names_are_indexed_by_id() -> None:
    assert names_by_id({0: "plane", 2: "red"}) == ["plane", "", "red"]


def test_with_a_screened_monitor_batches_are_long_while_calm_and_short_from_a_flag_on() -> None:
    buf = StepBuffer(4, calm_steps=10)
    ends = [s for s in range(1, 11) if buf.add(sample(s), [])]
    assert ends == [10] and len(buf.take()) == 10
    assert not buf.add(sample(11), []) and not buf.add(sample(12), [])
    assert buf.add(sample(13), [], clean=False)  # the first flagged step ends the batch at once
    assert [s.step for s in buf.take()] == [11, 12, 13]
    # then batches of batch_steps, flagged steps or not, until one is clean throughout
    assert [s for s in range(14, 18) if buf.add(sample(s), [], clean=s != 15)] == [17]
    buf.take()
    assert [s for s in range(18, 22) if buf.add(sample(s), [])] == [21]
    buf.take()
    assert [s for s in range(22, 32) if buf.add(sample(s), [])] == [31]  # calm again
    buf.take()
    assert buf.add(sample(32), [], clean=False)
    buf.take()
    buf.new_episode()  # steps restart: calm
    assert not buf.add(sample(1), []) and not any(buf.add(sample(s), []) for s in range(2, 10))
    assert buf.add(sample(10), [])


def test_without_calm_batches_the_screen_changes_no_boundary() -> None:
    buf = StepBuffer(3)
    assert [s for s in range(1, 8) if buf.add(sample(s), [], clean=s % 2 == 0) and buf.take()] == [3, 6]
