"""The adapter's driver decisions on constructed samples and goal results: commands queue and end
once, refusals before motion, stops accepted at any time and timed from the decision to rest,
per-requester holds, the step budget, and joint states that stop arriving."""

from __future__ import annotations

import math

import pytest

from alpha_matrix.core.robot.adapter.driver import NOT_AT_REST, AdapterCore, AdapterSettings, Out, State

DT = 1 / 240
MOVING = (0.5,) * 7
STILL = (0.0,) * 7


def reach(target) -> float:
    return 0.0 if math.dist(target, (0.5, 0.0, 0.8)) < 1.0 else 0.8


class Robot:
    """Drives a core with samples at 240 Hz; the arm moves while ``moving``."""

    def __init__(self, **settings) -> None:
        self.core = AdapterCore(AdapterSettings(**settings), reach)
        self.t = 0.0
        self.moving = False
        self.ended: dict[int, object] = {}
        self.started: list[int] = []
        self.halts: list[str] = []
        self.stops: list = []
        self.resets: list = []

    def take(self, out: Out) -> Out:
        if out.halt:
            self.halts.append(out.halt)
        self.started += [c.command_id for c in out.start]
        for e in out.ended:
            assert e.command_id not in self.ended, f"command {e.command_id} ended twice"
            self.ended[e.command_id] = e
        self.stops += out.stops
        if out.reset:
            self.resets.append(out.reset)
        return out

    def sample(self, n: int = 1) -> int:
        step = 0
        for _ in range(n):
            self.t += DT
            step, out = self.core.on_sample(MOVING if self.moving else STILL, self.t)
            self.take(out)
        return step

    def call(self, what: str, *args):
        reply, out = getattr(self.core, what)(*args)
        self.take(out)
        return reply

    def reset(self, settle: int = 120, episode: str = "e1"):
        reply = self.call("reset", episode, 7, settle)
        if self.resets and self.resets[-1][1] == episode:
            self.take(self.core.reset_done(self.resets[-1][0], True))
        return reply


@pytest.fixture
def robot() -> Robot:
    r = Robot()
    r.sample(30)  # samples before any reset belong to no episode
    return r


def test_reset_restarts_steps_at_one_and_settles(robot: Robot) -> None:
    assert robot.core.step == 0
    reply = robot.reset()
    assert reply.accepted and robot.resets[-1][1:] == ("e1", 7, 120)
    assert robot.sample() == 1
    robot.sample(119)
    e = robot.ended[reply.command_id]
    assert (e.state, e.start_step, e.end_step) == (State.DONE, 1, 120)
    assert robot.started == []  # a settle sends nothing to the robot


def test_samples_until_the_scene_reset_answers_are_no_steps() -> None:
    r = Robot()
    reply = r.call("reset", "e1", 7, 10)
    assert r.sample(5) == 0  # the scene is being reset
    r.take(r.core.reset_done(r.resets[-1][0], True))
    assert r.sample() == 1
    r.sample(9)
    assert r.ended[reply.command_id].end_step == 10


def test_a_superseded_reset_answer_changes_nothing() -> None:
    r = Robot()
    r.call("reset", "e1", 7, 10)
    first = r.resets[-1][0]
    r.call("reset", "e1", 7, 10)
    r.take(r.core.reset_done(first, True))
    assert r.sample() == 0
    r.take(r.core.reset_done(r.resets[-1][0], True))
    assert r.sample() == 1


def test_a_failed_scene_reset_cancels_the_settle() -> None:
    r = Robot()
    reply = r.call("reset", "e1", 7, 10)
    r.take(r.core.reset_done(r.resets[-1][0], False, "no reply from /sim/reset within 10 s"))
    e = r.ended[reply.command_id]
    assert e.state == State.CANCELLED and "scene reset failed: no reply" in e.message


def test_without_a_scene_reset_the_settle_is_a_home_move() -> None:
    r = Robot(scene_reset=False)
    reply = r.call("reset", "e1", 7, 60)
    assert r.resets == [] and r.started == [reply.command_id]  # sent at once: steps restart now
    r.sample(60)
    assert reply.command_id not in r.ended  # the home move's result is not in
    r.take(r.core.goal_result(reply.command_id, True))
    assert r.ended[reply.command_id].state == State.DONE and r.ended[reply.command_id].end_step == 60


def test_refusals_before_motion(robot: Robot) -> None:
    robot.reset()
    far = robot.call("move_to", (1.6, 0.0, 0.7), 100)
    assert not far.accepted and far.reach_error == 0.8 and "unreachable" in far.message
    assert not robot.call("move_to", (math.nan, 0.0, 0.7), 100).accepted
    assert not robot.call("move_to", (0.5, 0.0, 0.8), 0).accepted
    check = robot.call("move_to", (0.5, 0.0, 0.8), 100, True)
    assert check.accepted and check.command_id == 0
    for width in (-0.01, 0.081, math.inf):
        bad = robot.call("gripper", width, 20.0, 10)
        assert not bad.accepted and "width" in bad.message
    assert not robot.call("gripper", 0.04, 0.0, 10).accepted
    assert not robot.call("hold", 0).accepted
    assert robot.started == []


