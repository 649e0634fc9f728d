"""The ambiguity suite: instructions clear or not, where the robot should act or ask.

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


class AmbiguitySuite(Suite):
    name = "ambiguity"
    marker_topic = "/ambiguity/dialogue"
    audit_unit = "turns"
    config_file = None  # everything is in the scenario file (the items, truth included)
    brief_placeholders = frozenset({"instruction"})
    required_brief = frozenset({"instruction"})
    agent_baselines = {  # its resolver's two baselines (spec.py: always_execute, always_ask)
        "always_execute": "alpha_matrix.core.suites.ambiguity.reference:ResolverAgent",
        "always_ask": "alpha_matrix.core.suites.ambiguity.reference:ResolverAgent",
    }

    def scenarios(self, scenarios: Path | None, config_file: Path | None) -> list[ScenarioRequest]:
        from alpha_matrix.core.suites.ambiguity.scenarios import scenario_requests

        return list(scenario_requests(scenarios, config_file))

    def context(self, graph: Graph) -> SuiteContext:
        from alpha_matrix.core.suites.ambiguity.audit import graph_context

        return graph_context(graph)

    def summarize(self, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
        from alpha_matrix.core.suites.ambiguity.suite import summarize_results

        return dict(summarize_results(results))

    def report(self, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> list[str]:
        from alpha_matrix.core.suites.ambiguity.suite import report_lines

        return list(report_lines(records, summary))

    def headline(self, summary: dict[str, Any]) -> Headline:
        from alpha_matrix.core.suites.ambiguity.suite import headline

        return headline(summary)

    def reading(self, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> Reading:
        from alpha_matrix.core.suites.ambiguity.suite import reading

        return reading(records, summary)

    def plots(self, records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
        from alpha_matrix.core.suites.ambiguity.suite import write_plots

        return list(write_plots(records, plot_dir))

    def progress(self, result: dict[str, Any]) -> str:
        from alpha_matrix.core.suites.ambiguity.suite import progress_line

        return str(progress_line(result))

    def audit(self, bag_dir: Path, run_dir: Path | None) -> list[SuiteAudit]:
        from alpha_matrix.core.suites.ambiguity.audit import audit_ambiguity_bag

        return list(audit_ambiguity_bag(bag_dir, run_dir))

    def agent_decisions(self, result: dict[str, Any]) -> int:
        from alpha_matrix.core.suites.ambiguity.suite import agent_decisions

        return int(agent_decisions(result))

    def situation_model(self) -> type[BaseModel]:
        from alpha_matrix.core.suites.ambiguity.situation import AmbiguitySituation

        return AmbiguitySituation

    def tools(self, situation: Any) -> tuple[Tool, ...]:
        from alpha_matrix.core.suites.ambiguity.situation import tools_for

        return tools_for(situation)

    def brief_values(self, brief: dict[str, Any]) -> dict[str, str]:
        from alpha_matrix.core.suites.ambiguity.situation import brief_values

        return brief_values(brief)

    def reference(self, **options: Any) -> SuiteReference:
        from alpha_matrix.core.suites.ambiguity.reference_agent import AmbiguityReference

        return AmbiguityReference(**options)


SUITE = AmbiguitySuite()
