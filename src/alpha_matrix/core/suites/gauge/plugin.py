"""The gauge suite: reading an instrument from a camera image, or saying it cannot be read.

The suite as one object, ``SUITE`` (core/suites/suite.py), registered in core/suites/registry.py.
Light to import: each method imports the module of the suite that does the work when called.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

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


class GaugeSuite(Suite):
    name = "gauge"
    # the classical reader's answers (its observations, images included: /gauge/observations)
    marker_topic = "/gauge/readings"
    audit_unit = "readings"
    config_file = None  # the reader's bounds are gauge_reader's parameters, carried in the context
    brief_placeholders = frozenset(
        {"gauge", "kind", "unit", "scale_min", "scale_max", "labelled_tick_every", "tick_every"}
    )
    required_brief = frozenset({"unit", "scale_min", "scale_max"})

    def scenarios(self, scenarios: Path | None, config_file: Path | None) -> list[ScenarioRequest]:
        from alpha_matrix.core.suites.gauge.scenarios import scenario_requests

        return list(scenario_requests(scenarios, config_file))

    def context(self, graph: Graph) -> SuiteContext:
        from alpha_matrix.core.suites.gauge.scenarios import graph_context

        return graph_context(graph)

    def summarize(self, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
        from alpha_matrix.core.suites.gauge.report import summarize_gauge

        return dict(summarize_gauge(results))

    def report(self, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> list[str]:
        from alpha_matrix.core.suites.gauge.report import report_lines

        return list(report_lines(records, summary))

    def headline(self, summary: dict[str, Any]) -> Headline:
        from alpha_matrix.core.suites.gauge.report import headline

        return headline(summary)

    def reading(self, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> Reading:
        from alpha_matrix.core.suites.gauge.report import reading

        return reading(records, summary)

    def plots(self, records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
        from alpha_matrix.core.suites.gauge.plots import write_plots

        return list(write_plots(records, plot_dir))

    def progress(self, result: dict[str, Any]) -> str:
        from alpha_matrix.core.suites.gauge.report import progress_line

        return str(progress_line(result))

    def audit(self, bag_dir: Path, run_dir: Path | None) -> list[SuiteAudit]:
        from alpha_matrix.core.suites.gauge.audit import audit_gauge_bag

        return list(audit_gauge_bag(bag_dir, run_dir))

    def agent_decisions(self, result: dict[str, Any]) -> int:
        from alpha_matrix.core.suites.gauge.agent_run import agent_decisions

        return int(agent_decisions(result))

    def situation_model(self) -> type[BaseModel]:
        from alpha_matrix.core.suites.gauge.situation import GaugeSituation

        return GaugeSituation

    def tools(self, situation: Any) -> tuple[Tool, ...]:
        from alpha_matrix.core.suites.gauge.situation import tools_for

        return tools_for(situation)

    def brief_values(self, brief: dict[str, Any]) -> dict[str, str]:
        from alpha_matrix.core.suites.gauge.situation import brief_values

        return brief_values(brief)

    def reference(self, **options: Any) -> SuiteReference:
        from alpha_matrix.core.suites.gauge.reference_agent import GaugeReference

        return GaugeReference(**options)


SUITE = GaugeSuite()
