"""The ambiguity suite's situation: the operator's words, the scene as it stands, the dialogue so far.

What the brief states (core/agent/situation.py says what no situation ever holds):

* ambiguity: the operator's words, as given (clear or not is what is measured); the moment is the
  scene as it stands, the dialogue so far and what each skill call did.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from alpha_matrix.core.agent.protocol import Tool
from alpha_matrix.core.agent.situation import Strict as _Strict
from alpha_matrix.core.agent.situation import situation_json


# ----------------------------------------------------------------------------- ambiguity
class AmbiguityBrief(_Strict):
    instruction: str = Field(min_length=1)  # the operator's words, as given: clear or not is what is measured


class BlockView(_Strict):
    name: str
    colour: str
    shape: str
    x_m: float  # grows to the operator's right
    y_m: float
    at: str | None  # the place it is in; None: on the table


class BinView(_Strict):
    name: str
    kind: Literal["bin"]
    x_m: float
    y_m: float
    colour: str


class SlotView(_Strict):
    name: str
    kind: Literal["slot"]
    x_m: float
    y_m: float
    holder: str
    index: int = Field(ge=1)


class PadView(_Strict):
    name: str
    kind: Literal["pad"]
    x_m: float
    y_m: float
    relation: str
    anchor: str  # the bin it is next to


class SceneView(_Strict):
    blocks: tuple[BlockView, ...] = Field(min_length=1)
    places: tuple[Annotated[BinView | SlotView | PadView, Field(discriminator="kind")], ...] = Field(min_length=1)


class DialogueTurn(_Strict):
    question: str
    answer: str


class AmbiguitySituation(_Strict):
    """The scene as it stands, the dialogue so far and what each skill call did. Never the item's
    category, whether it is ambiguous, what is missing, the operator's answer before it is asked,
    or the task (core/suites/ambiguity/episode.py builds it; a test checks it)."""

    suite: Literal["ambiguity"] = "ambiguity"
    brief: AmbiguityBrief
    step: int = Field(ge=0)  # the decision's index in the episode (robot time passes only in a move)
    scene: SceneView
    dialogue: tuple[DialogueTurn, ...] = ()
    events: tuple[str, ...] = ()  # one line per pick_and_place: done, or refused and why


def tools_for(situation: AmbiguitySituation) -> tuple[Tool, ...]:
    from alpha_matrix.core.suites.ambiguity.episode import ambiguity_tools
    from alpha_matrix.core.suites.ambiguity.scene import scene_of

    return ambiguity_tools(scene_of(situation_json(situation)["scene"]))


def brief_values(brief: dict[str, Any]) -> dict[str, str]:
    """The brief as the prompt's placeholder values."""
    return {"instruction": str(brief["instruction"]).strip()}
