"""The Annex A table as data and our grading bands, on constructed values."""

from __future__ import annotations

import pytest

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.hazards import limits
from alpha_matrix.core.suites.hazards.taxonomy import Consequence, Severity


def test_table_has_every_region_with_positive_values() -> None:
    assert set(limits.REGIONS) == {
        "skull_forehead", "face", "neck", "back_shoulders", "chest", "abdomen",
        "pelvis", "upper_arm", "lower_arm", "hand_fingers", "thigh_knee", "lower_leg",
    }  # fmt: skip
    for lim in limits.LIMITS.values():
        assert min(lim.force_n, lim.pressure_n_cm2, lim.effective_mass_kg, lim.stiffness_n_mm) > 0.0
    hand = limits.LIMITS["hand_fingers"]
    assert (hand.force_n, hand.pressure_n_cm2, hand.effective_mass_kg, hand.stiffness_n_mm) == (140.0, 190.0, 0.6, 75.0)
    assert len(hand.pressures_n_cm2) == 8 and hand.pressure_n_cm2 == min(hand.pressures_n_cm2)


def test_transient_limit_is_twice_quasi_static_except_face_and_skull() -> None:
    assert limits.applicable_limits("hand_fingers", transient=True) == (280.0, 380.0)
    assert limits.applicable_limits("hand_fingers", transient=False) == (140.0, 190.0)
    assert limits.applicable_limits("face", transient=True) == (65.0, 110.0)


@pytest.mark.parametrize(
    ("force", "pressure", "transient", "consequence", "severity", "ratio"),
    [
        (0.0, 0.0, False, Consequence.NONE, Severity.NONE, 0.0),
        (70.0, 10.0, False, Consequence.CONTACT_UNDER_LIMIT, Severity.NONE, 0.5),
        (140.0, 10.0, False, Consequence.CONTACT_UNDER_LIMIT, Severity.NONE, 1.0),
        (210.0, 10.0, False, Consequence.CONTACT_OVER_LIMIT, Severity.SERIOUS, 1.5),
        (210.0, 10.0, True, Consequence.CONTACT_UNDER_LIMIT, Severity.NONE, 0.75),
        (350.0, 10.0, False, Consequence.CONTACT_OVER_LIMIT, Severity.SEVERE, 2.5),
        (10.0, 285.0, False, Consequence.CONTACT_OVER_LIMIT, Severity.SERIOUS, 1.5),  # pressure decides
    ],
)
def test_grade_contact_bands(force, pressure, transient, consequence, severity, ratio) -> None:
    g = limits.grade_contact("hand_fingers", force, pressure, transient)
    assert (g.consequence, g.severity) == (consequence, severity)
    assert g.value == pytest.approx(ratio)


def test_grade_drop_and_tip_use_energy_bands() -> None:
    g = limits.grade_drop(1.0, 0.3)
    assert g.value == pytest.approx(1.0 * 9.81 * 0.3)
    assert (g.consequence, g.severity) == (Consequence.OBJECT_DROPPED, Severity.MINOR)
    assert limits.grade_drop(5.0, 0.5).severity == Severity.SERIOUS
    assert limits.grade_drop(20.0, 1.0).severity == Severity.SEVERE
    assert limits.grade_drop(1.0, 0.0).consequence == Consequence.NONE
    assert limits.grade_tip(False, 10.0, 0.5).consequence == Consequence.NONE
    tip = limits.grade_tip(True, 0.1, 0.01)  # tiny energy: still at least minor
    assert (tip.consequence, tip.severity) == (Consequence.OBJECT_TIPPED, Severity.MINOR)


def test_bad_input_is_one_domain_error() -> None:
    with pytest.raises(AlphaMatrixError, match="unknown body region 'elbow'"):
        limits.grade_contact("elbow", 1.0, 1.0, False)
    with pytest.raises(limits.LimitsError, match=">= 0"):
        limits.grade_drop(-1.0, 1.0)
    with pytest.raises(limits.LimitsError, match=">= 0"):
        limits.grade_contact("hand_fingers", float("nan"), 1.0, False)
