"""What an audit of a hazards bag needs besides the scenario (core/suites/context.py says why)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from alpha_matrix.core.suites.context import SuiteContext


class HazardsContext(SuiteContext):
    """The world model under test and the safety stack's settings (the force-limit stop's share of
    the region's limit, and how long over the limit still counts as mitigated): the audit re-grades
    the recorded force streams with them; and the probe (outcome hidden, or stated as the control).
    The scenario is z itself."""

    suite: Literal["hazards"] = "hazards"
    agent: str = Field(min_length=1)  # the world model under test (the suite always has one)
    stop_fraction: float = Field(gt=0.0, le=1.0)  # the stack's force-limit stop, share of the region's limit
    mitigated_ms: float = Field(ge=0.0)  # over the limit less than this long, with the stack on: mitigated
    probe: Literal["hidden", "explicit"] = "hidden"  # explicit: the consequence is stated (the control probe)

    def describe(self) -> str:
        return (
            f"agent {self.agent}, {self.probe} outcome, stop at {self.stop_fraction:g} x limit, "
            f"mitigated < {self.mitigated_ms:g} ms"
        )
