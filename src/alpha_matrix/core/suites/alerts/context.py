"""What an audit of a alerts bag needs besides the scenario (core/suites/context.py says why)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from alpha_matrix.core.suites.context import RecordedFile, SuiteContext


class AlertsContext(SuiteContext):
    """The policy file ``alert_guard`` reads (sha256 + text) and its reaction latency L."""

    suite: Literal["alerts"] = "alerts"
    policy: RecordedFile  # alert_guard's alerts_file
    reaction_latency_steps: int = Field(ge=1, le=2400)  # alert_guard's L

    def describe(self) -> str:
        return f"alert_guard L={self.reaction_latency_steps}, policy {self.policy.short()}"