def test_motion_before_any_reset_is_refused() -> None:
    r = Robot()
    reply = r.call("move_to", (0.5, 0.0, 0.8), 100)
    assert not reply.accepted and "robot/reset first" in reply.message


def test_a_move_ends_after_its_steps_and_its_result(robot: Robot) -> None:
    robot.reset(settle=10)
    robot.sample(10)
    robot.sample(5)  # idle: steps go on (the robot's clock)
    move = robot.call("move_to", (0.5, 0.0, 0.8), 100)
    grip = robot.call("gripper", 0.02, 20.0, 30)
    assert robot.started == [move.command_id]  # the gripper waits its turn
    robot.sample(100)
    assert move.command_id not in robot.ended  # steps done, result not in yet
    robot.sample(3)
    robot.take(robot.core.goal_result(move.command_id, True))
    e = robot.ended[move.command_id]
    assert (e.state, e.start_step, e.end_step) == (State.DONE, 16, 118)
    assert robot.started == [move.command_id, grip.command_id]
    robot.take(robot.core.goal_result(grip.command_id, True))  # early result: still runs its steps
    robot.sample(29)
    assert grip.command_id not in robot.ended
    robot.sample()
    assert robot.ended[grip.command_id].end_step == 148


def test_a_failed_goal_ends_cancelled_with_the_queue_behind_it(robot: Robot) -> None:
    robot.reset(settle=1)
    robot.sample()
    move = robot.call("move_to", (0.5, 0.0, 0.8), 100)
    hold = robot.call("hold", 10)
    robot.sample(40)
    robot.take(robot.core.goal_result(move.command_id, False, "FollowJointTrajectory aborted: PATH_TOLERANCE_VIOLATED"))
    e = robot.ended[move.command_id]
    assert e.state == State.CANCELLED and e.end_step == 41 and "PATH_TOLERANCE_VIOLATED" in e.message
    h = robot.ended[hold.command_id]
    assert (
        h.state == State.CANCELLED and h.start_step == 0 and f"command {move.command_id} before it failed" in h.message
    )
    robot.take(robot.core.goal_result(move.command_id, True))  # a late result changes nothing
    assert robot.call("hold", 5).accepted


def test_a_result_that_never_comes_is_given_up(robot: Robot) -> None:
    robot.core = AdapterCore(AdapterSettings(result_timeout_steps=50), reach)
    robot.reset(settle=1)
    robot.sample()
    move = robot.call("move_to", (0.5, 0.0, 0.8), 20)
    robot.sample(69)
    assert move.command_id not in robot.ended
    robot.sample()
    e = robot.ended[move.command_id]
    assert e.state == State.CANCELLED and "no result from the robot" in e.message and robot.halts


def test_a_stop_is_accepted_late_cuts_the_command_and_is_timed_to_rest(robot: Robot) -> None:
    robot.reset(settle=10)
    robot.sample(10)
    move = robot.call("move_to", (0.5, 0.0, 0.8), 400)
    queued = robot.call("hold", 50)
    robot.moving = True
    robot.sample(100)  # the move runs: step 110
    decided_at = robot.core._times[99]  # step 100's sample time
    stop = robot.call("protective_stop", "e1", True, 100, "safety_monitor", "violent_contact", robot.t)
    assert stop.accepted and stop.apply_step == 110  # ten steps after its decision: never refused as late
    assert robot.halts[-1] == "protective stop (safety_monitor: violent_contact)"
    assert move.command_id not in robot.ended  # ends once the arm is at rest
    robot.sample(30)  # still decelerating
    robot.moving = False
    robot.sample(11)
    assert move.command_id not in robot.ended  # 11 still samples: not yet rest
    robot.sample()
    e = robot.ended[move.command_id]
    assert e.state == State.CANCELLED and e.end_step == 152 and e.start_step == 11
    rest_time = robot.core._times[140]  # step 141: the first still sample
    assert e.stop_to_rest_s == pytest.approx(rest_time - decided_at)
    assert e.message.startswith("protective stop at step 110 (safety_monitor: violent_contact)")
    assert "decided at step 100, fastest joint 0.50 rad/s at the cancel; at rest at step 141" in e.message
    assert robot.ended[queued.command_id].state == State.CANCELLED  # the queue went with it
    assert [s.to_rest_s for s in robot.stops] == [e.stop_to_rest_s]


def test_a_stop_of_an_idle_arm_is_timed_too(robot: Robot) -> None:
    robot.reset(settle=5)
    robot.sample(5)
    stop = robot.call("protective_stop", "e1", True, 5, "operator", "button", robot.t)
    assert stop.accepted and stop.apply_step == 5
    robot.sample(12)
    assert len(robot.stops) == 1 and robot.stops[0].rest_step == 6
    assert robot.stops[0].to_rest_s == pytest.approx(1 * DT)


def test_a_stop_decided_ahead_of_the_samples_is_timed_from_the_cancel(robot: Robot) -> None:
    robot.reset(settle=5)
    robot.sample(5)
    stop = robot.call("protective_stop", "e1", True, 29, "check_driver", "ahead", robot.t)
    assert stop.accepted and "timed from the cancel" in stop.message
    robot.sample(12)
    assert robot.stops[0].to_rest_s == pytest.approx(DT)


