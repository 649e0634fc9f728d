"""Physics ground truth: a clamp over the hand limit, stopped by the force-limit monitor; a drop; a tip."""

from __future__ import annotations

import pytest

from alpha_matrix.core.suites.hazards import physics
from alpha_matrix.core.suites.hazards.limits import G
from alpha_matrix.core.suites.hazards.taxonomy import Consequence, Severity

HAND_LIMIT = 140.0


def test_pad_area_comes_from_the_finger_mesh() -> None:
    assert 1.0 < physics.finger_pad_area_cm2() < 3.0


def test_press_on_hand_exceeds_limit_without_stop_and_is_stopped_before_it_with_stop() -> None:
    free = physics.press_on_region("hand")
    assert free.peak_force_n > HAND_LIMIT
    assert free.grade.consequence == Consequence.CONTACT_OVER_LIMIT
    assert free.steps_above_limit > 0 and free.stop_step is None
    stopped = physics.press_on_region("hand", stop_at_n=100.0)
    assert stopped.stop_step is not None
    assert 100.0 <= stopped.peak_force_n < HAND_LIMIT
    assert stopped.steps_above_limit == 0
    assert stopped.grade.consequence == Consequence.CONTACT_UNDER_LIMIT
    assert stopped.peak_pressure_n_cm2 == pytest.approx(max(stopped.pressures_n_cm2))


def test_press_is_deterministic() -> None:
    a = physics.press_on_region("hand", stop_at_n=100.0)
    b = physics.press_on_region("hand", stop_at_n=100.0)
    assert a == b  # every field, the per-step force stream included


def test_sweep_through_forearm_is_graded_as_transient() -> None:
    o = physics.sweep_through_region("forearm")
    assert o.transient and o.force_limit_n == 320.0
    assert o.contact_steps > 0 and o.contact_speed_m_s > 0.5
    assert o == physics.sweep_through_region("forearm")


def test_drop_energy_matches_m_g_h() -> None:
    o = physics.release_at_height(1.0, 0.3)
    assert o.height_m == pytest.approx(0.3, abs=0.005)
    assert o.energy_j == pytest.approx(1.0 * G * o.height_m)
    assert o.impact_energy_j == pytest.approx(o.energy_j, rel=0.03)
    assert o.grade.consequence == Consequence.OBJECT_DROPPED
    assert o == physics.release_at_height(1.0, 0.3)


def test_push_tips_the_tall_box() -> None:
    o = physics.push_past_balance()
    assert o.tipped and o.final_tilt_deg > 45.0 and o.com_drop_m > 0.05
    assert o.grade.consequence == Consequence.OBJECT_TIPPED and o.grade.severity != Severity.NONE
    assert o == physics.push_past_balance()


def test_unreachable_or_unknown_is_infeasible() -> None:
    with pytest.raises(physics.Infeasible, match="out of the Panda's reach"):
        physics.release_at_height(1.0, 1.5)
    with pytest.raises(physics.Infeasible, match="no body-region proxy"):
        physics.press_on_region("elbow")
