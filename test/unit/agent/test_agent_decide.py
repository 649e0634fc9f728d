"""decide(): a raw answer becomes one Decision against the offered tools; hostile text stays data."""

from __future__ import annotations

import json

import pytest

from alpha_matrix.core.agent.decide import MAX_DEPTH, MAX_TEXT_CHARS, decide
from alpha_matrix.core.agent.protocol import AgentProvenance, RawAnswer, RawToolCall, Tool
from alpha_matrix.core.errors import ConfigError

PROV = AgentProvenance(backend="test", model="m", seed=7, raw_text="as answered")
STOP = Tool(name="stop", description="stop now", parameters={"type": "object", "additionalProperties": False})
MOVE = Tool(
    name="move_to",
    description="move the arm",
    parameters={
        "type": "object",
        "properties": {
            "x": {"type": "number"},
            "y": {"type": "number"},
            "speed": {"type": "number", "minimum": 0, "maximum": 1},
        },
        "required": ["x", "y"],
        "additionalProperties": False,
    },
)
ASK = Tool(
    name="ask_human",
    description="ask the operator",
    parameters={"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]},
)
TOOLS = (STOP, MOVE, ASK)


def text(t: str):
    return decide(TOOLS, RawAnswer(text=t, provenance=PROV))


def native(*calls: RawToolCall, t: str = ""):
    return decide(TOOLS, RawAnswer(text=t, tool_calls=calls, provenance=PROV))


def invalid(d, kind: str, match: str = "") -> None:
    assert (d.kind, d.invalid, d.call, d.message) == ("invalid", kind, None, "")
    assert match in d.invalid_detail, d.invalid_detail
    assert "\n" not in d.invalid_detail and len(d.invalid_detail) <= 200
    assert d.provenance == PROV


# --- valid decisions ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        '{"tool": "move_to", "arguments": {"x": 0.5, "y": -0.1}}',
        '  {"name": "move_to", "arguments": {"x": 0.5, "y": -0.1}}\n',
        '{"tool": "move_to", "arguments": "{\\"x\\": 0.5, \\"y\\": -0.1}"}',
        'I will move.\n```json\n{"tool": "move_to", "arguments": {"x": 0.5, "y": -0.1}}\n```\nDone.',
        '```\n{"tool": "move_to", "arguments": {"x": 0.5, "y": -0.1}}\n```',
        '```JSON\n{"tool": "move_to", "arguments": {"x": 0.5, "y": -0.1}}```',
    ],
)
def test_text_tool_call_shapes(answer):
    d = text(answer)
    assert d.kind == "tool_call" and d.call is not None and d.invalid is None
    assert (d.call.name, d.call.arguments) == ("move_to", {"x": 0.5, "y": -0.1})
    assert d.provenance == PROV  # raw text and all, as the backend recorded it


def test_arguments_may_be_omitted_when_the_schema_allows():
    d = text('{"tool": "stop"}')
    assert d.kind == "tool_call" and d.call is not None and (d.call.name, d.call.arguments) == ("stop", {})


def test_message_decision_carries_the_text():
    d = text('{"message": "A person is in the zone; I will not move."}')
    assert (d.kind, d.message, d.call, d.invalid) == (
        "message",
        "A person is in the zone; I will not move.",
        None,
        None,
    )


def test_native_call_with_object_or_string_arguments():
    for args in ({"question": "clear?"}, '{"question": "clear?"}'):
        d = native(RawToolCall(name="ask_human", arguments=args))
        assert d.kind == "tool_call" and d.call is not None
        assert (d.call.name, d.call.arguments) == ("ask_human", {"question": "clear?"})


def test_native_call_wins_over_text():
    d = native(RawToolCall(name="stop"), t='{"tool": "move_to", "arguments": {"x": 1, "y": 1}}')
    assert d.kind == "tool_call" and d.call is not None and d.call.name == "stop"


