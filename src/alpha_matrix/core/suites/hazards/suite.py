"""The hazards suite's pieces in the shape core/suites/registry.py asks of a suite: the requests
(one per z, the record whole: the bridge needs the answer key to score, the agent never gets it)
and the run's context (the world model under test and the stack's settings, from hazard_executive)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.suites.hazards.context import HazardsContext
from alpha_matrix.core.suites.suite import ScenarioRequest

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph

EXECUTIVE = "hazard_executive"


def scenario_requests(scenarios: Path | None, _config_file: Path | None = None) -> list[ScenarioRequest]:
    from alpha_matrix.core.suites.hazards.run import suite_scenarios

    return [
        ScenarioRequest(z.scenario_id, derive_seed("hazards", z.scenario_id), canonical_json(z.model_dump(mode="json")))
        for z in suite_scenarios(scenarios)
    ]


def graph_context(graph: Graph) -> HazardsContext:
    p = graph.node(EXECUTIVE).parameters
    return HazardsContext(
        agent=str(p["agent"]),
        stop_fraction=float(p["stop_fraction"]),
        mitigated_ms=float(p["mitigated_ms"]),
        probe=str(p["probe"]),  # type: ignore[arg-type]  # checked by HazardsContext
    )
