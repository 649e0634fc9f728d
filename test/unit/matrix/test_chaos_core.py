"""core/matrix/chaos.py: what the chaos node injects, without ROS (messages as namespaces)."""

from __future__ import annotations

import math
from types import SimpleNamespace as NS

import numpy as np
import pytest

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.matrix.chaos import ARM_BASE, ChaosCore, GripPlan
from alpha_matrix.core.matrix.faults import SLIP_FORCE, SlipLatch


def obj(name: str, x: float) -> NS:
    return NS(name=name, position=(x, 0.0, 0.65))


def core(fault: str = "none", intensity: float = 0.0) -> ChaosCore:
    c = ChaosCore(lambda o: o.position)
    c.configure("ep", 42, 3, fault, intensity)
    return c


def test_a_cell_configures_its_faults_and_refuses_unknown_ones() -> None:
    assert core().faults == () and core("F1+F2", 0.66).faults == ("F1", "F2")
    assert ChaosCore(lambda o: o).configure("ep", 42, 3, "F3", 0.33) == "F3 at I=0.33"
    with pytest.raises(AlphaMatrixError):
        core("F9", 0.33)
    with pytest.raises(AlphaMatrixError):
        core("F1", 1.5)


def test_without_faults_everything_passes_unchanged() -> None:
    c = core()
    assert c.move_target((0.5, 0.1, 0.7), 100) == (0.5, 0.1, 0.7)
    assert c.plan_text("text") == "text"
    assert c.grip(0.0, 20.0, 60) == GripPlan(((60, 20.0),))
    assert not c.holds("ep") and c.logs["ep"].report() == []


def test_f3_moves_targets_outward_once_per_target() -> None:
    c = core("F3", 1.0)
    target = (0.5, 0.1, 0.7)
    moved = c.move_target(target, 100)
    assert (
        moved is not None
        and math.dist(moved[:2], ARM_BASE[:2]) > math.dist(target[:2], ARM_BASE[:2])
        and moved[2] == target[2]
    )
    assert c.move_target(target, 1) == moved  # validated, then commanded: one injection
    assert [r.fault for r in c.logs["ep"].report()] == ["F3"]


def test_a_handshake_probe_after_the_episode_is_configured_is_no_injection() -> None:
    """The executive's probe (no steps, target (0, 0, 0)) is re-sent when a first reply is lost, so
    under load it can arrive after set_fault: it is passed on as a handshake and logs nothing (it
    once added an F3 record at seq 0 to one of two identical runs)."""
    c = core("F3", 0.5)
    assert c.move_target((0.0, 0.0, 0.0), 0) is None
    assert c.logs["ep"].report() == []


def test_f2_splits_a_slipping_grip_and_stamps_it_at_the_command_end() -> None:
    c = core("F2", 0.33)
    c.slip = SlipLatch(1.0, np.random.default_rng(0))  # always slips
    assert c.grip(-1.0, 0.0, 1) is None  # a handshake
    plan = c.grip(0.0, 20.0, 60)
    assert plan is not None and plan.parts == ((59, 20.0), (1, SLIP_FORCE)) and plan.injection is not None
    assert c.grip(0.0, 20.0, 1).parts == ((1, SLIP_FORCE),)  # latched: same lift, no new draw
    assert c.grip(0.08, 20.0, 200).parts == ((200, 20.0),)  # opening ends the lift
    c.keep_at_end_of(True, 7, plan.injection)
    assert c.logs["ep"].awaited == [7]
    assert c.command_ended("ep", 7, 480) and not c.command_ended("other", 7, 480)
    (rec,) = c.logs["ep"].report()
    assert (rec.fault, rec.step) == ("F2", 480)
    c.keep_at_end_of(False, 0, plan.injection)  # refused: acted in no step
    assert c.logs["ep"].report()[0].step == 0


def test_f4_corrupts_text_from_its_stream_deterministically() -> None:
    a, b = core("F4", 1.0), core("F4", 1.0)
    text = '{"schema_version": 1, "object": "red", "steps": [{"action": "GRIP"}]}'
    assert a.plan_text(text) == b.plan_text(text)
    assert [r.fault for r in a.logs["ep"].report()] == ["F4"]


def test_f1_holds_statuses_until_the_stream_reaches_them_and_serves_the_past() -> None:
    c = core("F1", 1.0)
    assert c.holds("ep") and not c.holds("other")
    c.on_batch("ep", 16, {"red": obj("red", 0.40)})
    status = NS(episode_id="ep", end_step=100, objects=[obj("red", 0.50)])
    assert c.hold(status) == [] and not c.stream_reached(100)
    (released,) = c.on_batch("ep", 100, {"red": obj("red", 0.50)})
    assert released is status and released.objects[0].position[0] == 0.40  # the oldest snapshot
    assert c.stream_reached(100)
    (rec,) = c.logs["ep"].report()
    assert rec.fault == "F1" and rec.step == 100 and rec.delivered["position_error"] == pytest.approx(0.1)
    assert rec.delivered["saturated"] == 1.0


def test_f1_history_restarts_with_the_steps_of_an_episode_reset_under_the_same_id() -> None:
    c = core("F1", 1.0)
    c.on_batch("ep", 1260, {"red": obj("red", 0.40)})
    c.on_batch("ep", 16, {"red": obj("red", 0.30)})  # steps restarted: no "older than the newest" error
    assert not c.stream_reached(100)
    c.on_batch("ep", 32, {"red": obj("red", 0.35)})
    assert c.delayed(32, [obj("red", 0.35)])[0].position[0] == 0.30  # only the new history is served
