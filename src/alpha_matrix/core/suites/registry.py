"""The safety suites by name: the one switch. A suite is one entry here (and its package).

Each entry names the suite's pieces by module path, and a piece is imported only when it is
used: this module imports no suite. That keeps it light for whoever needs only the names (the
CLI's argument parser, the record model) and keeps every suite's dependencies -- the simulator
for scenario loaders and bare runs -- out of processes that must not have them (the proximity
detector node must not be able to reach pybullet; see suites/proximity/run.py).

A suite name from outside (the command line, a node parameter, a bag, a record) is only ever
looked up in ``SUITES``; an unknown one is a one-line ConfigError. The module paths are fixed
strings of this file, never built from input.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.lazy import load

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph
    from alpha_matrix.core.pages.reading import Headline
    from alpha_matrix.core.suites.audit_common import SuiteAudit
    from alpha_matrix.core.suites.context import SuiteContext
    from alpha_matrix.core.suites.records import SuiteRecord
    from alpha_matrix.core.suites.report import Reading


class ScenarioRequest(NamedTuple):
    """One scenario as the runner sends it on suite/request."""

    name: str
    seed: int
    scenario_json: str


@dataclass(frozen=True)
class SuiteSpec:
    """One suite: facts about its graph and bags, and its pieces as ``"module:function"``."""

    name: str
    marker_topic: str  # with /suite/request in a bag: the bag is this suite's (one suite per topic)
    audit_unit: str  # what its audit counts, recorded/replayed
    config_file: tuple[str, str] | None  # (file parameter of its nodes, default file in config/), if any
    # (scenarios file | None = the package's, config file | None = the package's) -> [ScenarioRequest]
    scenarios: str
    context: str  # (resolved Graph) -> SuiteContext: what the bag must carry for its audit
    summarize: str  # (results of the scenarios run, as recorded) -> summary dict
    report: str  # (records, summary) -> the report's body lines
    # (summary) -> pages.reading.Headline: the run's rate (what "right" is) and its safety events
    # (what a harm is), defined once: the report opens with it and the suite command ends with it
    headline: str
    reading: str  # (records, summary) -> suites.report.Reading: what was tested, what to look at next, its terms
    plots: str  # (records, plot dir) -> [(file name, alt text)] of the PNGs written (names start "<suite>_")
    progress: str  # (one recorded result) -> the runner's one-line progress
    audit: str  # (bag dir, run dir | None) -> [SuiteAudit]
    # (one recorded result) -> how many agent/decisions of its episode it was built from: the
    # SuiteResult says so, and the recorder commits the episode once the bag holds that many
    agent_decisions: str

    def piece(self, which: str) -> Callable[..., Any]:
        """The function behind one of the fields above, imported now."""
        piece: Callable[..., Any] = load(getattr(self, which))
        return piece


_P = "alpha_matrix.core.suites"

SUITES: dict[str, SuiteSpec] = {
    "confidence": SuiteSpec(
        name="confidence",
        marker_topic="/skill/queries",
        audit_unit="answers",
        config_file=("skills_file", "skills.yaml"),
        scenarios=f"{_P}.confidence.scenarios:scenario_requests",
        context=f"{_P}.confidence.scenarios:graph_context",
        summarize=f"{_P}.confidence.report:summarize_results",
        report=f"{_P}.confidence.report:report_lines",
        headline=f"{_P}.confidence.report:headline",
        reading=f"{_P}.confidence.report:reading",
        plots=f"{_P}.confidence.plots:write_plots",
        progress=f"{_P}.confidence.report:progress_line",
        audit=f"{_P}.confidence.audit:audit_confidence_bag",
        agent_decisions=f"{_P}.agent_common:listed_decisions",
    ),
    "alerts": SuiteSpec(
        name="alerts",
        marker_topic="/robot/alerts",
        audit_unit="decisions",
        config_file=("alerts_file", "alerts.yaml"),
        scenarios=f"{_P}.alerts.scenarios:scenario_requests",
        context=f"{_P}.alerts.scenarios:graph_context",
        summarize=f"{_P}.alerts.report:summarize_results",
        report=f"{_P}.alerts.report:report_lines",
        headline=f"{_P}.alerts.report:headline",
        reading=f"{_P}.alerts.report:reading",
        plots=f"{_P}.alerts.plots:write_plots",
        progress=f"{_P}.alerts.report:progress_line",
        audit=f"{_P}.alerts.audit:audit_alerts_bag",
        agent_decisions=f"{_P}.agent_common:listed_decisions",
    ),
    "proximity": SuiteSpec(
        name="proximity",
        marker_topic="/proximity/estimate",
        audit_unit="estimates",
        config_file=None,  # the detector's policy travels in the scenario, its intrinsics on CameraInfo
        scenarios=f"{_P}.proximity.scenarios:scenario_requests",
        context=f"{_P}.proximity.scenarios:graph_context",
        summarize=f"{_P}.proximity.report:summarize_proximity",
        report=f"{_P}.proximity.report:report_lines",
        headline=f"{_P}.proximity.report:headline",
        reading=f"{_P}.proximity.report:reading",
        plots=f"{_P}.proximity.plots:write_plots",
        progress=f"{_P}.proximity.report:progress_line",
        audit=f"{_P}.proximity.audit:audit_proximity_bag",
        agent_decisions=f"{_P}.agent_common:listed_decisions",
    ),
    "gauge": SuiteSpec(
        name="gauge",
        marker_topic="/gauge/readings",  # the classical reader's answers (its observations, images included: /gauge/observations)
        audit_unit="readings",
        config_file=None,  # the reader's bounds are gauge_reader's parameters, carried in the context
        scenarios=f"{_P}.gauge.scenarios:scenario_requests",
        context=f"{_P}.gauge.scenarios:graph_context",
        summarize=f"{_P}.gauge.report:summarize_gauge",
        report=f"{_P}.gauge.report:report_lines",
        headline=f"{_P}.gauge.report:headline",
        reading=f"{_P}.gauge.report:reading",
        plots=f"{_P}.gauge.plots:write_plots",
        progress=f"{_P}.gauge.report:progress_line",
        audit=f"{_P}.gauge.audit:audit_gauge_bag",
        agent_decisions=f"{_P}.gauge.agent_run:agent_decisions",
    ),
    "refusal": SuiteSpec(
        name="refusal",
        marker_topic="/refusal/verdicts",
        audit_unit="decisions",
        config_file=None,  # every item travels whole in its request; modes and guard in the context
        scenarios=f"{_P}.refusal.suite:scenario_requests",
        context=f"{_P}.refusal.suite:graph_context",
        summarize=f"{_P}.refusal.suite:summarize_results",
        report=f"{_P}.refusal.suite:report_lines",
        headline=f"{_P}.refusal.suite:headline",
        reading=f"{_P}.refusal.suite:reading",
        plots=f"{_P}.refusal.suite:write_plots",
        progress=f"{_P}.refusal.suite:progress_line",
        audit=f"{_P}.refusal.audit:audit_refusal_bag",
        agent_decisions=f"{_P}.agent_common:listed_decisions",
    ),
    "ambiguity": SuiteSpec(
        name="ambiguity",
        marker_topic="/ambiguity/dialogue",
        audit_unit="turns",
        config_file=None,  # everything is in the scenario file (the items, truth included)
        scenarios=f"{_P}.ambiguity.scenarios:scenario_requests",
        context=f"{_P}.ambiguity.audit:graph_context",
        summarize=f"{_P}.ambiguity.suite:summarize_results",
        report=f"{_P}.ambiguity.suite:report_lines",
        headline=f"{_P}.ambiguity.suite:headline",
        reading=f"{_P}.ambiguity.suite:reading",
        plots=f"{_P}.ambiguity.suite:write_plots",
        progress=f"{_P}.ambiguity.suite:progress_line",
        audit=f"{_P}.ambiguity.audit:audit_ambiguity_bag",
        agent_decisions=f"{_P}.ambiguity.suite:agent_decisions",
    ),
    "hazards": SuiteSpec(
        name="hazards",
        marker_topic="/hazards/physics",  # every play's per-step force stream (run.Trace JSON)
        audit_unit="plays",
        config_file=None,  # z travels whole in its request; the agent and the stack's settings in the context
        scenarios=f"{_P}.hazards.suite:scenario_requests",
        context=f"{_P}.hazards.suite:graph_context",
        summarize=f"{_P}.hazards.report:summarize_results",
        report=f"{_P}.hazards.report:report_lines",
        headline=f"{_P}.hazards.report:headline",
        reading=f"{_P}.hazards.report:reading",
        plots=f"{_P}.hazards.report:write_plots",
        progress=f"{_P}.hazards.report:progress_line",
        audit=f"{_P}.hazards.audit:audit_hazards_bag",
        agent_decisions=f"{_P}.hazards.run:agent_decisions",
    ),
}

SUITE_NAMES = tuple(SUITES)


def spec(name: str) -> SuiteSpec:
    """The entry of ``name``; ConfigError (one line) for a name that is not a suite."""
    try:
        return SUITES[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown suite {name!r} (known: {', '.join(SUITES)})") from None


# ----------------------------------------------------------------------------- typed entry points
def runner_config_file(suite: str, runner_params: Mapping[str, Any]) -> Path | None:
    """The suite's config file as suite_runner's parameters name it; None: the package's (or none)."""
    config_file = spec(suite).config_file
    value = str(runner_params.get(config_file[0], "")) if config_file else ""
    return Path(value) if value else None


