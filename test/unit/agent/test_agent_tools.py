"""The suites' tools: closed JSON schemas, one definition per tool across suites, the skill vocabulary."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from alpha_matrix.core.agent.tools import CONTINUE_TASK, ROBOT_STOP, tool_names
from alpha_matrix.core.suites.alerts.tools import ALERT_TOOLS
from alpha_matrix.core.suites.confidence.scenarios import load_confidence_scenarios, load_skills_config
from alpha_matrix.core.suites.confidence.skills import SkillError, parse_skill, pick, place
from alpha_matrix.core.suites.confidence.tools import confidence_tools, skill_arguments, skill_of
from alpha_matrix.core.suites.proximity.tools import PROXIMITY_TOOLS

SUITE = load_skills_config()
OBJECTS, ZONES = list(SUITE.blocks), list(SUITE.geometry.zones)
CONFIDENCE_TOOLS = confidence_tools(OBJECTS, ZONES)
ALL = (PROXIMITY_TOOLS, ALERT_TOOLS, CONFIDENCE_TOOLS)


def test_the_tool_sets() -> None:
    assert tool_names(PROXIMITY_TOOLS) == ["robot_stop", "continue_task", "safe_pose"]
    assert tool_names(ALERT_TOOLS) == ["warn_user", "robot_stop", "refuse_command", "continue_task", "resume"]
    assert tool_names(CONFIDENCE_TOOLS) == ["check_confidence", "call_skill", "replan", "stop_task"]


@pytest.mark.parametrize("tools", ALL)
def test_every_parameters_schema_is_closed_and_valid(tools) -> None:
    for t in tools:
        Draft202012Validator.check_schema(t.parameters)
        assert t.parameters["type"] == "object" and t.parameters["additionalProperties"] is False
        assert set(t.parameters.get("required", [])) <= set(t.parameters["properties"])


def test_one_definition_per_tool_across_suites() -> None:
    by_name: dict[str, set[str]] = {}
    for tools in ALL:
        for t in tools:
            by_name.setdefault(t.name, set()).add(t.description)
    assert all(len(d) == 1 for d in by_name.values())
    prox = dict(zip(tool_names(PROXIMITY_TOOLS), PROXIMITY_TOOLS, strict=True))
    alerts = dict(zip(tool_names(ALERT_TOOLS), ALERT_TOOLS, strict=True))
    assert alerts["continue_task"] == CONTINUE_TASK
    # the same robot_stop: proximity adds the optional distance estimate, alerts requires the reason
    assert prox["robot_stop"].parameters["properties"]["reason"] == ROBOT_STOP.parameters["properties"]["reason"]
    assert (
        "distance_m" in prox["robot_stop"].parameters["properties"] and "required" not in prox["robot_stop"].parameters
    )
    assert alerts["robot_stop"].parameters["required"] == ["reason"]
    assert "required" not in ROBOT_STOP.parameters  # the shared definition is untouched


def _valid(tool_name: str, args: dict) -> bool:
    tool = next(t for t in CONFIDENCE_TOOLS if t.name == tool_name)
    return Draft202012Validator(tool.parameters).is_valid(args)


def test_every_skill_of_the_shipped_tasks_round_trips() -> None:
    skills = {pick(o) for o in OBJECTS} | {place(o, at=(0.512, -0.103)) for o in OBJECTS}
    for sc in load_confidence_scenarios(suite=SUITE):
        for g in sc.task.goals:
            skills |= {pick(g.obj), *g.targets}
    for s in skills:
        args = skill_arguments(s)
        assert _valid("call_skill", args) and _valid("check_confidence", args), args
        assert skill_of(args) == s and skill_of(args).text == s.text


@pytest.mark.parametrize(
    "args",
    [
        {"skill": "pick", "object": "purple"},
        {"skill": "push", "object": "red"},
        {"skill": "place", "object": "red", "target": "zone_z"},
        {"skill": "place", "object": "red", "target": "on=purple"},
        {"skill": "place", "object": "red", "target": "at=(x, y)"},
        {"skill": "place", "object": "red", "target": "zone_a); import os"},
        {"skill": "pick", "object": "red", "speed": 2},
        {"object": "red"},
    ],
)
def test_out_of_vocabulary_arguments_fail_the_schema(args: dict) -> None:
    assert not _valid("call_skill", args)


def test_schema_valid_but_meaningless_calls_are_skill_errors() -> None:
    with pytest.raises(SkillError, match="takes no target"):
        skill_of({"skill": "pick", "object": "red", "target": "zone_a"})
    with pytest.raises(SkillError, match="needs a target"):
        skill_of({"skill": "place", "object": "red"})
    assert skill_of({"skill": "place", "object": "red", "target": "at=(0.5,-0.1)"}) == parse_skill(
        "place(red, at=(0.5, -0.1))"
    )


def test_scene_names_are_checked() -> None:
    with pytest.raises(ValueError, match="not"):
        confidence_tools(["Red block"], ZONES)
    with pytest.raises(ValueError, match="no zone"):
        confidence_tools(OBJECTS, [])
