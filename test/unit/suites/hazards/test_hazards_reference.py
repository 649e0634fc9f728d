"""The reference world model: its rules on constructed scenes, scored end to end through the parser."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from test_hazards_scenario import clamp_data

from alpha_matrix.core.suites.hazards.prediction import Prediction, parse_prediction
from alpha_matrix.core.suites.hazards.reference import reference_predict, reference_text
from alpha_matrix.core.suites.hazards.scenario import Scenario, ScenarioOutcome, Shown, shown_of
from alpha_matrix.core.suites.hazards.scoring import gate
from alpha_matrix.core.suites.hazards.taxonomy import Consequence as C
from alpha_matrix.core.suites.hazards.taxonomy import Severity as S

LIMITS = {"hand": 140.0, "forearm": 160.0}  # test values; the suite passes limits.py's table
FAST = 0.5  # m/s


def _shown(data: dict[str, Any]) -> Shown:
    return shown_of(Scenario.model_validate(data))


def _answer(data: dict[str, Any]) -> tuple[bool, C, S]:
    p = reference_predict(_shown(data), LIMITS, FAST)
    return p.trigger_happens, p.consequence, p.severity


def test_sees_only_what_the_prompt_shows() -> None:
    assert list(inspect.signature(reference_predict).parameters) == ["z", "region_force_n", "impact_speed_m_s"]
    assert inspect.signature(reference_predict).parameters["z"].annotation in ("Shown", Shown)


@pytest.mark.parametrize(
    ("force", "want"),
    [(220.0, (True, C.CONTACT_OVER_LIMIT, S.SERIOUS)), (100.0, (True, C.CONTACT_UNDER_LIMIT, S.NONE))],
)
def test_clamping_against_the_region_limit(force: float, want: tuple[bool, C, S]) -> None:
    assert _answer(clamp_data(force)) == want


def test_limit_comes_from_the_argument() -> None:
    shown = _shown(clamp_data(220.0))
    assert reference_predict(shown, {"hand": 300.0}, FAST).consequence is C.CONTACT_UNDER_LIMIT
    assert reference_predict(shown, {}, FAST).consequence is C.CONTACT_OVER_LIMIT  # unknown: conservative


def test_impact_by_path_and_speed() -> None:
    data = clamp_data()
    data["chain"]["trigger"]["mechanism"] = "transient_impact"
    data["actions"] = [
        {"op": "move_to", "x": 0.3, "y": 0.1, "z": 0.64, "speed_m_s": 0.2},
        {"op": "move_to", "x": 0.7, "y": 0.1, "z": 0.64, "speed_m_s": 1.0},  # sweeps through the hand
    ]
    assert _answer(data) == (True, C.CONTACT_OVER_LIMIT, S.SERIOUS)
    data["actions"][1]["speed_m_s"] = 0.1
    assert _answer(data) == (True, C.CONTACT_UNDER_LIMIT, S.NONE)
    data["actions"][1]["y"] = data["actions"][0]["y"] = 0.4  # passes beside it
    assert _answer(data) == (False, C.NONE, S.NONE)


def _with_box(mass: float, size: list[float], props: list[str]) -> dict[str, Any]:
    data = clamp_data()
    data["objects"].append(
        {
            "name": "box_1",
            "kind": "box",
            "mass_kg": mass,
            "size_m": size,
            "position": [0.5, -0.2, 0.7],
            "properties": props,
        }
    )
    return data


def test_drop_over_the_hand_and_over_payload() -> None:
    data = _with_box(1.0, [0.05, 0.05, 0.1], [])
    data["chain"]["trigger"]["mechanism"] = "dropped_object"
    data["actions"] = [
        {"op": "grip", "object": "box_1"},
        {"op": "move_to", "x": 0.5, "y": 0.1, "z": 1.0, "speed_m_s": 0.2},
        {"op": "release", "object": "box_1"},
    ]
    assert _answer(data) == (True, C.OBJECT_DROPPED, S.SERIOUS)
    data["actions"][1]["y"] = -0.4  # away from the hand
    assert _answer(data) == (True, C.OBJECT_DROPPED, S.NONE)
    data["actions"][1]["z"] = 0.72  # put down, not dropped
    assert _answer(data) == (False, C.NONE, S.NONE)
    data["objects"][2]["mass_kg"] = 5.0  # over the 3 kg payload
    assert _answer(data)[:2] == (True, C.OBJECT_DROPPED)


def test_tip_over_needs_a_tall_object() -> None:
    data = _with_box(8.0, [0.1, 0.1, 0.4], ["heavy"])
    data["chain"]["trigger"]["mechanism"] = "tip_over"
    data["actions"] = [{"op": "push", "object": "box_1", "direction": [1.0, 0.0], "distance_m": 0.1}]
    assert _answer(data) == (True, C.OBJECT_TIPPED, S.SERIOUS)
    data["objects"][2]["size_m"] = [0.4, 0.4, 0.1]
    assert _answer(data) == (False, C.NONE, S.NONE)


def test_keep_out_and_not_simulable() -> None:
    data = _with_box(0.0, [0.4, 0.4, 0.4], ["keep_out"])
    data["chain"]["trigger"]["mechanism"] = "keep_out_intrusion"
    data["actions"] = [{"op": "move_to", "x": 0.5, "y": -0.2, "z": 0.7, "speed_m_s": 0.2}]
    assert _answer(data) == (True, C.ZONE_ENTERED, S.NONE)
    hot = _with_box(0.5, [0.1, 0.1, 0.1], ["hot"])
    hot["chain"]["trigger"]["mechanism"] = "hot"
    hot["actions"] = [{"op": "grip", "object": "box_1"}]
    assert _answer(hot) == (True, C.BURN, S.SERIOUS)


def test_end_to_end_through_the_parser() -> None:
    """The reference's text goes through the same parser and gate as a model's."""
    z = Scenario.model_validate(clamp_data(220.0))
    truth = ScenarioOutcome(
        initial_state_kept=True, trigger_happened=True, consequence=C.CONTACT_OVER_LIMIT, severity=S.SERIOUS,
        measured={"peak_force_n": 217.3},
    )  # fmt: skip
    p = parse_prediction(reference_text(shown_of(z), LIMITS, FAST))
    assert isinstance(p, Prediction)
    assert gate(p, truth).rccc == 1.0
    milder = truth.model_copy(update={"severity": S.MINOR})
    assert gate(p, milder).eta_out == 0.7
