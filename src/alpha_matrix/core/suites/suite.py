"""A safety suite as one typed object: its facts as attributes, its pieces as methods.

Every suite's folder (core/suites/<suite>/) exports one instance of a ``Suite`` subclass
(``SUITE`` in its plugin.py), and core/suites/registry.py maps the suite's name to it. The object
is light: its module imports nothing of the suite beyond this one, and each piece (a function or
class of the suite's folder, ``PIECES``) is imported when it is first called. That is what lets a
process that needs one piece (the proximity detector node, the record model) look a suite up
without importing the simulator, OpenCV or the other suites.

Where a piece lives follows one layout (``PIECES``: module and name in the suite's folder, with
``{name}`` / ``{Name}`` the suite's name); a suite names only where it differs (``pieces``), or
overrides the method.

The agent side (the situation schema, the tools, the prompt's brief values, the reference's
decisions) is part of the same object: it satisfies core/agent/suite.py's ``AgentSuite``
structurally, so the agent layer is given a suite and never imports one.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

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


# Where each piece of a suite lives, in its folder, unless its ``pieces`` says otherwise:
# piece -> "module:name" ({name}: the suite's name, {Name}: capitalised).
PIECES: dict[str, str] = {
    "scenarios": "scenarios:scenario_requests",
    "context": "scenarios:graph_context",
    "context_model": "context:{Name}Context",
    "summarize": "report:summarize_results",
    "report": "report:report_lines",
    "headline": "report:headline",
    "reading": "report:reading",
    "progress": "report:progress_line",
    "plots": "plots:write_plots",
    "audit": "audit:audit_{name}_bag",
    "situation_model": "situation:{Name}Situation",
    "tools": "situation:tools_for",
    "brief_values": "situation:brief_values",
    "reference": "reference_agent:{Name}Reference",
}


# Pieces a suite has only when it names them in ``pieces``.
OPTIONAL_PIECES = frozenset({"agent_decisions", "scenario_verdict"})


class Suite:
    """One suite. Facts (class attributes of each subclass):

    * ``name``: its name, the registry's key.
    * ``marker_topic``: with /suite/request in a bag, the bag is this suite's (one suite per topic).
    * ``audit_unit``: what its audit counts, recorded/replayed.
    * ``config_file``: (file parameter of its nodes, default file in config/), if any.
    * ``brief_placeholders`` / ``required_brief``: the brief placeholders its prompt's system text
      may use / must use (config/prompts/agent_<suite>_v1.yaml).
    * ``agent_baselines``: its own baseline agents, backend name -> ``"module:Class"``.
    * ``nodes``: its own node executables (nodes/<executable>.py) -> their parameter model
      ("module:Class" in its folder), which the graph resolver validates params files against.
    * ``modules``: the layout's modules it names otherwise (e.g. {"report": "suite"}: the report
      pieces are in its suite.py).
    * ``pairing_rule``: set when compare pairs its runs per scenario (not per decision): what
      "right" is then, judged by its ``scenario_verdict`` piece.
    * ``pieces``: single pieces that live elsewhere (piece -> "module:name" in its folder).
    * ``guarded``: False when no guard can stand between its agent's call and the robot (its
      records' ``guards: false`` then says nothing was switched off: the board shows no "guards off").
    """

    name: ClassVar[str]
    marker_topic: ClassVar[str]
    audit_unit: ClassVar[str]
    config_file: ClassVar[tuple[str, str] | None] = None
    brief_placeholders: ClassVar[frozenset[str]] = frozenset()
    required_brief: ClassVar[frozenset[str]] = frozenset()
    agent_baselines: ClassVar[Mapping[str, str]] = {}
    modules: ClassVar[Mapping[str, str]] = {}
    nodes: ClassVar[Mapping[str, str]] = {}
    pieces: ClassVar[Mapping[str, str]] = {}
    pairing_rule: ClassVar[str] = ""
    guarded: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if unknown := sorted(set(cls.pieces) - set(PIECES) - OPTIONAL_PIECES):
            raise TypeError(f"suite {cls.__name__}: unknown piece(s) {unknown}; the pieces: {sorted(PIECES)}")

    def __repr__(self) -> str:
        return f"<suite {self.name}>"

    def where(self, piece: str) -> str:
        """``piece``'s "module:name", module absolute (the suite's folder is its plugin's package)."""
        ref = self.pieces.get(piece, PIECES.get(piece, ""))
        if ":" not in ref:
            raise LookupError(f"suite {self.name} has no piece {piece!r}")
        module, _, attr = ref.partition(":")
        return self._absolute(self.modules.get(module, module) if piece not in self.pieces else module, attr)

    def piece(self, piece: str) -> Any:
        """The function or class of ``piece``, imported now (LookupError when its module lacks it)."""
        return self._load(self.where(piece), f"its piece {piece!r}")

    def node_params(self) -> dict[str, Any]:
        """Its nodes' parameter models by executable (``nodes``), imported now."""
        return {exe: self._load(self._absolute(*ref.split(":")), f"node {exe}") for exe, ref in self.nodes.items()}

    def _absolute(self, module: str, attr: str) -> str:
        package = type(self).__module__.rpartition(".")[0]
        fill = {"name": self.name, "Name": self.name.capitalize()}
        module = f"{package}.{module}" if package else module
        return f"{module.format(**fill)}:{attr.format(**fill)}"

    def _load(self, ref: str, what: str) -> Any:
        module, _, attr = ref.partition(":")
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:  # its package is missing too
            found = False
        if not found:
            raise LookupError(f"suite {self.name}: no module {module} for {what}")
        try:
            return getattr(importlib.import_module(module), attr)
        except AttributeError:
            raise LookupError(f"suite {self.name}: {module} has no {attr} ({what})") from None

    # ------------------------------------------------------------------------- the run and its report
    def scenarios(self, scenarios: Path | None, config_file: Path | None) -> list[ScenarioRequest]:
        """The scenario file (None: the package's), validated with the config file the suite's nodes
        read (None: the package's), every scenario encoded as the runner sends it."""
        return list(self.piece("scenarios")(scenarios, config_file))

    def context(self, graph: Graph) -> SuiteContext:
        """What the bag must carry for its audit, from the resolved graph."""
        return self.piece("context")(graph)

    def context_model(self) -> type[SuiteContext]:
        """Its context's model (a ``SuiteContext``), which reads a recorded context back."""
        return self.piece("context_model")

    def summarize(self, results: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The summary of the scenarios' results, as recorded."""
        return dict(self.piece("summarize")(results))

    def report(self, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> list[str]:
        """The report's body lines."""
        return list(self.piece("report")(records, summary))

    def headline(self, summary: dict[str, Any]) -> Headline:
        """The run's rate (what "right" is) and its safety events (what a harm is), defined once:
        the report opens with it and the suite command ends with it."""
        return self.piece("headline")(summary)

    def reading(self, records: Sequence[SuiteRecord], summary: dict[str, Any]) -> Reading:
        """What was tested, what to look at next, its terms."""
        return self.piece("reading")(records, summary)

    def plots(self, records: Sequence[SuiteRecord], plot_dir: Path) -> list[tuple[str, str]]:
        """The PNGs written to ``plot_dir`` (names start "<suite>_") as (file name, alt text)."""
        return list(self.piece("plots")(records, plot_dir))

    def progress(self, result: dict[str, Any]) -> str:
        """The runner's one-line progress for one recorded result."""
        return str(self.piece("progress")(result))

    def audit(self, bag_dir: Path, run_dir: Path | None) -> list[SuiteAudit]:
        """The bag's episodes replayed and compared with what was recorded."""
        return list(self.piece("audit")(bag_dir, run_dir))

    def agent_decisions(self, result: dict[str, Any]) -> int:
        """How many agent/decisions of its episode one recorded result was built from: the
        SuiteResult says so, and the recorder commits the episode once the bag holds that many.
        By default the agent part lists every one (suites/agent_common.py)."""
        if "agent_decisions" in self.pieces:
            return int(self.piece("agent_decisions")(result))
        from alpha_matrix.core.suites.agent_common import listed_decisions

        return listed_decisions(result)

    # ------------------------------------------------------------------------- the agent side (AgentSuite)
    def situation_model(self) -> type[BaseModel]:
        """Its situation schema (pydantic, closed)."""
        return self.piece("situation_model")

    def tools(self, situation: Any) -> tuple[Tool, ...]:
        """The tools offered at ``situation``."""
        return tuple(self.piece("tools")(situation))

    def brief_values(self, brief: dict[str, Any]) -> dict[str, str]:
        """The brief (as JSON) as the prompt's placeholder values."""
        return dict(self.piece("brief_values")(brief))

    def reference(self, **options: Any) -> SuiteReference:
        """The reference agent's decisions for this suite; ``options``: the reference's own settings."""
        return self.piece("reference")(**options)
