"""What an audit of a ambiguity bag needs besides the scenario (core/suites/context.py says why)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from alpha_matrix.core.suites.context import SuiteContext


class AmbiguityContext(SuiteContext):
    """The agent under test and how its moves were carried out (physical: on the robot, the
    placement measured; symbolic in bags from before: the placement table). The item, truth
    included, is the scenario itself."""

    suite: Literal["ambiguity"] = "ambiguity"
    agent: str = Field(min_length=1)  # the agent under test (the suite always has one)
    # physical: pick_and_place runs on the robot, the placement is measured; symbolic (bags recorded
    # before execution): it set the placement table, no robot moved
    execution: Literal["physical", "symbolic"] = "physical"

    def describe(self) -> str:
        how = "executed on the robot, measured" if self.execution == "physical" else "no motion"
        return f"agent {self.agent}, moves {self.execution} ({how})"