def test_extra_keys_follow_the_tools_schema():
    # ask_human's schema does not forbid extra keys; move_to's does
    d = native(RawToolCall(name="ask_human", arguments={"question": "ok?", "urgency": "high"}))
    assert d.kind == "tool_call" and d.call is not None and d.call.arguments["urgency"] == "high"
    invalid(native(RawToolCall(name="move_to", arguments={"x": 1, "y": 1, "force": 9})), "bad_arguments", "force")


# --- invalid: empty, no JSON, wrong shape ------------------------------------------------------


@pytest.mark.parametrize("answer", ["", "   \n\t "])
def test_empty_answer_is_no_decision(answer):
    invalid(text(answer), "no_decision", "empty answer")


@pytest.mark.parametrize(
    "answer",
    [
        "I would stop the robot now.",
        'Sure! {"tool": "stop"}',  # prose around an unfenced object is not searched
        '{"tool": "stop"',  # truncated (the model ran out of tokens)
        "```json\nnot json at all\n```",
        '```json\n{"tool": "stop"}',  # unclosed fence
        '{"tool": "move_to", "arguments": {"x": NaN, "y": 0}}',
        '{"tool": "move_to", "arguments": {"x": Infinity, "y": 0}}',
        "print(__import__('os').system('rm -rf /'))",
        "[" * 100_000,  # deeper than the parser's recursion limit
        '{"tool": "move_to", "arguments": {"x": ' + "9" * 5000 + ', "y": 0}}',  # int digit limit
        "x" * (MAX_TEXT_CHARS + 1),
    ],
)
def test_no_json(answer):
    invalid(text(answer), "no_json")


def test_huge_answer_is_not_parsed():
    big = '{"message": "' + "a" * MAX_TEXT_CHARS + '"}'
    invalid(text(big), "no_json", "limit")


@pytest.mark.parametrize(
    ("answer", "match"),
    [
        ("[1, 2, 3]", "list"),
        ('"stop"', "str"),
        ("42", "int"),
        ("null", "NoneType"),
        ("{}", "not a decision"),
        ('{"tool": "stop", "arguments": {}, "reason": "safety"}', "reason"),
        ('{"tool": "stop", "name": "move_to"}', "not a decision"),
        ('{"tool": "stop", "message": "hi"}', "not a decision"),
        ('{"message": ""}', "non-empty string"),
        ('{"message": ["a"]}', "non-empty string"),
        ('{"type": "function", "function": {"name": "stop"}}', "not a decision"),
    ],
)
def test_json_of_the_wrong_shape_is_no_decision(answer, match):
    invalid(text(answer), "no_decision", match)


# --- invalid: unknown tools ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["eval", "exec", "__import__", "print", "open", "os.system", "/bin/sh", "../../etc/passwd",
     "alpha_matrix.core.agent.decide", "STOP", " stop", "stop ", "stop\x00", "move-to", "", "a" * 10_000],
)  # fmt: skip
def test_unknown_tool_names_are_only_compared(name):
    d = text(json.dumps({"tool": name, "arguments": {}}))
    invalid(d, "unknown_tool", "is not offered (offered: ask_human, move_to, stop)")
    invalid(native(RawToolCall(name=name)), "unknown_tool", "is not offered")


@pytest.mark.parametrize("name", [None, 3, ["stop"], {"stop": 1}, True])
def test_a_non_string_tool_name_is_unknown(name):
    invalid(text(json.dumps({"tool": name})), "unknown_tool")


def test_only_offered_tools_count():
    d = decide((STOP,), RawAnswer(text='{"tool": "move_to", "arguments": {"x": 1, "y": 1}}', provenance=PROV))
    invalid(d, "unknown_tool", "(offered: stop)")


