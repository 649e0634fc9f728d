"""What the agent may see at a decision point: the generic part of the situation schemas.

Each suite's schema and its builders are the suite's own (suites/<suite>/situation.py); this
module has what they share: the closed base model, the rounding, the observation they make.

A situation is built only from what the robot's side legitimately has at that moment -- the
detector's estimates, the alert messages received, the skill policy's answers, the robot's own
status -- and from the task brief a user would give. Never the answer key: no ground truth
(true distances, the person's path, the scenario's future clears), no scenario ``expect``, no
alert-class -> response table, no training distribution, no margin or hold time of a scripted
policy, no tolerance of the scorer. Each schema is closed (``extra="forbid"``), so a field can
only be added in the suite's schema, where test/unit/agent/test_agent_situation.py checks it
against the shipped scenario files.

``brief`` is the task as stated to the agent (it goes into the system prompt); everything else
is the moment (the user message, as compact JSON). What each brief states is said in its
suite's situation.py.

Builders take the runner's records (duck-typed where a ROS message would do) and keep the
window the schema promises; ``situation_json`` is what goes into ``Observation.situation``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict

from alpha_matrix.core.agent.protocol import Observation, Tool
from alpha_matrix.core.agent.suite import AgentSuite


class Strict(BaseModel):
    """The base of every situation model: closed, frozen, fields by name or alias."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


def rounded(v: float, nd: int = 3) -> float:
    return round(float(v), nd) + 0.0  # + 0.0 turns -0.0 into 0.0


def situation_json(situation: BaseModel) -> dict[str, Any]:
    """The situation as ``Observation.situation``: JSON types, the wire names (alerts' ``class``)."""
    return situation.model_dump(mode="json", by_alias=True)


def observation(situation: Any, episode_id: str, decision_index: int, tools: Iterable[Tool]) -> Observation:
    """One decision point: the situation (a suite's model: ``suite``, ``step``) with the suite's tools."""
    return Observation(
        suite=situation.suite,
        episode_id=episode_id,
        step=situation.step,
        decision_index=decision_index,
        situation=situation_json(situation),
        tools=tuple(tools),
    )


def parse_situation(obs: Observation, suite: AgentSuite) -> Any:
    """An observation's situation as its suite's model (ValueError for another suite or a bad shape)."""
    if obs.suite != suite.name:
        raise ValueError(f"no situation schema for suite {obs.suite!r}")
    return suite.situation_model().model_validate(obs.situation)
