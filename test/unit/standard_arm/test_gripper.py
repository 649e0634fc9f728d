"""GripperCommand semantics: reached, stalled on an object, preempted, cancelled."""

from __future__ import annotations

from alpha_matrix.core.standard_arm.gripper import GripperController, GripperEnd, GripperSettings

DT = 1 / 240


def run(g: GripperController, t: float, seconds: float, pos: float, vel: float = 0.0) -> tuple[float, list[GripperEnd]]:
    ended: list[GripperEnd] = []
    for _ in range(round(seconds / DT)):
        ended += g.update(t, pos, vel, -20.0)
        t += DT
    return t, ended


def test_reached() -> None:
    g = GripperController(GripperSettings(), initial=0.04)
    assert g.accept_goal("a", 0.01, 0.0, now=0.0) == []
    assert g.command.position == 0.01 and g.command.force == 20.0  # max_effort 0: the default force
    _, ended = run(g, 0.0, 0.1, pos=0.015)
    assert ended == [GripperEnd("a", "succeeded", 0.015, 20.0, stalled=False, reached_goal=True)]


def test_closing_on_a_block_stalls_and_aborts_unless_stalling_is_allowed() -> None:
    for allow, status in ((False, "aborted"), (True, "succeeded")):
        g = GripperController(GripperSettings(allow_stalling=allow), initial=0.04)
        g.accept_goal("a", 0.0, 40.0, now=0.0)
        assert g.command.force == 40.0
        t, ended = run(g, 0.0, 0.3, pos=0.03, vel=-0.1)  # closing
        assert ended == []
        t, ended = run(g, t, 0.9, pos=0.025)  # on the block (0.05 m wide): stopped, not yet past the timeout
        assert ended == []
        t, ended = run(g, t, 0.2, pos=0.025)
        assert ended == [GripperEnd("a", status, 0.025, 20.0, stalled=True, reached_goal=False)]


def test_preempted_goal_is_canceled_and_cancel_holds() -> None:
    g = GripperController(GripperSettings(), initial=0.04)
    g.accept_goal("a", 0.0, 0.0, now=0.0)
    assert [(e.goal_id, e.status) for e in g.accept_goal("b", 0.04, 0.0, now=0.1)] == [("a", "canceled")]
    assert g.cancel("a", 0.03) == []
    assert [(e.goal_id, e.status) for e in g.cancel("b", 0.03)] == [("b", "canceled")]
    assert g.command.position == 0.03 and g.active_goal is None


def test_targets_are_clamped_to_the_finger_range() -> None:
    g = GripperController(GripperSettings(), initial=0.04)
    g.accept_goal("a", 0.08, 0.0, now=0.0)  # a total opening given as a finger position
    assert g.command.position == 0.04
    g.accept_goal("b", -1.0, 0.0, now=0.0)
    assert g.command.position == 0.0
    assert [e.status for e in g.reset(0.04)] == ["aborted"] and g.command.position == 0.04