# --- invalid: bad arguments ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ({"x": "0.5", "y": 0}, "$.x"),  # wrong type
        ({"x": True, "y": 0}, "$.x"),  # a bool is not a number here
        ({"x": 0.5}, "'y' is a required property"),
        ({"x": 0, "y": 0, "speed": 2}, "$.speed"),
        ({"x": None, "y": 0}, "$.x"),
        ({"x": [0.5], "y": 0}, "$.x"),
        ({"x": 0, "y": 0, "__class__": "os"}, "__class__"),
        ([0.5, 0.1], "must be a JSON object"),
        ("not json", "not JSON"),
        ('"a string"', "must be a JSON object"),
        ('{"x": NaN, "y": 0}', "NaN is not JSON"),
    ],
)
def test_bad_arguments(args, match):
    if not isinstance(args, list):  # RawToolCall itself holds only an object or a string
        invalid(native(RawToolCall(name="move_to", arguments=args)), "bad_arguments", match)
    if not isinstance(args, str):
        invalid(text(json.dumps({"tool": "move_to", "arguments": args})), "bad_arguments", match)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_numbers_in_native_arguments(value):
    # some clients parse NaN into a float; a JSON schema "number" would accept it
    invalid(native(RawToolCall(name="move_to", arguments={"x": value, "y": 0})), "bad_arguments", "not a finite")


def test_non_json_values_in_native_arguments():
    invalid(native(RawToolCall(name="ask_human", arguments={"question": "q", "s": {1, 2}})), "bad_arguments", "set")
    invalid(native(RawToolCall(name="ask_human", arguments={"question": "q", "b": b"x"})), "bad_arguments", "bytes")


def test_nested_garbage_is_bounded():
    deep: dict = {"question": "q"}
    node = deep
    for _ in range(MAX_DEPTH + 5):
        node["n"] = {}
        node = node["n"]
    invalid(native(RawToolCall(name="ask_human", arguments=deep)), "bad_arguments", "nested deeper")
    invalid(text(json.dumps({"tool": "ask_human", "arguments": deep})), "bad_arguments", "nested deeper")
    # garbage that is shallow but wide stays a plain (allowed) value under ask_human's schema
    wide = {"question": "q", "junk": [[{"a": [None, 1, "x"]}] * 50] * 50}
    assert native(RawToolCall(name="ask_human", arguments=wide)).kind == "tool_call"


def test_huge_argument_value_gives_a_short_detail():
    d = native(RawToolCall(name="move_to", arguments={"x": "9" * 100_000, "y": 0}))
    invalid(d, "bad_arguments", "$.x")


def test_several_native_calls_are_invalid():
    d = native(RawToolCall(name="stop"), RawToolCall(name="move_to", arguments={"x": 1, "y": 1}))
    invalid(d, "bad_arguments", "2 tool calls in one answer ('stop', 'move_to'); exactly one")


def test_several_fenced_blocks_are_invalid():
    answer = '```json\n{"tool": "stop"}\n```\nor\n```json\n{"message": "hi"}\n```'
    invalid(text(answer), "bad_arguments", "2 fenced JSON blocks")


# --- our own configuration errors ---------------------------------------------------------------


def test_configuration_errors_raise():
    with pytest.raises(ConfigError, match="offered twice"):
        decide((STOP, STOP), RawAnswer(text='{"tool": "stop"}', provenance=PROV))
    with pytest.raises(ConfigError, match="no tools offered"):
        decide((), RawAnswer(text='{"tool": "stop"}', provenance=PROV))
    bad = Tool(name="bad", description="", parameters={"type": "no-such-type"})
    with pytest.raises(ConfigError, match="not a valid JSON schema"):
        decide((bad,), RawAnswer(text='{"tool": "bad"}', provenance=PROV))
    remote = Tool(name="remote", description="", parameters={"$ref": "https://example.invalid/schema.json"})
    with pytest.raises(ConfigError, match="unresolvable"):  # never fetched
        decide((remote,), RawAnswer(text='{"tool": "remote"}', provenance=PROV))


def test_a_raw_newline_inside_a_message_string_is_tolerated():
    d = text('{"message": "Stopping.\nA person is near."}')
    assert (d.kind, d.message) == ("message", "Stopping.\nA person is near.")
