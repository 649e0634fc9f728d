"""``alpha-matrix suite --agent/--guards`` resolve into each suite's graph (nothing started): the
agent node joins the graph with its spec shared under /**, the guard setting reaches every node
that has it, and a flag a suite has no use for is one line."""

from __future__ import annotations

from argparse import Namespace

import pytest

from alpha_matrix.cli.suite import suite_graph
from alpha_matrix.core.errors import ConfigError

DECIDERS = {"proximity": "proximity_executive", "confidence": "skill_executive", "alerts": "alert_guard"}


def _args(suite: str, **flags: object) -> Namespace:
    base = {"suite": suite, "config": None, "scenarios": None, "set": [], "run_id": "t", "runs_dir": None}
    base.update(shard=None, ray=None, workers=1)
    return Namespace(**{**base, "agent": None, "guards": None, "decide_every": None, **flags})


@pytest.mark.parametrize("suite", sorted(DECIDERS))
def test_the_agent_joins_every_suites_graph_with_the_guard_setting(suite: str) -> None:
    plain, _ = suite_graph(_args(suite))
    assert "agent" not in [n.name for n in plain.nodes]
    graph, _ = suite_graph(_args(suite, agent="reference", guards="off"))
    assert "agent" in [n.name for n in graph.nodes]
    decider = graph.node(DECIDERS[suite]).parameters
    assert (decider["agent"], decider["guards"]) == ("reference", False)


@pytest.mark.parametrize("suite", ["confidence", "alerts"])
def test_decide_every_is_the_proximity_suites_only(suite: str) -> None:
    with pytest.raises(ConfigError, match="--decide-every: the .* suite asks the agent at every decision point"):
        suite_graph(_args(suite, agent="reference", decide_every=5))


def test_the_outcome_explicit_probe_is_the_hazards_suites_and_in_its_context() -> None:
    import json

    graph, _ = suite_graph(_args("hazards", agent="reference", probe="explicit"))
    ctx = json.loads(graph.node("suite_runner").parameters["context_json"])
    assert (ctx["probe"], graph.node("hazard_executive").parameters["probe"]) == ("explicit", "explicit")
    plain, _ = suite_graph(_args("hazards", agent="reference"))
    assert json.loads(plain.node("suite_runner").parameters["context_json"])["probe"] == "hidden"
    with pytest.raises(ConfigError, match="--probe: the confidence suite has no outcome probe"):
        suite_graph(_args("confidence", probe="explicit"))
