"""One raw answer -> one Decision, judged against the tools offered at that decision point.

The model's output is data. It is parsed as JSON (never evaluated), and a tool name is only
ever compared, exactly, with the names of the offered tools: nothing is looked up by it, nothing
is imported, dispatched or executed here. What does not fit is an *invalid* decision with a
kind and a one-line detail, never an exception (an exception here is our own configuration:
a tool offered twice, or a tool schema that is not a JSON schema).

Rules, in order:

0. An answer the server cut at the completion cap (finish_reason "length") is ``truncated``,
   whatever it holds so far: it is not the model's whole answer.
1. Native tool calls win over text (APIs often send both; the text is then commentary).
   Exactly one is allowed: several calls in one answer are ``bad_arguments`` (the bench asks
   for one action per decision point, and picking one would act on a choice the model never
   made alone).
2. Otherwise the text: empty (or only whitespace) is ``no_decision``. The JSON is either the
   whole text, or the content of the one fenced block (```` ```json ```` or an unlabelled
   fence); prose around an unfenced object is not searched. No such JSON is ``no_json``; two
   fenced blocks are ``bad_arguments`` (two decisions), as two native calls are.
   NaN and Infinity are not JSON; a raw control character inside a string is tolerated.
3. The JSON must be an object of exactly one of these shapes, else ``no_decision``:
   ``{"tool": name, "arguments": {...}}``, ``{"name": name, "arguments": {...}}`` (arguments
   may be omitted for ``{}``, or be a JSON string holding the object), ``{"message": "text"}``.
4. A call's name must be one of the offered tools (exact, case-sensitive), else
   ``unknown_tool``; its arguments must be a JSON object satisfying the tool's ``parameters``
   (JSON Schema Draft 2020-12, additionalProperties as the schema says; numbers finite,
   nesting bounded), else ``bad_arguments``.

Every Decision keeps the answer's provenance (raw text included) for the record.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match
from referencing import Registry
from referencing.exceptions import Unresolvable

from alpha_matrix.core.agent.protocol import Decision, InvalidKind, RawAnswer, RawToolCall, Tool, ToolCall
from alpha_matrix.core.errors import ConfigError

MAX_TEXT_CHARS = 200_000  # longer answers are not parsed (a bound on work, far above any real answer)
MAX_DEPTH = 32  # nesting of arguments; deeper is bad_arguments (and never reaches a recursion limit)
DETAIL_CHARS = 200

_CALL_KEYS = ({"tool"}, {"tool", "arguments"}, {"name"}, {"name", "arguments"})


class _Invalid(Exception):
    """Internal: the answer does not fit; becomes an invalid Decision."""

    def __init__(self, kind: InvalidKind, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def _one_line(text: str, limit: int = DETAIL_CHARS) -> str:
    s = " ".join(text.split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def _short(value: object, limit: int = 60) -> str:
    """A bounded repr of model-provided data for a detail line."""
    r = repr(value[:limit] if isinstance(value, str) else value)
    return r if len(r) <= limit + 8 else r[: limit + 5] + "..."


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _loads(text: str) -> Any:
    """JSON without NaN/Infinity; ValueError for anything else, including too deep nesting.
    Control characters inside strings (a raw newline in a message) are taken as they are."""
    try:
        return json.loads(text, parse_constant=_reject_constant, strict=False)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _check_json_value(value: Any) -> None:
    """Arguments must be plain JSON: finite numbers, string keys, bounded nesting (iterative walk)."""
    stack: list[tuple[Any, int, str]] = [(value, 0, "$")]
    while stack:
        item, depth, where = stack.pop()
        if depth > MAX_DEPTH:
            raise _Invalid("bad_arguments", f"arguments nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            for key, sub in item.items():
                if not isinstance(key, str):
                    raise _Invalid("bad_arguments", f"{where}: non-string key {_short(key)}")
                stack.append((sub, depth + 1, f"{where}.{key[:40]}"))
        elif isinstance(item, list | tuple):
            stack.extend((sub, depth + 1, f"{where}[{i}]") for i, sub in enumerate(item))
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise _Invalid("bad_arguments", f"{where}: {item} is not a finite number")
        elif item is not None and not isinstance(item, str | int):  # bool is an int
            raise _Invalid("bad_arguments", f"{where}: a {type(item).__name__} is not JSON")


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Draft202012Validator:
    """A Draft 2020-12 validator; the empty registry means a $ref never fetches anything."""
    schema = json.loads(schema_json)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as err:
        raise ConfigError(f"tool parameters are not a valid JSON schema: {_one_line(err.message)}") from None
    return Draft202012Validator(schema, registry=Registry())


def tool_validator(tool: Tool) -> Draft202012Validator:
    """The validator of a tool's parameters (a ConfigError if they are not a JSON schema)."""
    return _validator(json.dumps(tool.parameters, sort_keys=True))


def offered(tools: Iterable[Tool]) -> dict[str, Tool]:
    """Offered tools by name; a name offered twice is a ConfigError (which one would be meant?)."""
    by_name: dict[str, Tool] = {}
    for tool in tools:
        if tool.name in by_name:
            raise ConfigError(f"tool {tool.name!r} is offered twice")
        by_name[tool.name] = tool
    if not by_name:
        raise ConfigError("no tools offered")
    return by_name


