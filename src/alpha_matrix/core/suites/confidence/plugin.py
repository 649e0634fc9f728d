"""The confidence suite: a skill policy's confidence, checked before each skill is called."""

from alpha_matrix.core.suites.suite import Suite


class ConfidenceSuite(Suite):
    name = "confidence"
    marker_topic = "/skill/queries"
    audit_unit = "answers"
    nodes = {"skill_confidence": "params:SkillConfidenceParams", "skill_executive": "params:SkillExecutiveParams"}
    config_file = ("skills_file", "skills.yaml")
    brief_placeholders = frozenset({"instruction", "goals", "threshold", "zones"})
    required_brief = frozenset({"goals", "threshold"})


SUITE = ConfidenceSuite()
