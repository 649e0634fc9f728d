import json

import pytest

from alpha_matrix.core.planning.guards import check_against_scene, parse_plan_text, validate_schema
from alpha_matrix.core.planning.plan import Plan, PlanError, plan_json_schema, plan_to_text

GOOD = {
    "object": "red",
    "steps": [
        {"action": "MOVE_TO", "target": [0.5, 0.0, 0.77], "steps": 300},
        {"action": "MOVE_TO", "target": [0.5, 0.0, 0.646], "steps": 120},
        {"action": "GRIP", "steps": 60},
        {"action": "MOVE_TO", "target": [0.5, 0.0, 0.8], "steps": 120},
        {"action": "MOVE_TO", "target": [0.6, 0.35, 0.657], "steps": 330},
        {"action": "RELEASE", "steps": 210},
    ],
}
SCENE = {"red": (0.5, 0.0, 0.65), "green": (0.4, -0.2, 0.65)}


def test_round_trip_text_is_canonical():
    plan = validate_schema(GOOD)
    text = plan_to_text(plan)
    assert parse_plan_text(text) == plan
    assert plan_to_text(parse_plan_text(text)) == text


@pytest.mark.parametrize(
    ("text", "kind", "match"),
    [
        ('{"object": "red", "steps": [', "json", "not valid JSON"),
        (json.dumps({"steps": GOOD["steps"]}), "schema", "object: Field required"),
        (json.dumps({**GOOD, "extra": 1}), "schema", "extra: Extra inputs"),
        (json.dumps({**GOOD, "steps": [{"action": "EXPLODE"}]}), "schema", "steps.0"),
        (json.dumps({**GOOD, "steps": [{"action": "MOVE_TO", "target": [0, 0]}]}), "schema", "target"),
        ("[1, 2]", "schema", "<root>"),
    ],
)
def test_invalid_text_is_a_plan_error_never_a_crash(text, kind, match):
    with pytest.raises(PlanError, match=match) as info:
        parse_plan_text(text)
    assert info.value.kind == kind


def test_nan_target_rejected():
    bad = {**GOOD, "steps": [{"action": "MOVE_TO", "target": [float("nan"), 0, 0]}]}
    with pytest.raises(PlanError):
        validate_schema(bad)


def test_scene_guard_accepts_good_plan():
    check_against_scene(validate_schema(GOOD), SCENE, grasp_tolerance=0.05)


def test_scene_guard_unknown_object():
    with pytest.raises(PlanError, match="'purple' is not in the observed scene") as info:
        check_against_scene(validate_schema({**GOOD, "object": "purple"}), SCENE, 0.05)
    assert info.value.kind == "semantic"


def test_scene_guard_grasp_far_from_block():
    steps = [dict(s) for s in GOOD["steps"]]
    steps[1]["target"] = [0.3, 0.1, 0.646]
    with pytest.raises(PlanError, match="GRIP at 0.2"):
        check_against_scene(validate_schema({**GOOD, "steps": steps}), SCENE, 0.05)


def test_scene_guard_grip_before_move():
    with pytest.raises(PlanError, match="GRIP before any MOVE_TO"):
        check_against_scene(validate_schema({"object": "red", "steps": [{"action": "GRIP"}]}), SCENE, 0.05)


def test_json_schema_is_available_for_structured_output():
    schema = plan_json_schema()
    assert set(schema["required"]) >= {"object", "steps"}
    assert Plan.model_json_schema() == schema
