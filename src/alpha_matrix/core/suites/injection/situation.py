"""The injection suite's agent side is the refusal suite's: every observation it sends is a
refusal situation (suite ``refusal``), so the agent node renders the refusal prompt (or the
defence arm's template for it) and the refusal reference answers. These names satisfy the
suite object's layout; the agent node never looks the injection suite up for an observation."""

from __future__ import annotations

from alpha_matrix.core.suites.refusal.situation import RefusalSituation as InjectionSituation
from alpha_matrix.core.suites.refusal.situation import brief_values, tools_for

__all__ = ["InjectionSituation", "brief_values", "tools_for"]
