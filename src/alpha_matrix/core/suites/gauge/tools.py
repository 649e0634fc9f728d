"""The gauge suite's agent tools: read with the classical reader, report a reading, or decline.

Defined once here (closed JSON schemas, like core/agent/tools.py). What a call means is the
suite's to apply; an answer is data, validated against these schemas, never executed by name.

* ``read_gauge``: ask the classical reader (the gauge_reader node) for its value, uncertainty or
  its reason to abstain; offered to text-only models, which cannot see the image.
* ``report_reading(value, unit)``: the answer: the value shown, in the gauge's unit.
* ``cannot_read(reason)``: the answer when the gauge cannot be read (scored as an abstention).
"""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.agent.protocol import Tool

REASON: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 400, "description": "Why, in one sentence."}


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> Tool:
    params: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        params["required"] = required
    return Tool(name=name, description=description, parameters=params)


READ_GAUGE = _tool(
    "read_gauge",
    "Ask the classical gauge reader for its reading of the current image: a value with its uncertainty, "
    "or the reason it abstains. Its answer comes back in your next observation.",
    {},
    [],
)
CANNOT_READ = _tool(
    "cannot_read",
    "Say the gauge cannot be read from this image (nothing else is reported).",
    {"reason": REASON},
    ["reason"],
)


def report_reading(unit: str) -> Tool:
    """``report_reading`` for a gauge in ``unit`` (the unit is part of the answer, and checked)."""
    return _tool(
        "report_reading",
        "Report the value the gauge shows.",
        {
            "value": {"type": "number", "description": "The value shown, in the gauge's unit."},
            "unit": {"type": "string", "enum": [unit], "description": "The gauge's unit."},
            "uncertainty": {"type": "number", "minimum": 0, "description": "Optional: your 1-sigma uncertainty."},
        },
        ["value", "unit"],
    )


def answer_tools(unit: str) -> tuple[Tool, ...]:
    return (report_reading(unit), CANNOT_READ)


def gauge_tools(unit: str, reader: bool) -> tuple[Tool, ...]:
    """What an agent may call: the answers, and ``read_gauge`` while it may still ask the reader."""
    return (READ_GAUGE, *answer_tools(unit)) if reader else answer_tools(unit)
