"""The confidence suite's tools: check a skill's confidence, call it, replan, stop the task.

A skill is ``(skill, object, target)`` in the vocabulary of core/suites/confidence/skills.py --
``pick(obj)``; ``place(obj, zone)``, ``place(obj, on=block)`` and ``place(obj, at=(x, y))`` --
with ``target`` written as ``zone_a``, ``on=blue`` or ``at=(0.512, -0.103)``. ``check_confidence``
takes the same arguments as ``call_skill`` (a place's confidence depends on its target).
``skill_of`` turns either call's arguments into the ``Skill``; ``skill_arguments`` is its inverse.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from alpha_matrix.core.agent.protocol import Tool
from alpha_matrix.core.agent.tools import REASON
from alpha_matrix.core.agent.tools import define_tool as _tool
from alpha_matrix.core.suites.confidence.skills import Skill, SkillError, parse_skill

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
# Character classes, not \d or \. escapes: llama.cpp's schema-to-grammar converter copies those
# into GBNF literals, which its grammar parser rejects (the embedded agent then had no grammar).
_AT = r"at=[(]-?[0-9]+([.][0-9]+)?, ?-?[0-9]+([.][0-9]+)?[)]"

# ----------------------------------------------------------------------------- confidence
REPLAN = _tool(
    "replan",
    "Give up the current choice of sub-task and plan again (e.g. after a low confidence): the state does not "
    "change; your next decision is asked at once.",
    {"reason": REASON},
    required=["reason"],
)
STOP_TASK = _tool(
    "stop_task",
    "End the task: the robot is stopped and no further skill is run. The last decision of every task.",
    {"reason": REASON},
    required=["reason"],
)


def _check_names(kind: str, names: Iterable[str]) -> list[str]:
    out = sorted(set(names))
    if not out:
        raise ValueError(f"no {kind} names")
    bad = [n for n in out if not _NAME.match(n)]
    if bad:
        raise ValueError(f"{kind} name {bad[0]!r} is not [a-z][a-z0-9_]*")
    return out


def skill_properties(objects: Iterable[str], zones: Iterable[str]) -> dict[str, Any]:
    """``skill``, ``object`` and ``target`` over the scene's block and zone names."""
    objs, zs = _check_names("object", objects), _check_names("zone", zones)
    target = "^(" + "|".join([*zs, "on=(" + "|".join(objs) + ")", _AT]) + ")$"
    return {
        "skill": {"type": "string", "enum": ["pick", "place"], "description": "pick: grasp and lift; place: put down."},
        "object": {"type": "string", "enum": objs, "description": "The block the skill acts on."},
        "target": {
            "type": "string",
            "pattern": target,
            "description": (
                "place only: a zone name, 'on=<block>' to stack on a block, or 'at=(x, y)' for a table point in "
                "metres; omit for pick."
            ),
        },
    }


def confidence_tools(objects: Iterable[str], zones: Iterable[str]) -> tuple[Tool, ...]:
    """The confidence suite's tools over one scene (its block and zone names)."""
    props = skill_properties(objects, zones)
    check = _tool(
        "check_confidence",
        "Ask the skill policy how confident it is that this skill would succeed from the current state "
        "(0 to 1). A place of a block not in the gripper is estimated as if it were picked first (a look-ahead; "
        "it is not the check for a later call). A check holds until the next skill finishes.",
        props,
        required=["skill", "object"],
    )
    call = _tool(
        "call_skill",
        "Run one skill on the robot; the next decision sees the state after it.",
        props,
        required=["skill", "object"],
    )
    return (check, call, REPLAN, STOP_TASK)


def skill_of(arguments: Mapping[str, Any]) -> Skill:
    """The ``Skill`` of a check_confidence/call_skill call; SkillError when the arguments do not make one
    (a pick with a target, a place without one)."""
    verb, obj, target = arguments.get("skill"), arguments.get("object"), arguments.get("target")
    if not isinstance(obj, str) or not _NAME.match(obj):
        raise SkillError(f"not an object name: {obj!r}")
    if verb == "pick":
        if target is not None:
            raise SkillError(f"pick({obj}) takes no target (got {target!r})")
        return parse_skill(f"pick({obj})")
    if verb == "place":
        if not isinstance(target, str) or not target.strip():
            raise SkillError(f"place({obj}) needs a target: a zone, on=<block> or at=(x, y)")
        return parse_skill(f"place({obj}, {target.strip()})")
    raise SkillError(f"not a skill: {verb!r} (pick or place)")


def skill_arguments(skill: Skill) -> dict[str, Any]:
    """The call arguments of ``skill`` (inverse of ``skill_of``)."""
    args: dict[str, Any] = {"skill": skill.verb, "object": skill.obj}
    if skill.verb == "place":
        args["target"] = skill.text[len(f"place({skill.obj}, ") : -1]
    return args
