"""The toy suite as one object: its facts, where its pieces are, and the few it writes inline."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.suite import Suite

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph
    from alpha_matrix.core.suites.context import SuiteContext
    from alpha_matrix.core.suites.records import SuiteRecord
    from alpha_matrix.core.suites.suite import SuiteAudit


class ToySuite(Suite):
    name = "toy"
    marker_topic = "/toy/readings"
    audit_unit = "decisions"
    brief_placeholders = frozenset({"limit_c"})
    required_brief = frozenset({"limit_c"})
    modules = {"scenarios": "report"}  # the rest where the layout says: report.py, situation.py, ...

    def context(self, graph: Graph) -> SuiteContext:
        raise ConfigError("the toy suite has no graph")

    def plots(self, records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
        return []

    def progress(self, result: dict[str, Any]) -> str:
        return f"{result['right']}/{len(result['decisions'])} right"

    def audit(self, bag_dir: Path, run_dir: Path | None) -> list[SuiteAudit]:
        return []


SUITE = ToySuite()
