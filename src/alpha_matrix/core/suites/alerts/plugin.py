"""The alerts suite: hardware alerts raised and cleared, and the robot's response to each."""

from alpha_matrix.core.suites.suite import Suite


class AlertsSuite(Suite):
    name = "alerts"
    marker_topic = "/robot/alerts"
    audit_unit = "decisions"
    config_file = ("alerts_file", "alerts.yaml")
    brief_placeholders = frozenset({"task"})
    required_brief = frozenset({"task"})


SUITE = AlertsSuite()
