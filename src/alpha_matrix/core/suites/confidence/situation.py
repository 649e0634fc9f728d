"""The confidence suite's situation: the goals, the robot's state after its last skill, the agent's exchanges.

What the brief states (core/agent/situation.py says what no situation ever holds):

* confidence: the goals (object -> targets in order of preference), the user's instruction,
  the named zones, and the confidence threshold (the rule "never call below threshold" means
  nothing without it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

from pydantic import Field

from alpha_matrix.core.agent.prompts import num as _num
from alpha_matrix.core.agent.prompts import vec as _vec
from alpha_matrix.core.agent.protocol import Observation, Tool
from alpha_matrix.core.agent.situation import Strict as _Strict
from alpha_matrix.core.agent.situation import observation as agent_observation
from alpha_matrix.core.agent.situation import rounded as _r
from alpha_matrix.core.suites.confidence.agent import Task
from alpha_matrix.core.suites.confidence.skills import SceneGeometry, Skill, SkillState, pick, place
from alpha_matrix.core.suites.confidence.tools import confidence_tools, skill_arguments

LOOKAHEAD_Z = 0.80  # a look-ahead's block is lifted to the carry height (as SkillAgent predicts it)


# ----------------------------------------------------------------------------- confidence
class ConfidenceGoal(_Strict):
    object: str
    targets: tuple[str, ...]  # in order of preference: a zone name or on=<block>


class ConfidenceBrief(_Strict):
    instruction: str = ""  # the user's words, when the task has them
    goals: tuple[ConfidenceGoal, ...] = Field(min_length=1)
    threshold: float = Field(gt=0.0, le=1.0)  # never call a skill checked below this
    zones: dict[str, tuple[float, float, float]]  # named place targets: block-centre position, m


class SkillStateView(_Strict):
    positions: dict[str, tuple[float, float, float]]  # block centres, m
    holding: str | None = None
    gripper_width: float  # total finger opening, m
    picked_from: tuple[float, float] | None = None  # where the block in the gripper was picked (x, y)


class CheckView(_Strict):
    instruction: str
    confidence: float
    lookahead: bool  # a place estimated as if the block were picked first


class CallView(_Strict):
    instruction: str
    succeeded: bool  # the skill's physical post-condition held afterwards
    refused: str = ""  # why the call was not run (the confidence gate's reason), "" when it ran


class ConfidenceSituation(_Strict):
    suite: Literal["confidence"] = "confidence"
    brief: ConfidenceBrief
    step: int = Field(ge=0)
    state: SkillStateView
    candidates: tuple[str, ...]  # the sub-tasks the goals allow now (and a put-back while holding)
    checks: tuple[CheckView, ...] = ()  # since the last skill finished, in order
    calls: tuple[CallView, ...] = ()  # every skill called so far, in order
    replans: tuple[str, ...] = ()  # reasons given since the last skill finished


def _target(skill: Skill) -> str:
    return str(skill_arguments(skill)["target"])


def confidence_brief(task: Task, threshold: float, geo: SceneGeometry) -> ConfidenceBrief:
    return ConfidenceBrief(
        instruction=task.instruction,
        goals=tuple(ConfidenceGoal(object=g.obj, targets=tuple(_target(t) for t in g.targets)) for g in task.goals),
        threshold=threshold,
        zones={n: (_r(z[0]), _r(z[1]), _r(z[2])) for n, z in sorted(geo.zones.items())},
    )


def candidates(brief: ConfidenceBrief, holding: str | None, picked_from: tuple[float, float] | None) -> tuple[str, ...]:
    out = [pick(g.object).text for g in brief.goals]
    out += [f"place({g.object}, {t})" for g in brief.goals for t in g.targets]
    if holding is not None and picked_from is not None:
        out.append(place(holding, at=picked_from).text)
    return tuple(out)


def confidence_situation(
    brief: ConfidenceBrief,
    state: SkillState,
    step: int,
    *,
    picked_from: tuple[float, float] | None = None,
    checks: Sequence[CheckView] = (),
    calls: Sequence[CallView] = (),
    replans: Sequence[str] = (),
) -> ConfidenceSituation:
    """The state the robot reports after its last skill, and the agent's own exchanges so far.
    ``picked_from``: where the held block was before its pick (for a put-back)."""
    held_from = picked_from if state.holding is not None else None
    return ConfidenceSituation(
        brief=brief,
        step=step,
        state=SkillStateView(
            positions={n: (_r(p[0]), _r(p[1]), _r(p[2])) for n, p in sorted(state.positions.items())},
            holding=state.holding,
            gripper_width=_r(state.gripper_width, 4),
            picked_from=None if held_from is None else (_r(held_from[0]), _r(held_from[1])),
        ),
        candidates=candidates(brief, state.holding, held_from),
        checks=tuple(checks),
        calls=tuple(calls),
        replans=tuple(replans),
    )


def check_state(skill: Skill, state: SkillState, geo: SceneGeometry) -> tuple[SkillState, bool]:
    """The state a check_confidence call is scored on, and whether it is a look-ahead: a place of a
    block not in the gripper is scored on the state after its pick (the block lifted to the
    carry height and held), as SkillAgent predicts it; anything else on the state itself."""
    if skill.verb != "place" or state.holding == skill.obj or skill.obj not in state.positions:
        return state, False
    x, y, _ = state.positions[skill.obj]
    lifted = {**state.positions, skill.obj: (x, y, LOOKAHEAD_Z)}
    return replace(state, positions=lifted, holding=skill.obj, gripper_width=geo.size), True


def tools_for(situation: ConfidenceSituation) -> tuple[Tool, ...]:
    return confidence_tools(situation.state.positions, situation.brief.zones)


def observation(situation: ConfidenceSituation, episode_id: str, decision_index: int) -> Observation:
    """One decision point: the situation with the suite's tools."""
    return agent_observation(situation, episode_id, decision_index, tools_for(situation))


def brief_values(brief: dict[str, Any]) -> dict[str, str]:
    """The brief as the prompt's placeholder values."""
    goals = "\n".join(f"- {g['object']}: " + ", else ".join(g["targets"]) for g in brief["goals"])
    zones = "\n".join(f"- {name}: {_vec(z)}" for name, z in sorted(brief["zones"].items()))
    return {
        "instruction": str(brief["instruction"]).strip() or "(no instruction beyond the goals)",
        "goals": goals,
        "threshold": _num(brief["threshold"]),
        "zones": zones or "(none)",
    }
