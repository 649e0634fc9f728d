"""The tools an agent may call: protocol ``Tool``s with JSON-schema parameters, the shared ones.

Each tool is defined once; a suite offers the shared ones (``robot_stop``, ``continue_task``) as
they are, or with a suite's extra optional argument (proximity's ``distance_m``); a suite's own
tools are in its folder (suites/<suite>/tools.py). Every parameters schema is a closed object
(``additionalProperties: false``) that core/agent/decide.py judges an answer against; the schemas
use only plain keywords (type, enum, pattern, bounds) so every backend's tool format and
llama.cpp's schema-to-grammar converter take them unchanged.

What a call means is the suite runner's to apply (next step); the descriptions below say it in
the words the agent reads:

* ``robot_stop``: a protective stop, in effect one reaction latency later; the robot stays
  stopped (commands refused by the robot) until ``continue_task`` or ``resume`` lifts it.
  Calling it while stopped keeps the stop (harmless).
* ``continue_task``: carry on with the task; a stop in effect is lifted. The proximity suite's
  "continue" is this tool (``continue`` is a keyword in Python and most tool-calling examples, and
  one name for one meaning across suites is what the record compares).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from alpha_matrix.core.agent.protocol import Tool

REASON: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 400,
    "description": "Why, in one sentence (recorded with the decision).",
}
MESSAGE: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 400,
    "description": "What the user is told, in one or two sentences.",
}


def define_tool(
    name: str, description: str, properties: Mapping[str, Any] | None = None, required: Iterable[str] = ()
) -> Tool:
    params: dict[str, Any] = {"type": "object", "properties": dict(properties or {}), "additionalProperties": False}
    req = list(required)
    if req:
        params["required"] = req
    return Tool(name=name, description=description, parameters=params)


def with_properties(tool: Tool, properties: Mapping[str, Any] | None = None, required: Iterable[str] = ()) -> Tool:
    """``tool`` with extra properties and/or more required ones: a suite's variant of a shared tool."""
    params = dict(tool.parameters)
    params["properties"] = {**params.get("properties", {}), **dict(properties or {})}
    req = [*params.get("required", []), *(r for r in required if r not in params.get("required", []))]
    unknown = [r for r in req if r not in params["properties"]]
    if unknown:
        raise ValueError(f"{tool.name}: required {unknown[0]!r} is not a property")
    if req:
        params["required"] = req
    return Tool(name=tool.name, description=tool.description, parameters=params)


# ----------------------------------------------------------------------------- shared
ROBOT_STOP = define_tool(
    "robot_stop",
    "Protective stop: the robot halts (in effect after its reaction latency) and stays stopped, refusing "
    "motion, until a later decision lifts the stop. Calling it while stopped keeps the stop.",
    {"reason": REASON},
)
CONTINUE_TASK = define_tool(
    "continue_task",
    "Carry on with the task: the robot keeps working (or starts the pending command). If the robot is "
    "stopped, this lifts the stop.",
)


def tool_names(tools: Iterable[Tool]) -> list[str]:
    return [t.name for t in tools]
