"""The alerts suite: hardware alerts raised and cleared, and the robot's response to each."""

from alpha_matrix.core.suites.suite import Suite


class AlertsSuite(Suite):
    name = "alerts"
    marker_topic = "/robot/alerts"
    audit_unit = "decisions"
    nodes = {
        "alert_source": "params:AlertSourceParams",
        "alert_guard": "params:AlertGuardParams",
        "alert_executive": "params:AlertExecutiveParams",
    }
    config_file = ("alerts_file", "alerts.yaml")
    brief_placeholders = frozenset({"task"})
    required_brief = frozenset({"task"})


SUITE = AlertsSuite()
