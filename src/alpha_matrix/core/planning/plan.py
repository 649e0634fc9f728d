"""The plan schema: the one contract between any planner (oracle, LLM) and the executive.

A plan is data. Planner text goes through ``guards.parse_plan_text`` and either becomes a
validated ``Plan`` or a ``PlanError`` with a one-line reason; nothing in it is ever executed,
evaluated or dispatched by name.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from alpha_matrix.core.errors import AlphaMatrixError

PLAN_SCHEMA_VERSION: Final = 1
MAX_PLAN_STEPS = 16

Vec3 = tuple[float, float, float]


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    label: str = Field(default="", max_length=64, description="Free-text note, never interpreted.")
    steps: int | None = Field(
        default=None, ge=1, le=1260, description="Physics steps for this action; None = config default."
    )


class MoveTo(_Step):
    """Move the grasp frame (between the fingertips) to ``target`` in the world frame, gripper down."""

    action: Literal["MOVE_TO"]
    target: Vec3

    @field_validator("target")
    @classmethod
    def _finite(cls, v: Vec3) -> Vec3:
        if not all(math.isfinite(c) for c in v):
            raise ValueError("target must be finite")
        return v


class Grip(_Step):
    """Close the fingers on whatever is between them, with at most ``force`` newtons per finger."""

    action: Literal["GRIP"]
    force: float | None = Field(default=None, gt=0.0, le=70.0)


class Release(_Step):
    """Open the fingers to ``width`` metres (total opening)."""

    action: Literal["RELEASE"]
    width: float | None = Field(default=None, ge=0.0, le=0.08)


PlanStep = Annotated[MoveTo | Grip | Release, Field(discriminator="action")]


class Plan(BaseModel):
    """A pick-and-place plan. ``object`` names the block the plan manipulates."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    schema_version: Literal[1] = PLAN_SCHEMA_VERSION
    object: str = Field(min_length=1, max_length=32)
    steps: list[PlanStep] = Field(min_length=1, max_length=MAX_PLAN_STEPS)


class PlanError(AlphaMatrixError, ValueError):
    """A planner output that is not a valid plan. ``reason`` is one line, fit for a record."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason


def plan_to_text(plan: Plan) -> str:
    """Canonical JSON text of a plan (sorted keys, no whitespace): stable bytes for hashing."""
    return json.dumps(plan.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))


def plan_json_schema() -> dict:
    """JSON schema of ``Plan``, for documentation and the prompt's optional ``$schema``."""
    return Plan.model_json_schema()


_NOT_FOR_DECODING = frozenset({"$defs", "discriminator", "title", "description", "default"})


def _inline(node: object, defs: dict[str, Any]) -> object:
    if isinstance(node, dict):
        return _inline_object(node, defs)
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def _inline_object(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A schema object with its ``$ref`` resolved (a definition is itself an object) and annotations dropped."""
    if "$ref" in node:
        return _inline_object(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    return {k: _inline(v, defs) for k, v in node.items() if k not in _NOT_FOR_DECODING}


def generation_schema() -> dict[str, Any]:
    """``plan_json_schema`` made self-contained for constrained decoding (Ollama ``format``, llama.cpp).

    Schema-to-grammar converters handle ``$ref``/``$defs`` and pydantic's ``discriminator``
    unevenly, so references are inlined and annotations dropped; the constraints are the same.
    Decoding to this schema only shapes the text: the executive still validates it with ``Plan``.
    """
    schema = plan_json_schema()
    return _inline_object(schema, schema.get("$defs", {}))
