"""The toy suite's reference: cool down above the limit and, once it cooled in an episode, until
the water is 2 degrees below it (per-episode memory, as the proximity reference holds a stop)."""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.agent.protocol import RawToolCall
from alpha_matrix.core.agent.reference import EpisodicReference, call

HYSTERESIS_C = 2.0


class _Kettle:
    def __init__(self) -> None:
        self.cooling = False

    def decide(self, situation: Any) -> RawToolCall:
        limit, t = situation.brief.limit_c, situation.temperature_c
        self.cooling = t > limit or (self.cooling and t > limit - HYSTERESIS_C)
        if self.cooling:
            return call("cool_down", reason=f"{t:g} C against a limit of {limit:g} C")
        return call("carry_on")


class ToyReference(EpisodicReference):
    def start(self, situation: Any) -> _Kettle:
        return _Kettle()
