import random

import pytest

from alpha_matrix.core.robot.gate import AckSpacing, LookaheadGate, flow_ack_every


def test_no_consumers_never_blocks():
    gate = LookaheadGate([], latency=24)
    assert gate.allows(10**9) and gate.horizon() is None


def test_horizon_is_slowest_ack_plus_latency():
    gate = LookaheadGate(["monitor", "detector"], latency=24)
    assert gate.allows(24) and not gate.allows(25)
    gate.ack("monitor", 100, 0)
    assert gate.horizon() == 24  # detector has not acked anything yet
    gate.ack("detector", 40, 0)
    assert gate.horizon() == 64 and gate.laggards() == ["detector"]


def test_ack_waits_for_the_requests_it_covers():
    gate = LookaheadGate(["monitor"], latency=24)
    gate.ack("monitor", 580, requests_issued=1)  # the stop decided at 580 has not arrived yet
    assert gate.horizon() == 24
    gate.request_received("monitor")
    assert gate.horizon() == 604


def test_new_episode_forgets_steps_but_not_request_counts():
    gate = LookaheadGate(["monitor"], latency=8)
    gate.request_received("monitor")
    gate.ack("monitor", 500, 1)
    gate.new_episode()
    assert gate.horizon() == 8
    gate.ack("monitor", 16, 1)
    assert gate.horizon() == 24


def test_hello_marks_heard_without_credit():
    gate = LookaheadGate(["monitor"], latency=8)
    assert not gate.all_heard() and gate.silent() == ["monitor"]
    gate.hello("monitor")
    assert gate.all_heard() and gate.horizon() == 8


def test_unknown_consumer_is_ignored():
    gate = LookaheadGate(["monitor"], latency=8)
    gate.ack("someone", 1000, 0)
    assert gate.horizon() == 8


def test_a_flow_consumer_holds_the_bridge_only_at_its_window():
    """The recorder never decides: the bridge runs up to 192 steps past its ack, the monitor's L still binds."""
    gate = LookaheadGate(["monitor", "recorder"], latency=24, windows={"recorder": 192})
    gate.ack("monitor", 160, 0)
    assert gate.horizon() == 184 and gate.laggards() == ["monitor"]  # the recorder (0 + 192) is not the limit
    gate.ack("monitor", 400, 0)
    assert gate.horizon() == 192 and gate.laggards() == ["recorder"] and not gate.allows(193)
    gate.ack("recorder", 300, 0)
    assert gate.horizon() == 424


def test_flow_windows_are_checked():
    import pytest

    with pytest.raises(ValueError, match="does not have"):
        LookaheadGate(["monitor"], latency=24, windows={"recorder": 192})
    with pytest.raises(ValueError, match="shorter than the reaction latency 24"):
        LookaheadGate(["recorder"], latency=24, windows={"recorder": 8})


def _holds_forever(window: int, batch: int, every: int, seed: int) -> bool:
    """A bridge and a flow consumer that reads only what the bridge has published when the gate
    holds it (the most a consumer can lag). True if the bridge is ever held with nothing left to
    read: a deadlock. Batches also end at random command ends; episodes restart, some with the same id."""
    rng = random.Random(seed)
    gate = LookaheadGate(["recorder"], latency=batch, windows={"recorder": window})
    spacing = AckSpacing(every)
    unread: list[tuple[str, int]] = []  # (episode, last step) of published batches

    def read_all() -> None:
        for episode, last in unread:
            if spacing.due(episode, last):
                gate.ack("recorder", last, 0)
        unread.clear()

    for n in range(12):
        episode = f"e{n // 2}"  # every other episode restarts under the same id
        buffered, step = 0, 0
        for step in range(1, rng.randint(40, 1300)):
            if not gate.allows(step):
                read_all()
                if not gate.allows(step):
                    return True
            buffered += 1
            if buffered == batch or rng.random() < 0.05:
                unread.append((episode, step))
                buffered = 0
        if buffered:
            unread.append((episode, step))  # a reset flushes the buffer first
        read_all()
        gate.new_episode()
    return False


@pytest.mark.parametrize(("window", "batch"), [(192, 16), (24, 16), (16, 16), (100, 7), (64, 30)])
def test_a_flow_consumer_acking_every_few_batches_never_holds_the_bridge(window, batch):
    every = flow_ack_every(window, batch)
    assert 1 <= every <= max(1, window // 4)
    assert not any(_holds_forever(window, batch, every, seed) for seed in range(40))


def test_spacing_past_the_bound_can_hold_the_bridge():
    """The bound is not slack: acks spaced past what the window leaves after a batch deadlock."""
    assert any(_holds_forever(192, 16, 192 - 16 + 2, seed) for seed in range(40))


def test_ack_spacing():
    s = AckSpacing(48)
    assert [s.due("a", k) for k in (16, 32, 48, 64, 80)] == [True, False, False, True, False]
    assert s.due("b", 16)  # a new episode: its first batch is acked
    assert s.due("b", 16)  # steps restarted under the same id (a reset): acked again
    assert not s.due("b", 32)
    assert all(AckSpacing().due("a", k) for k in (16, 32, 48))  # every = 1: every batch
