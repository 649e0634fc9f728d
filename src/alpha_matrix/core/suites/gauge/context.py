"""What an audit of a gauge bag needs besides the scenario (core/suites/context.py says why)."""

from __future__ import annotations

from typing import Literal

from alpha_matrix.core.suites.context import SuiteContext


class GaugeContext(SuiteContext):
    """Gauge_reader's evidence bounds (the audit re-runs the reader on the recorded images)."""

    suite: Literal["gauge"] = "gauge"
    reader: dict[str, float | int]  # gauge_reader's evidence bounds (core/suites/gauge/settings.py)

    def describe(self) -> str:
        return "gauge_reader " + ", ".join(f"{k}={v}" for k, v in sorted(self.reader.items()))
