"""The bridge's loop with a screened safety monitor (core/robot/gate.py, stepping.StepBuffer),
played out against a monitor and a recorder scheduled adversarially: the bridge never waits on
steps it has not sent, and every stop the monitor decides reaches it before the step it applies
at, as with an unscreened monitor."""

from __future__ import annotations

import random
from collections import deque

import pytest
from test_stepping import sample

from alpha_matrix.core.robot.driver import CommandEvent, State
from alpha_matrix.core.robot.gate import LookaheadGate, flow_ack_every
from alpha_matrix.core.robot.params import SimBridgeParams
from alpha_matrix.core.robot.stepping import StepBuffer

L = 24


def flagged_steps(rng: random.Random, n: int) -> set[int]:
    """Bursts of flagged steps (a contact, a joint at its limit) between calm stretches."""
    flags: set[int] = set()
    step = 0
    while step < n:
        step += rng.randint(1, 300)
        burst = rng.choice([1, 2, 5, 30, 200])
        flags |= {s for s in range(step, step + burst) if rng.random() < 0.8}
        step += burst
    return flags


def play(seed: int, calm: int, batch: int, window: int, steps: int = 4000) -> tuple[int, int]:
    rng = random.Random(seed)
    flags = flagged_steps(rng, steps)
    gate = LookaheadGate(["monitor", "recorder"], L, {"recorder": window}, screened=["monitor"])
    buf = StepBuffer(batch, calm)
    every = flow_ack_every(window, max(calm, batch))
    queues: dict[str, deque[list[int]]] = {"monitor": deque(), "recorder": deque()}
    requests: deque[int] = deque()  # the monitor's stop requests in flight (their decision steps)
    issued, last_recorder_ack, step, stops = 0, 0, 0, 0
    while step < steps:
        moves = []
        if gate.allows(step + 1):
            moves.append("step")
        moves += [name for name, q in queues.items() if q]
        if requests:
            moves.append("request")
        assert moves, f"deadlock before step {step + 1}: the bridge waits on steps it has not sent"
        move = rng.choice(moves)
        if move == "step":
            step += 1
            clean = step not in flags
            gate.screen(step, clean)
            events = [CommandEvent(1, State.DONE, 1, step)] if rng.random() < 0.004 else []
            if buf.add(sample(step), events, clean):
                batch_steps = [s.step for s in buf.take()]
                for q in queues.values():
                    q.append(batch_steps)
        elif move == "request":  # a stop reaches the bridge: in time, where the screen flagged
            decided = requests.popleft()
            assert gate.decided_where_flagged("monitor", decided)
            assert decided + L > step, f"stop decided at {decided} arrived at step {step}: too late"
            gate.request_received("monitor")
            stops += 1
        elif move == "monitor":
            for s in queues["monitor"].popleft():
                if s in flags and rng.random() < 0.05:
                    issued += 1
                    requests.append(s)
            gate.ack("monitor", s, issued)
        else:
            end = queues["recorder"].popleft()[-1]
            if end >= last_recorder_ack + every:
                gate.ack("recorder", end, 0)
                last_recorder_ack = end
    return stops, len(flags)


@pytest.mark.parametrize("seed", range(12))
def test_a_screened_monitor_gets_every_stop_in_time_and_never_deadlocks_the_bridge(seed: int) -> None:
    stops, flags = play(seed, calm=96, batch=16, window=384)
    assert flags > 100 and stops > 0  # the runs did flag steps and decide stops


@pytest.mark.parametrize(("calm", "batch", "window"), [(24, 24, 47), (240, 8, 479), (50, 1, 99)])
def test_the_same_at_the_edges_the_parameters_allow(calm: int, batch: int, window: int) -> None:
    SimBridgeParams(  # valid parameters
        gating_consumers=["monitor", "recorder"], flow_consumers=["recorder"], screened_consumers=["monitor"],
        batch_steps=batch, calm_batch_steps=calm, flow_window_steps=window, reaction_latency_steps=L,
    )  # fmt: skip
    for seed in range(4):
        play(seed, calm, batch, window, steps=3000)


def test_a_decision_where_the_screen_cleared_breaks_the_guarantee() -> None:
    gate = LookaheadGate(["monitor"], L, screened=["monitor"])
    for s in range(1, 41):
        gate.screen(s, clean=s != 30)
    assert gate.horizon() == 29 + L  # credit runs on over cleared steps, to the flagged one
    assert gate.decided_where_flagged("monitor", 30)
    assert not gate.decided_where_flagged("monitor", 12)  # the screens disagree
    assert gate.decided_where_flagged("monitor", 41)  # not screened yet: no claim
    assert gate.decided_where_flagged("elsewhere", 12)  # not a screened consumer
    gate.ack("monitor", 32, 0)
    assert gate.horizon() == 40 + L
    gate.new_episode()
    assert gate.horizon() == L


def test_screened_consumers_are_checked() -> None:
    with pytest.raises(ValueError, match="screened consumers the gate does not have"):
        LookaheadGate(["monitor"], L, screened=["other"])
    with pytest.raises(ValueError, match="both screened and with a flow window"):
        LookaheadGate(["recorder"], L, {"recorder": 96}, screened=["recorder"])
    with pytest.raises(ValueError, match="overlap"):
        SimBridgeParams(gating_consumers=["recorder"], flow_consumers=["recorder"], screened_consumers=["recorder"])
    with pytest.raises(ValueError, match="2 \\* calm_batch_steps - 1"):
        SimBridgeParams(
            gating_consumers=["m", "r"], flow_consumers=["r"], screened_consumers=["m"], flow_window_steps=100
        )
    p = SimBridgeParams(gating_consumers=["m", "d"], screened_consumers=["m", "gone"])
    assert p.screened() == ["m"] and p.calm_steps() is None  # an unscreened decider keeps batches within L
    assert SimBridgeParams(gating_consumers=["m"], screened_consumers=["m"]).max_batch_steps() == 96
