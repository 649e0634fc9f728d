"""The safety suites by name: the one switch. A suite is one line of core/suites/plugins.py (and its folder).

Each entry names the suite's object (core/suites/suite.py: its facts and its pieces) by
``"module:attr"``, and the object is imported only when the suite is first looked up: this module
imports no suite. The suite object is light in turn (each of its methods imports the module that
does the work when it is called). That keeps the registry light for whoever needs only the names
(the CLI's argument parser, the record model) and keeps every suite's dependencies -- the
simulator for scenario loaders and bare runs -- out of processes that must not have them (the
proximity detector node must not be able to reach pybullet; see suites/proximity/run.py).

A suite name from outside (the command line, a node parameter, a bag, a record) is only ever
looked up in ``SUITES``; an unknown one is a one-line ConfigError. The module paths are fixed
strings of this file, never built from input.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ValidationError

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.lazy import load
from alpha_matrix.core.suites.suite import Reading, ScenarioRequest, Suite, SuiteAudit

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph
    from alpha_matrix.core.pages.reading import Headline
    from alpha_matrix.core.suites.context import SuiteContext
    from alpha_matrix.core.suites.records import SuiteRecord


from alpha_matrix.core.suites.plugins import SUITE_NAMES, SUITES  # noqa: F401 - the registry's names

_loaded: dict[str, Suite] = {}  # by "module:attr": a suite object is imported once


def suite(name: str) -> Suite:
    """The suite ``name``, its object imported on first use; ConfigError (one line) for a name
    that is not a suite."""
    try:
        ref = SUITES[name]
    except (KeyError, TypeError):
        raise ConfigError(f"unknown suite {name!r} (known: {', '.join(SUITES)})") from None
    got = _loaded.get(ref)
    if got is None:
        got = load(ref)
        if not isinstance(got, Suite) or got.name != name:
            raise ConfigError(f"suite {name!r}: {ref} is not the {name} suite's object")
        _loaded[ref] = got
    return got


spec = suite  # the name callers used when an entry was a table of "module:function" strings


def suites() -> list[Suite]:
    """Every suite, in registry order (each object imported now: they are light)."""
    return [suite(name) for name in SUITES]


def agent_baselines() -> dict[str, str]:
    """Every suite's own baseline agents: backend name -> ``"module:Class"``."""
    return {name: ref for s in suites() for name, ref in s.agent_baselines.items()}


# ----------------------------------------------------------------------------- typed entry points
def runner_config_file(suite: str, runner_params: Mapping[str, Any]) -> Path | None:
    """The suite's config file as suite_runner's parameters name it; None: the package's (or none)."""
    config_file = spec(suite).config_file
    value = str(runner_params.get(config_file[0], "")) if config_file else ""
    return Path(value) if value else None


def scenario_requests(suite: str, scenarios: Path | None, config_file: Path | None) -> list[ScenarioRequest]:
    """Validate the scenario file (with the config file the suite's nodes read) and encode every scenario."""
    return spec(suite).scenarios(scenarios, config_file)


def runner_requests(runner_params: Mapping[str, Any]) -> list[ScenarioRequest]:
    """suite_runner's scenarios, from its parameters: (name, seed, scenario JSON) in file order."""
    suite, scenarios = str(runner_params["suite"]), str(runner_params.get("scenarios", ""))
    return scenario_requests(suite, Path(scenarios) if scenarios else None, runner_config_file(suite, runner_params))


def graph_context(suite: str, graph: Graph) -> SuiteContext:
    return spec(suite).context(graph)


def parse_context(text: str, name: str) -> SuiteContext:
    """A recorded context, read back by the suite it names; ValueError (one line) when it is not a
    valid context of suite ``name``."""
    try:
        named = _Named.model_validate_json(text).suite
    except ValidationError as err:
        raise ValueError(f"invalid context_json: {_first(err)}") from None
    if named != name:
        raise ValueError(f"context_json is for suite {named!r}, not {name!r}")
    try:
        ctx: SuiteContext = suite(name).context_model().model_validate_json(text)
    except ValidationError as err:
        raise ValueError(f"invalid context_json: {_first(err)}") from None
    return ctx


class _Named(BaseModel):
    """Only which suite a recorded context names (one of the registry's)."""

    suite: Literal[SUITE_NAMES]  # type: ignore[valid-type]


def _first(err: ValidationError) -> str:
    first = err.errors()[0]
    key = ".".join(str(p) for p in first["loc"]) or "context"
    return f"{key}: {first['msg'].removeprefix('Value error, ')}"


def summarize_results(suite: str, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return spec(suite).summarize(results)


def report_lines(suite: str, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> list[str]:
    return spec(suite).report(records, summary)


def headline(suite: str, summary: dict[str, Any]) -> Headline:
    return spec(suite).headline(summary)


def reading(suite: str, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> Reading:
    return spec(suite).reading(records, summary)


def write_plots(suite: str, records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
    return spec(suite).plots(records, plot_dir)


def progress_line(suite: str, result: dict[str, Any]) -> str:
    return spec(suite).progress(result)


def agent_decisions(suite: str, result: dict[str, Any]) -> int:
    return spec(suite).agent_decisions(result)


def audit_suite_bag(suite: str, bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    return spec(suite).audit(bag_dir, run_dir)


def suite_of_topics(topics: set[str]) -> str | None:
    """The suite whose bag holds these topics, or None (not a suite bag)."""
    if "/suite/request" not in topics:
        return None
    return next((s.name for s in suites() if s.marker_topic in topics), None)


__all__ = [
    "SUITES",
    "SUITE_NAMES",
    "ScenarioRequest",
    "Suite",
    "agent_baselines",
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
    "suite",
    "suite_of_topics",
    "suites",
    "summarize_results",
    "write_plots",
]
