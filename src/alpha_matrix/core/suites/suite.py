"""A safety suite as one typed object: its facts as attributes, its pieces as methods.

Every suite's folder (core/suites/<suite>/) exports one instance of a ``Suite`` subclass
(``SUITE`` in its plugin.py), and core/suites/registry.py maps the suite's name to it. The object
is light: its module imports nothing of the suite beyond this one, and each method imports the
suite's module that does the work when it is called. That is what lets a process that needs one
piece (the proximity detector node, the record model) look a suite up without importing the
simulator, OpenCV or the other suites.

The agent side (the situation schema, the tools, the prompt's brief values, the reference's
decisions) is part of the same object: it satisfies core/agent/suite.py's ``AgentSuite``
structurally, so the agent layer is given a suite and never imports one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pydantic import BaseModel

    from alpha_matrix.core.agent.protocol import Tool
    from alpha_matrix.core.agent.suite import SuiteReference
    from alpha_matrix.core.graph import Graph
    from alpha_matrix.core.pages.reading import Headline, Term
    from alpha_matrix.core.suites.context import SuiteContext
    from alpha_matrix.core.suites.records import SuiteRecord


@dataclass(frozen=True)
class SuiteAudit:
    episode_id: str
    inputs: int  # messages replayed: depth frames, or alerts + statuses, or queries
    recorded: int  # recorded decisions (estimates, or alert rows + admissions, or answers)
    replayed: int
    problems: tuple[str, ...]
    interrupted_attempts: int = 0  # earlier, unfinished runs of this scenario in the bag (not audited)
    context: str = ""  # where the audit's policy, L or skills came from (one line)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class Reading:
    """A suite's part of the opening and the glossary: what was tested, what to look at next (both
    from the records), and the terms its report may use (the glossary lists those it does use)."""

    tested: str
    next: str
    terms: tuple[Term, ...]


class ScenarioRequest(NamedTuple):
    """One scenario as the runner sends it on suite/request."""

    name: str
    seed: int
    scenario_json: str


class Suite(ABC):
    """One suite. Facts (class attributes of each subclass):

    * ``name``: its name, the registry's key.
    * ``marker_topic``: with /suite/request in a bag, the bag is this suite's (one suite per topic).
    * ``audit_unit``: what its audit counts, recorded/replayed.
    * ``config_file``: (file parameter of its nodes, default file in config/), if any.
    * ``brief_placeholders`` / ``required_brief``: the brief placeholders its prompt's system text
      may use / must use (config/prompts/agent_<suite>_v1.yaml).
    * ``agent_baselines``: its own baseline agents, backend name -> ``"module:Class"``.
    """

    name: str
    marker_topic: str
    audit_unit: str
    config_file: tuple[str, str] | None = None
    brief_placeholders: frozenset[str] = frozenset()
    required_brief: frozenset[str] = frozenset()
    agent_baselines: Mapping[str, str] = {}

    def __repr__(self) -> str:
        return f"<suite {self.name}>"

    # ------------------------------------------------------------------------- the run and its report
    @abstractmethod
    def scenarios(self, scenarios: Path | None, config_file: Path | None) -> list[ScenarioRequest]:
        """The scenario file (None: the package's), validated with the config file the suite's nodes
        read (None: the package's), every scenario encoded as the runner sends it."""

    @abstractmethod
    def context(self, graph: Graph) -> SuiteContext:
        """What the bag must carry for its audit, from the resolved graph."""

    @abstractmethod
    def summarize(self, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The summary of the scenarios' results, as recorded."""

    @abstractmethod
    def report(self, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> list[str]:
        """The report's body lines."""

    @abstractmethod
    def headline(self, summary: dict[str, Any]) -> Headline:
        """The run's rate (what "right" is) and its safety events (what a harm is), defined once:
        the report opens with it and the suite command ends with it."""

    @abstractmethod
    def reading(self, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> Reading:
        """What was tested, what to look at next, its terms."""

    @abstractmethod
    def plots(self, records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
        """The PNGs written to ``plot_dir`` (names start "<suite>_") as (file name, alt text)."""

    @abstractmethod
    def progress(self, result: dict[str, Any]) -> str:
        """The runner's one-line progress for one recorded result."""

    @abstractmethod
    def audit(self, bag_dir: Path, run_dir: Path | None) -> list[SuiteAudit]:
        """The bag's episodes replayed and compared with what was recorded."""

    def agent_decisions(self, result: dict[str, Any]) -> int:
        """How many agent/decisions of its episode one recorded result was built from: the
        SuiteResult says so, and the recorder commits the episode once the bag holds that many.
        By default the agent part lists every one (suites/agent_common.py)."""
        from alpha_matrix.core.suites.agent_common import listed_decisions

        return listed_decisions(result)

    # ------------------------------------------------------------------------- the agent side (AgentSuite)
    @abstractmethod
    def situation_model(self) -> type[BaseModel]:
        """Its situation schema (pydantic, closed)."""

    @abstractmethod
    def tools(self, situation: Any) -> tuple[Tool, ...]:
        """The tools offered at ``situation``."""

    @abstractmethod
    def brief_values(self, brief: dict[str, Any]) -> dict[str, str]:
        """The brief (as JSON) as the prompt's placeholder values."""

    @abstractmethod
    def reference(self, **options: Any) -> SuiteReference:
        """The reference agent's decisions for this suite; ``options``: the reference's own settings."""
