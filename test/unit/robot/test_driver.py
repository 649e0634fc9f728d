"""The driver core on the real world: queue, stop scheduling, step budget, rejections."""

import pytest

from alpha_matrix.core.robot.driver import DriverCore, State
from alpha_matrix.core.sim.world import World


@pytest.fixture(scope="module")
def world():
    w = World()
    yield w
    w.close()


def run_until_idle(core):
    events = []
    while core.has_work():
        _, ev = core.step()
        events += ev
    return events


def test_commands_run_back_to_back(world):
    core = DriverCore(world, latency=24)
    settle, _ = core.reset("e", 3, 120)
    move = core.move_to((0.5, 0.0, 0.8), 100)
    hold = core.hold(10)
    events = run_until_idle(core)
    assert [(e.command_id, e.state, e.start_step, e.end_step) for e in events] == [
        (settle.command_id, State.DONE, 1, 120),
        (move.command_id, State.DONE, 121, 220),
        (hold.command_id, State.DONE, 221, 230),
    ]
    assert world.step_count == 230  # nothing steps while idle


def test_stop_applies_at_decision_plus_latency_and_cancels_the_queue(world):
    core = DriverCore(world, latency=24)
    core.reset("e", 3, 50)
    move = core.move_to((0.5, 0.0, 0.8), 200)
    queued = core.hold(10)
    assert core.protective_stop("e", True, 100, "monitor", "test").apply_step == 124
    events = run_until_idle(core)
    cancelled = [e for e in events if e.state == State.CANCELLED]
    assert [(e.command_id, e.end_step) for e in cancelled] == [(move.command_id, 124), (queued.command_id, 124)]
    assert world.step_count == 124  # the world ran the stop's step: the cancelled commands end at it
    assert "protective stop at step 124 (monitor: test)" in cancelled[0].message
    assert core.stop_log == [(124, True, "monitor", "test")]
    assert not core.move_to((0.5, 0.0, 0.8), 10).accepted  # refused while stopped
    assert core.hold(48).accepted  # time may pass while stopped
    run_until_idle(core)
    assert core.protective_stop("e", False, world.step_count, "monitor", "clear").accepted
    core.hold(30)
    run_until_idle(core)
    assert not world.stopped and core.move_to((0.5, 0.0, 0.8), 10).accepted


def test_each_requester_holds_its_own_stop(world):
    """An agent's release never lifts the guard's stop; same-step requests apply in requester order."""
    core = DriverCore(world, latency=24)
    core.reset("e", 3, 40)
    core.hold(200)
    core.protective_stop("e", False, 76, "guard", "clear")  # arrives first, same apply step
    core.protective_stop("e", True, 76, "agent", "person close")
    core.protective_stop("e", True, 50, "guard", "person close")
    run_until_idle(core)  # the guard's stop cancels the hold at step 74
    core.hold(100)  # time passes while stopped
    run_until_idle(core)
    assert core.stop_log[:3] == [
        (74, True, "guard", "person close"),
        (100, True, "agent", "person close"),
        (100, False, "guard", "clear"),
    ]
    assert world.stopped  # the agent still holds its stop
    core.protective_stop("e", True, world.step_count, "guard", "again")
    core.protective_stop("e", False, world.step_count, "agent", "continue")
    core.hold(30)
    run_until_idle(core)
    assert world.stopped  # the agent released, the guard holds
    core.protective_stop("e", False, world.step_count, "guard", "clear")
    core.hold(30)
    run_until_idle(core)
    assert not world.stopped


def test_late_or_foreign_requests_are_refused(world):
    core = DriverCore(world, latency=24)
    core.reset("e", 3, 120)
    run_until_idle(core)
    late = core.protective_stop("e", True, 50, "monitor", "x")
    assert not late.accepted and "late" in late.message
    other = core.protective_stop("old-episode", True, 200, "monitor", "x")
    assert not other.accepted and "current is 'e'" in other.message


def test_step_budget_cancels_and_refuses(world):
    core = DriverCore(world, latency=24, max_episode_steps=200)
    core.reset("e", 3, 120)
    move = core.move_to((0.5, 0.0, 0.8), 300)
    events = run_until_idle(core)
    assert world.step_count == 200
    assert events[-1].command_id == move.command_id and events[-1].state == State.CANCELLED
    assert "budget of 200 steps exhausted" in events[-1].message
    assert not core.hold(5).accepted


def test_bad_targets_are_refused_with_reasons(world):
    core = DriverCore(world, latency=24)
    core.reset("e", 3, 0)
    far = core.move_to((1.6, 0.0, 0.7), 100)
    assert not far.accepted and "unreachable target" in far.message and far.reach_error > 0.5
    assert "not finite" in core.move_to((float("nan"), 0.0, 0.7), 100).message
    assert not core.gripper(0.2, 20.0, 10).accepted
    assert not core.gripper(0.04, -1.0, 10).accepted


def test_scheduled_disturbance_moves_the_block_at_its_step(world):
    core = DriverCore(world, latency=24)
    core.reset("e", 3, 50)
    before = world.object_poses()["red"][0]
    assert core.disturb("red", 0.06, 0.0, 40).accepted
    assert not core.disturb("red", 0.06, 0.0, 0).accepted and not core.disturb("purple", 0.0, 0.0, 60).accepted
    run_until_idle(core)
    after = world.object_poses()["red"][0]
    assert abs(after[0] - before[0] - 0.06) < 1e-3 and abs(after[1] - before[1]) < 1e-3