def _validated_call(tools: dict[str, Tool], name: Any, arguments: Any) -> ToolCall:
    if not isinstance(name, str) or name not in tools:
        listed = ", ".join(sorted(tools))
        raise _Invalid("unknown_tool", f"tool {_short(name)} is not offered (offered: {listed})")
    if isinstance(arguments, str):
        try:
            arguments = _loads(arguments) if arguments.strip() else {}
        except ValueError as err:
            raise _Invalid("bad_arguments", f"{name}: arguments are not JSON ({err})") from None
    if not isinstance(arguments, dict):
        raise _Invalid("bad_arguments", f"{name}: arguments must be a JSON object, got {type(arguments).__name__}")
    _check_json_value(arguments)
    validator = tool_validator(tools[name])
    try:
        error = best_match(validator.iter_errors(arguments))
    except RecursionError:  # a recursive schema over deep data; MAX_DEPTH makes this unlikely
        raise _Invalid("bad_arguments", f"{name}: arguments nested too deeply to validate") from None
    except Unresolvable as err:  # our schema's fault, not the model's: nothing is ever fetched
        raise ConfigError(
            f"tool {name!r}: parameters schema has an unresolvable $ref ({_one_line(str(err))})"
        ) from None
    if error is not None:
        where = error.json_path
        raise _Invalid("bad_arguments", f"{name}: {where}: {error.message}")
    return ToolCall(name=name, arguments=arguments)


def _native(tools: dict[str, Tool], calls: Sequence[RawToolCall]) -> ToolCall:
    if len(calls) > 1:
        names = ", ".join(_short(c.name, 30) for c in calls[:5])
        raise _Invalid("bad_arguments", f"{len(calls)} tool calls in one answer ({names}); exactly one is allowed")
    return _validated_call(tools, calls[0].name, calls[0].arguments)


def _fenced_blocks(text: str) -> list[str]:
    """Contents of ```json / ``` fences (linear: a split, no backtracking regex)."""
    parts = text.split("```")
    blocks = []
    for inner in parts[1:-1:2]:  # odd parts are inside a fence; an unclosed last fence is not a block
        label, _, body = inner.partition("\n")
        if label.strip().lower() in ("", "json"):
            blocks.append(body)
        elif label.lstrip().startswith(("{", "[")):  # ```{...}``` on one line
            blocks.append(inner)
    return blocks


def _text_json(text: str) -> Any:
    if len(text) > MAX_TEXT_CHARS:
        raise _Invalid("no_json", f"answer of {len(text)} characters is over the {MAX_TEXT_CHARS}-character limit")
    try:
        return _loads(text)
    except ValueError as whole_err:
        blocks = _fenced_blocks(text)
        if not blocks:
            raise _Invalid("no_json", f"no JSON object and no tool call in the answer ({whole_err})") from None
        if len(blocks) > 1:
            raise _Invalid(
                "bad_arguments", f"{len(blocks)} fenced JSON blocks; exactly one decision is allowed"
            ) from None
        try:
            return _loads(blocks[0])
        except ValueError as err:
            raise _Invalid("no_json", f"the fenced block is not JSON ({err})") from None


def _from_text(tools: dict[str, Tool], text: str) -> ToolCall | str:
    """A tool call, or the message text."""
    obj = _text_json(text)
    if not isinstance(obj, dict):
        raise _Invalid("no_decision", f"the JSON is a {type(obj).__name__}, not an object with tool or message")
    keys = set(obj)
    if keys == {"message"}:
        message = obj["message"]
        if not isinstance(message, str) or not message.strip():
            raise _Invalid("no_decision", f"message must be a non-empty string, got {_short(message)}")
        return message
    if keys in _CALL_KEYS:
        name = obj.get("tool", obj.get("name"))
        return _validated_call(tools, name, obj.get("arguments", {}))
    shown = ", ".join(_short(k, 30) for k in sorted(keys)[:6])
    raise _Invalid(
        "no_decision",
        f"JSON keys {{{shown}}} are not a decision ({{tool|name, arguments}} or {{message}})",
    )


def decide(tools: Iterable[Tool], raw: RawAnswer) -> Decision:
    """The one Decision the raw answer amounts to, judged against the offered tools."""
    by_name = offered(tools)
    try:
        if raw.truncated:  # whatever came before the cap is not the model's whole answer
            cap = f"max_tokens={raw.max_tokens}" if raw.max_tokens else "the server's completion cap"
            raise _Invalid("truncated", f"the answer was cut at {cap} ({len(raw.text)} characters, "
                           f"{len(raw.tool_calls)} tool call(s) so far); raise agent.max_tokens or ask for less")  # fmt: skip
        if raw.tool_calls:
            result: ToolCall | str = _native(by_name, raw.tool_calls)
        elif not raw.text.strip():
            raise _Invalid("no_decision", "empty answer: no text and no tool call")
        else:
            result = _from_text(by_name, raw.text.strip())
    except _Invalid as inv:
        return Decision(
            kind="invalid",
            invalid=inv.kind,
            invalid_detail=_one_line(inv.detail),
            provenance=raw.provenance,
            attempts=raw.attempts,
        )
    if isinstance(result, str):
        return Decision(kind="message", message=result, provenance=raw.provenance, attempts=raw.attempts)
    return Decision(kind="tool_call", call=result, provenance=raw.provenance, attempts=raw.attempts)