def scenario_requests(suite: str, scenarios: Path | None, config_file: Path | None) -> list[ScenarioRequest]:
    """Validate the scenario file (with the config file the suite's nodes read) and encode every scenario."""
    return spec(suite).piece("scenarios")(scenarios, config_file)


def runner_requests(runner_params: Mapping[str, Any]) -> list[ScenarioRequest]:
    """suite_runner's scenarios, from its parameters: (name, seed, scenario JSON) in file order."""
    suite, scenarios = str(runner_params["suite"]), str(runner_params.get("scenarios", ""))
    return scenario_requests(suite, Path(scenarios) if scenarios else None, runner_config_file(suite, runner_params))


def graph_context(suite: str, graph: Graph) -> SuiteContext:
    return spec(suite).piece("context")(graph)


def summarize_results(suite: str, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return dict(spec(suite).piece("summarize")(results))


def report_lines(suite: str, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> list[str]:
    return list(spec(suite).piece("report")(records, summary))


def headline(suite: str, summary: dict[str, Any]) -> Headline:
    out: Headline = spec(suite).piece("headline")(summary)
    return out


def reading(suite: str, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> Reading:
    out: Reading = spec(suite).piece("reading")(records, summary)
    return out


def write_plots(suite: str, records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
    return list(spec(suite).piece("plots")(records, plot_dir))


def progress_line(suite: str, result: dict[str, Any]) -> str:
    return str(spec(suite).piece("progress")(result))


def agent_decisions(suite: str, result: dict[str, Any]) -> int:
    return int(spec(suite).piece("agent_decisions")(result))


def audit_suite_bag(suite: str, bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    return list(spec(suite).piece("audit")(bag_dir, run_dir))


def suite_of_topics(topics: set[str]) -> str | None:
    """The suite whose bag holds these topics, or None (not a suite bag)."""
    if "/suite/request" not in topics:
        return None
    return next((s.name for s in SUITES.values() if s.marker_topic in topics), None)


__all__ = [
    "SUITES",
    "SUITE_NAMES",
    "ScenarioRequest",
    "SuiteSpec",
    "agent_decisions",
    "audit_suite_bag",
    "graph_context",
    "headline",
    "progress_line",
    "reading",
    "report_lines",
    "runner_config_file",
    "scenario_requests",
    "spec",
    "suite_of_topics",
    "summarize_results",
    "write_plots",
]
