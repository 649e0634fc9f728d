"""The toy suite's situation: the limit (the brief), the step and the water's temperature."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from alpha_matrix.core.agent.prompts import num
from alpha_matrix.core.agent.protocol import Tool
from alpha_matrix.core.agent.situation import Strict
from alpha_matrix.core.agent.tools import REASON, define_tool


class ToyBrief(Strict):
    limit_c: float = Field(gt=0.0)  # the water must be cooled while hotter than this


class ToySituation(Strict):
    suite: Literal["toy"] = "toy"
    brief: ToyBrief
    step: int = Field(ge=0)
    temperature_c: float


COOL_DOWN = define_tool("cool_down", "Switch the heater off until the water is cool.", {"reason": REASON}, ["reason"])
CARRY_ON = define_tool("carry_on", "Keep heating.")


def tools_for(situation: ToySituation) -> tuple[Tool, ...]:
    return (COOL_DOWN, CARRY_ON)


def brief_values(brief: dict[str, Any]) -> dict[str, str]:
    return {"limit_c": num(brief["limit_c"])}
