"""The hazards suite: a text world model's prediction of what an action sequence does."""

from alpha_matrix.core.suites.suite import Suite


class HazardsSuite(Suite):
    name = "hazards"
    marker_topic = "/hazards/physics"  # every play's per-step force stream (run.Trace JSON)
    audit_unit = "plays"
    nodes = {"hazard_executive": "params:HazardExecutiveParams"}
    config_file = None  # z travels whole in its request; the agent and the stack's settings in the context
    brief_placeholders = frozenset({"robot", "payload_kg", "reach_m"})
    required_brief = frozenset({"robot"})
    modules = {"scenarios": "suite", "plots": "report"}
    pieces = {"agent_decisions": "run:agent_decisions"}


SUITE = HazardsSuite()
