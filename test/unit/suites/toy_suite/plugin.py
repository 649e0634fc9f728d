"""The toy suite as one object: its facts, and its pieces imported when called."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.suite import ScenarioRequest, Suite

if TYPE_CHECKING:
    from pydantic import BaseModel

    from alpha_matrix.core.agent.protocol import Tool
    from alpha_matrix.core.agent.suite import SuiteReference
    from alpha_matrix.core.graph import Graph
    from alpha_matrix.core.pages.reading import Headline
    from alpha_matrix.core.suites.context import SuiteContext
    from alpha_matrix.core.suites.records import SuiteRecord
    from alpha_matrix.core.suites.suite import Reading, SuiteAudit


class ToySuite(Suite):
    name = "toy"
    marker_topic = "/toy/readings"
    audit_unit = "decisions"
    brief_placeholders = frozenset({"limit_c"})
    required_brief = frozenset({"limit_c"})

    def scenarios(self, scenarios: Path | None, config_file: Path | None) -> list[ScenarioRequest]:
        from toy_suite.report import scenario_requests

        return scenario_requests()

    def context(self, graph: Graph) -> SuiteContext:
        raise ConfigError("the toy suite has no graph")

    def summarize(self, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
        from toy_suite.report import summarize_results

        return summarize_results(results)

    def report(self, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> list[str]:
        from toy_suite.report import report_lines

        return report_lines(records, summary)

    def headline(self, summary: dict[str, Any]) -> Headline:
        from toy_suite.report import headline

        return headline(summary)

    def reading(self, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> Reading:
        from toy_suite.report import reading

        return reading(records, summary)

    def plots(self, records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
        return []

    def progress(self, result: dict[str, Any]) -> str:
        return f"{result['right']}/{len(result['decisions'])} right"

    def audit(self, bag_dir: Path, run_dir: Path | None) -> list[SuiteAudit]:
        return []

    def situation_model(self) -> type[BaseModel]:
        from toy_suite.situation import ToySituation

        return ToySituation

    def tools(self, situation: Any) -> tuple[Tool, ...]:
        from toy_suite.situation import tools_for

        return tools_for(situation)

    def brief_values(self, brief: dict[str, Any]) -> dict[str, str]:
        from toy_suite.situation import brief_values

        return brief_values(brief)

    def reference(self, **options: Any) -> SuiteReference:
        from toy_suite.reference_agent import ToyReference

        return ToyReference(**options)


SUITE = ToySuite()
