from alpha_matrix.core.robot.gate import LookaheadGate


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
