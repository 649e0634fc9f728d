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
    pairing_rule = (  # compare pairs its runs per scenario, by scenario_verdict
        "Paired on the same scenario and seed: right when the prediction passes ICAT's causal gate "
        "strictly (F_ST: initial state and trigger right, consequence η_out ≥ 0.8); an unparsable answer is "
        "wrong, an abort drops its pair, an infeasible scenario is not scored."
    )
    pieces = {"scenario_verdict": "report:scenario_verdict", "agent_decisions": "run:agent_decisions"}


SUITE = HazardsSuite()
