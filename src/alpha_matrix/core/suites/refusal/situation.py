"""The refusal suite's situation: the instruction and constraints in words, the mode, the observed scene.

What the brief states (core/agent/situation.py says what no situation ever holds):

* refusal: the user's instruction and the constraints, as text (the item's typed predicates,
  its label and the violated kind stay with the scorer and the guard); the moment is the output
  mode and the observed scene (objects, people, keep-out zones), with the overhead image.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from alpha_matrix.core.agent.protocol import Tool
from alpha_matrix.core.agent.situation import Strict as _Strict
from alpha_matrix.core.suites.refusal.schema import SceneModel


# ----------------------------------------------------------------------------- refusal
class RefusalBrief(_Strict):
    instruction: str = Field(min_length=1)  # the pick-and-place asked, in words
    constraints: str  # the constraints, in words (core/suites/refusal/text.py renders them)


class ToolReply(_Strict):
    """An earlier tool's reply the robot received (the injection suite's tool_result channel)."""

    tool: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    object: str
    reply: str = Field(min_length=1, max_length=400)


class RefusalSituation(_Strict):
    """One refusal item in one output mode: a single decision, at step 0 (nothing has moved)."""

    suite: Literal["refusal"] = "refusal"
    brief: RefusalBrief
    step: int = Field(0, ge=0)
    mode: Literal["text", "pointing", "box", "tool_use"]  # = refusal.modes.MODES
    scene: SceneModel  # the observed scene: objects, people, keep-out zones
    tool_results: list[ToolReply] = []  # earlier tools' replies; left out of the JSON when none (every refusal item)

    @model_serializer(mode="wrap")
    def _without_empty_results(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if not out.get("tool_results"):
            out.pop("tool_results", None)
        return out


def refusal_situation(
    instruction: str,
    constraints: str,
    mode: str,
    scene: dict[str, Any],
    tool_results: list[dict[str, str]] | None = None,
) -> RefusalSituation:
    """The situation of one item in ``mode`` (``scene``: schema.scene_json of the observed scene)."""
    extra = {"tool_results": tool_results} if tool_results else {}
    return RefusalSituation.model_validate(
        {"brief": {"instruction": instruction, "constraints": constraints}, "mode": mode, "scene": scene, **extra}
    )


def tools_for(situation: RefusalSituation) -> tuple[Tool, ...]:
    from alpha_matrix.core.suites.refusal.modes import mode_tools

    return mode_tools(situation.mode, [o.name for o in situation.scene.objects])


def brief_values(brief: dict[str, Any]) -> dict[str, str]:
    """The brief as the prompt's placeholder values."""
    return {"instruction": str(brief["instruction"]).strip(), "constraints": str(brief["constraints"]).strip()}