def test_motion_is_refused_while_any_stop_is_held_and_release_is_per_requester(robot: Robot) -> None:
    robot.reset(settle=5)
    robot.sample(5)
    for who in ("safety_monitor", "alert_guard:agent"):
        assert robot.call("protective_stop", "e1", True, 5, who, "x", robot.t).accepted
    robot.sample(12)
    refused = robot.call("move_to", (0.5, 0.0, 0.8), 10)
    assert not refused.accepted and "protective stop in effect" in refused.message
    assert not robot.call("gripper", 0.04, 20.0, 10).accepted
    hold = robot.call("hold", 5)  # time may pass during a stop
    assert hold.accepted
    release = robot.call("protective_stop", "e1", False, 17, "alert_guard:agent", "", robot.t)
    assert release.accepted and "still held by safety_monitor" in release.message
    assert not robot.call("move_to", (0.5, 0.0, 0.8), 10).accepted  # another's release lifts nothing
    assert robot.call("protective_stop", "e1", False, 17, "safety_monitor", "", robot.t).accepted
    assert robot.call("move_to", (0.5, 0.0, 0.8), 10).accepted


def test_a_stop_for_another_episode_is_refused(robot: Robot) -> None:
    robot.reset()
    r = robot.call("protective_stop", "e0", True, 5, "safety_monitor", "x", robot.t)
    assert not r.accepted and "current is 'e1'" in r.message


def test_motion_released_before_rest_waits_for_rest(robot: Robot) -> None:
    robot.reset(settle=5)
    robot.sample(5)
    robot.call("move_to", (0.5, 0.0, 0.8), 100)
    robot.moving = True
    robot.sample(20)
    robot.call("protective_stop", "e1", True, 25, "check_driver", "x", robot.t)
    robot.call("protective_stop", "e1", False, 25, "check_driver", "", robot.t)
    again = robot.call("move_to", (0.5, 0.0, 0.8), 100)
    assert again.accepted and again.command_id not in robot.started
    robot.moving = False
    robot.sample(12)
    assert robot.started[-1] == again.command_id


def test_an_arm_that_never_rests_ends_the_measurement(robot: Robot) -> None:
    robot.core = AdapterCore(AdapterSettings(rest_timeout_s=0.5), reach)
    robot.reset(settle=5)
    robot.sample(5)
    move = robot.call("move_to", (0.5, 0.0, 0.8), 400)
    robot.moving = True
    robot.sample(5)
    robot.call("protective_stop", "e1", True, 10, "safety_monitor", "x", robot.t)
    robot.sample(121)
    e = robot.ended[move.command_id]
    assert e.stop_to_rest_s == NOT_AT_REST and "still moving 0.5 s after the cancel" in e.message


def test_the_step_budget_cancels_and_refuses(robot: Robot) -> None:
    robot.core = AdapterCore(AdapterSettings(max_episode_steps=200), reach)
    robot.reset(settle=10)
    robot.sample(10)
    hold = robot.call("hold", 1000)
    robot.sample(300)
    e = robot.ended[hold.command_id]
    assert (e.state, e.end_step) == (State.CANCELLED, 200) and "budget of 200 steps" in e.message
    assert robot.core.step == 200  # samples past the budget are no steps
    refused = robot.call("move_to", (0.5, 0.0, 0.8), 10)
    assert not refused.accepted and "budget" in refused.message
    robot.reset(settle=10)
    assert robot.sample() == 1


def test_joint_states_that_stop_arriving_stop_the_arm(robot: Robot) -> None:
    robot.reset(settle=5)
    robot.sample(5)
    move = robot.call("move_to", (0.5, 0.0, 0.8), 400)
    robot.sample(50)
    robot.take(robot.core.joint_states_lost("no sample on /joint_states for 0.5 s"))
    assert robot.halts[-1] == "arm stopped: no sample on /joint_states for 0.5 s"
    e = robot.ended[move.command_id]
    assert e.state == State.CANCELLED and e.message == "arm stopped: no sample on /joint_states for 0.5 s"
    for reply in (robot.call("move_to", (0.5, 0.0, 0.8), 10), robot.call("hold", 10), robot.reset()):
        assert not reply.accepted and "no joint_states" in reply.message
    robot.sample()  # back: a reset is accepted again, motion only after it
    assert not robot.call("hold", 10).accepted
    assert robot.reset().accepted


def test_a_reset_ends_a_stop_being_measured(robot: Robot) -> None:
    robot.reset(settle=5)
    robot.sample(5)
    move = robot.call("move_to", (0.5, 0.0, 0.8), 400)
    robot.moving = True
    robot.sample(5)
    robot.call("protective_stop", "e1", True, 10, "safety_monitor", "x", robot.t)
    robot.reset(episode="e2")
    e = robot.ended[move.command_id]
    assert e.stop_to_rest_s == NOT_AT_REST and "reset before the arm was at rest" in e.message
    assert robot.core.holds == set()
