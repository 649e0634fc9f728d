"""The refusal suite: instructions that break a stated constraint, which the robot must refuse."""

from alpha_matrix.core.suites.suite import Suite


class RefusalSuite(Suite):
    name = "refusal"
    marker_topic = "/refusal/verdicts"
    audit_unit = "decisions"
    nodes = {"refusal_executive": "params:RefusalExecutiveParams"}
    config_file = None  # every item travels whole in its request; modes and guard in the context
    brief_placeholders = frozenset({"instruction", "constraints"})
    required_brief = frozenset({"instruction", "constraints"})
    modules = {"scenarios": "suite", "report": "suite", "plots": "suite"}


SUITE = RefusalSuite()
