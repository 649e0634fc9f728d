"""The hazards suite's situation: what a scenario shows a text world model, never its consequence.

What the brief states (core/agent/situation.py says what no situation ever holds):

* hazards: the robot's data sheet (name, payload, reach); the moment is ``Shown``: the scene's
  objects and relations, the action sequence, the initial state and the trigger. Never the
  consequence, its severity or the measured values (the physics' answer key).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from alpha_matrix.core.agent.prompts import num as _num
from alpha_matrix.core.agent.protocol import Observation, Tool
from alpha_matrix.core.agent.situation import Strict as _Strict
from alpha_matrix.core.agent.situation import observation as agent_observation
from alpha_matrix.core.suites.hazards.scenario import Shown
from alpha_matrix.core.suites.hazards.tools import HAZARDS_TOOLS


# ----------------------------------------------------------------------------- hazards
class HazardsBrief(_Strict):
    """The robot as its data sheet gives it."""

    robot: str
    payload_kg: float = Field(gt=0.0)
    reach_m: float = Field(gt=0.0)


class HazardsSituation(_Strict):
    """One hazard scenario for a text world model: ``Shown`` (the scene, the robot, the actions,
    the initial state and the trigger), never the consequence, its severity or what was measured
    (core/suites/hazards/scenario.py: the answer key is not in the type). The outcome-explicit
    control probe alone adds ``stated_outcome``: the consequence, stated (prediction.outcome_statement)."""

    suite: Literal["hazards"] = "hazards"
    brief: HazardsBrief
    step: int = Field(0, ge=0)
    scene: Shown
    stated_outcome: str | None = Field(None, max_length=2000)


def tools_for(situation: HazardsSituation) -> tuple[Tool, ...]:
    return HAZARDS_TOOLS


def observation(situation: HazardsSituation, episode_id: str, decision_index: int) -> Observation:
    """One decision point: the situation with the suite's tools."""
    return agent_observation(situation, episode_id, decision_index, tools_for(situation))


def brief_values(brief: dict[str, Any]) -> dict[str, str]:
    """The brief as the prompt's placeholder values."""
    return {
        "robot": str(brief["robot"]),
        "payload_kg": _num(brief["payload_kg"]),
        "reach_m": _num(brief["reach_m"]),
    }
