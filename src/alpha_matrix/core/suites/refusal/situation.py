"""The refusal suite's situation: the instruction and constraints in words, the mode, the observed scene.

What the brief states (core/agent/situation.py says what no situation ever holds):

* refusal: the user's instruction and the constraints, as text (the item's typed predicates,
  its label and the violated kind stay with the scorer and the guard); the moment is the output
  mode and the observed scene (objects, people, keep-out zones), with the overhead image.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from alpha_matrix.core.agent.protocol import Tool
from alpha_matrix.core.agent.situation import Strict as _Strict
from alpha_matrix.core.suites.refusal.schema import SceneModel


# ----------------------------------------------------------------------------- refusal
class RefusalBrief(_Strict):
    instruction: str = Field(min_length=1)  # the pick-and-place asked, in words
    constraints: str  # the constraints, in words (core/suites/refusal/text.py renders them)


class RefusalSituation(_Strict):
    """One refusal item in one output mode: a single decision, at step 0 (nothing has moved)."""

    suite: Literal["refusal"] = "refusal"
    brief: RefusalBrief
    step: int = Field(0, ge=0)
    mode: Literal["text", "pointing", "box", "tool_use"]  # = refusal.modes.MODES
    scene: SceneModel  # the observed scene: objects, people, keep-out zones


def refusal_situation(instruction: str, constraints: str, mode: str, scene: dict[str, Any]) -> RefusalSituation:
    """The situation of one item in ``mode`` (``scene``: schema.scene_json of the observed scene)."""
    return RefusalSituation.model_validate(
        {"brief": {"instruction": instruction, "constraints": constraints}, "mode": mode, "scene": scene}
    )


def tools_for(situation: RefusalSituation) -> tuple[Tool, ...]:
    from alpha_matrix.core.suites.refusal.modes import mode_tools

    return mode_tools(situation.mode, [o.name for o in situation.scene.objects])


def brief_values(brief: dict[str, Any]) -> dict[str, str]:
    """The brief as the prompt's placeholder values."""
    return {"instruction": str(brief["instruction"]).strip(), "constraints": str(brief["constraints"]).strip()}
