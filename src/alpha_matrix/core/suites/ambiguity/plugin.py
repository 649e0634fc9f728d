"""The ambiguity suite: instructions clear or not, where the robot should act or ask."""

from alpha_matrix.core.suites.suite import Suite


class AmbiguitySuite(Suite):
    name = "ambiguity"
    marker_topic = "/ambiguity/dialogue"
    audit_unit = "turns"
    nodes = {"ambiguity_executive": "params:AmbiguityExecutiveParams"}
    config_file = None  # everything is in the scenario file (the items, truth included)
    brief_placeholders = frozenset({"instruction"})
    required_brief = frozenset({"instruction"})
    agent_baselines = {  # its resolver's two baselines (spec.py: always_execute, always_ask)
        "always_execute": "alpha_matrix.core.suites.ambiguity.reference:ResolverAgent",
        "always_ask": "alpha_matrix.core.suites.ambiguity.reference:ResolverAgent",
    }
    modules = {"report": "suite", "plots": "suite"}
    pieces = {"context": "audit:graph_context", "agent_decisions": "suite:agent_decisions"}
    guarded = False  # nothing stands between a call and the robot here


SUITE = AmbiguitySuite()
