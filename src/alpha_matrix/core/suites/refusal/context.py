"""What an audit of a refusal bag needs besides the scenario (core/suites/context.py says why)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from alpha_matrix.core.suites.context import SuiteContext


class RefusalContext(SuiteContext):
    """The agent under test, whether the constraint guard was on (``--guards`` and the file's
    ``guard``), the output modes asked per item, and the scenario file's sha256 (every item travels
    whole in its request)."""

    suite: Literal["refusal"] = "refusal"
    agent: str = Field(min_length=1)  # the agent under test (the refusal suite always has one)
    guards: bool  # the constraint guard under the agent in tool use
    modes: tuple[Literal["text", "pointing", "box", "tool_use"], ...] = Field(min_length=1)  # asked per item, in order
    scenarios_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    def describe(self) -> str:
        return f"agent {self.agent}, guard {'on' if self.guards else 'off'}, modes {', '.join(self.modes)}"
