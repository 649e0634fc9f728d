"""Guards between a planner's output and the robot: schema first, then the observed scene.

Each guard raises ``PlanError`` with its own ``kind`` so records can count catches per guard.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from alpha_matrix.core.planning.plan import Grip, MoveTo, Plan, PlanError

Vec3 = tuple[float, float, float]


def parse_plan_text(text: str) -> Plan:
    """Raw planner text → Plan, or PlanError (kind "json" or "schema"). The text is only parsed."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as err:
        raise PlanError("json", f"not valid JSON ({getattr(err, 'msg', err)})") from None
    return validate_schema(data)


def validate_schema(data: Any) -> Plan:
    """Plain data (from JSON text or a typed message) → Plan, or PlanError(kind="schema")."""
    try:
        return Plan.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "<root>"
        raise PlanError("schema", f"{loc}: {first['msg']} ({err.error_count()} error(s))") from None


def check_against_scene(plan: Plan, scene: Mapping[str, Vec3], grasp_tolerance: float) -> None:
    """The plan must name an object in the scene and move to it before the first GRIP."""
    if plan.object not in scene:
        known = ", ".join(sorted(scene)) or "none"
        raise PlanError("semantic", f"object {plan.object!r} is not in the observed scene ({known})")
    block = scene[plan.object]
    last_move: MoveTo | None = None
    for i, step in enumerate(plan.steps):
        if isinstance(step, Grip):
            if last_move is None:
                raise PlanError("semantic", f"step {i}: GRIP before any MOVE_TO")
            miss = math.dist(last_move.target, block)
            if miss > grasp_tolerance:
                raise PlanError(
                    "semantic",
                    f"step {i}: GRIP at {miss:.3f} m from {plan.object} (tolerance {grasp_tolerance:.3f} m)",
                )
            return
        if isinstance(step, MoveTo):
            last_move = step
