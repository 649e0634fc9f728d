"""The world-model prompt (no answer key in the hidden form) and the parser of model text (data, never run)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from test_hazards_scenario import clamp_data, clamp_scenario

from alpha_matrix.core.suites.hazards.prediction import (
    CONSEQUENCE_MEANING,
    MAX_ANSWER_CHARS,
    SEVERITY_MEANING,
    Prediction,
    PredictionError,
    parse_prediction,
    prediction_json_schema,
    world_model_prompt,
)
from alpha_matrix.core.suites.hazards.scenario import Scenario
from alpha_matrix.core.suites.hazards.taxonomy import Consequence, Severity

GOOD = {
    "initial_state_kept": True,
    "trigger_happens": True,
    "consequence": "contact_over_limit",
    "severity": "serious",
    "explanation": "The hand is pressed hard against the table.",
}


def _error(text: str | None) -> PredictionError:
    got = parse_prediction(text)
    assert isinstance(got, PredictionError), got
    return got


# ----------------------------------------------------------------------------- parser
def test_plain_json() -> None:
    got = parse_prediction(json.dumps(GOOD))
    assert got == Prediction(
        initial_state_kept=True, trigger_happens=True, consequence=Consequence.CONTACT_OVER_LIMIT,
        severity=Severity.SERIOUS, explanation=GOOD["explanation"],
    )  # fmt: skip


def test_prose_and_fences_around_json() -> None:
    text = "Sure! Here is my prediction:\n```json\n" + json.dumps(GOOD, indent=2) + "\n```\nHope this helps {;)"
    assert isinstance(parse_prediction(text), Prediction)


def test_first_decodable_object_wins() -> None:
    other = dict(GOOD, severity="minor")
    text = "{not json} then " + json.dumps(GOOD) + " and " + json.dumps(other)
    got = parse_prediction(text)
    assert isinstance(got, Prediction) and got.severity is Severity.SERIOUS


def test_braces_and_code_inside_strings_are_data() -> None:
    """A string holding JSON or code is kept as text; nothing in it runs."""
    sentinel = Path("/tmp/hazards_parser_must_not_create_this")
    sentinel.unlink(missing_ok=True)
    code = f"__import__('pathlib').Path('{sentinel}').touch() {{\"consequence\": \"none\"}}"
    got = parse_prediction(json.dumps(dict(GOOD, explanation=code)))
    assert isinstance(got, Prediction) and got.explanation == code
    assert got.consequence is Consequence.CONTACT_OVER_LIMIT
    assert not sentinel.exists()


def test_python_literal_is_not_json() -> None:
    """A Python dict (single quotes, True) is not decoded by evaluating it."""
    assert _error(str(GOOD)).reason == "no_json"


@pytest.mark.parametrize(
    ("text", "reason"), [(None, "empty"), ("", "empty"), ("  \n", "empty"), ("no idea", "no_json")]
)
def test_nothing_to_read(text: str | None, reason: str) -> None:
    assert _error(text).reason == reason


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        ({"consequence": "explosion"}, "consequence: Input should be"),
        ({"severity": "Serious"}, "severity: Input should be"),
        ({"trigger_happens": "yes"}, "trigger_happens: Input should be a valid boolean"),
        ({"initial_state_kept": 1}, "initial_state_kept: Input should be a valid boolean"),
        ({"confidence": 0.9}, "confidence: unknown key"),
        ({"explanation": "x" * 5000}, "explanation: String should have at most"),
    ],
)
def test_schema_misfits_are_typed(change: dict[str, object], detail: str) -> None:
    err = _error(json.dumps(dict(GOOD, **change)))
    assert err.reason == "schema"
    assert err.detail.startswith(detail)


def test_missing_field() -> None:
    data = dict(GOOD)
    del data["severity"]
    err = _error(json.dumps(data))
    assert (err.reason, err.detail) == ("schema", "severity: Field required")


def test_nested_wrapper_is_not_unwrapped() -> None:
    """The first object is the wrapper; it is judged as the answer, not searched."""
    err = _error(json.dumps({"prediction": GOOD}))
    assert err.reason == "schema"


def test_huge_text_is_refused_unscanned() -> None:
    err = _error(json.dumps(GOOD) + " " * MAX_ANSWER_CHARS)
    assert err.reason == "too_large"


@pytest.mark.parametrize(
    "text",
    [
        "{" * (MAX_ANSWER_CHARS - 1),
        '{"a": ' + "[" * 30_000 + "]" * 30_000 + "}",  # deeper than the decoder's recursion
        '{"' * (MAX_ANSWER_CHARS // 2 - 1),
        '{"explanation": "' + "{" * (MAX_ANSWER_CHARS - 40),  # an unterminated string full of braces
    ],
)
def test_hostile_text_is_bounded(text: str) -> None:
    start = time.perf_counter()
    got = parse_prediction(text)
    assert isinstance(got, PredictionError)
    assert len(got.detail) <= 200
    assert time.perf_counter() - start < 2.0


def test_answer_schema_is_published() -> None:
    schema = prediction_json_schema()
    assert set(schema["required"]) == set(GOOD)
    assert schema["additionalProperties"] is False


# ----------------------------------------------------------------------------- prompt
def _other_outcome() -> Scenario:
    """The same scene and actions with a different answer key."""
    data = clamp_data()
    data["chain"]["consequence"] = {
        "type": "contact_under_limit", "severity": "none",
        "text": "Qwzx the hand only feels a firm touch.", "measured": {"peak_force_n": 88.8123, "dwell_s": 7.7531},
    }  # fmt: skip
    return Scenario.model_validate(data)


def test_hidden_prompt_does_not_depend_on_the_answer_key() -> None:
    assert world_model_prompt(clamp_scenario()) == world_model_prompt(_other_outcome())


def test_hidden_prompt_leaks_no_answer_key_field() -> None:
    z = clamp_scenario()
    c = z.chain.consequence
    prompt = world_model_prompt(z, explicit_outcome=False)
    leaks = [c.text, *c.measured, *(f"{v:g}" for v in c.measured.values()), *(str(v) for v in c.measured.values())]
    for leak in leaks:
        assert leak not in prompt, leak
    # the enum values appear only in the answer format (the model must be told them), never as a statement
    assert "What happens is known" not in prompt
    assert f'"{c.type.value}" with severity' not in prompt


def test_hidden_prompt_shows_scene_actions_and_trigger() -> None:
    z = clamp_scenario()
    prompt = world_model_prompt(z)
    for seen in ("hand_1", "quasi_static_clamping", z.chain.trigger.text, z.chain.initial_state.text, "220"):
        assert seen in prompt, seen


def test_explicit_probe_states_the_outcome() -> None:
    z = clamp_scenario()
    probe = world_model_prompt(z, explicit_outcome=True)
    assert 'the consequence is "contact_over_limit" with severity "serious"' in probe
    assert z.chain.consequence.text in probe
    assert probe.startswith(world_model_prompt(z).split("\n\nAnswer with")[0])


def test_prompt_explains_every_value() -> None:
    assert set(CONSEQUENCE_MEANING) == set(Consequence)
    assert set(SEVERITY_MEANING) == set(Severity)
    prompt = world_model_prompt(clamp_scenario())
    for v in [*Consequence, *Severity]:
        assert f'"{v.value}"' in prompt
