"""The proximity suite: a person near the robot, seen by a depth-only detector; the robot must stop in time."""

from alpha_matrix.core.suites.suite import Suite


class ProximitySuite(Suite):
    name = "proximity"
    marker_topic = "/proximity/estimate"
    audit_unit = "estimates"
    nodes = {
        "proximity_bridge": "params:ProximityBridgeParams",
        "proximity_detector": "params:ProximityDetectorParams",
        "proximity_executive": "params:ProximityExecutiveParams",
        "proximity_agent_link": "params:ProximityAgentLinkParams",
    }
    config_file = None  # the detector's policy travels in the scenario, its intrinsics on CameraInfo
    brief_placeholders = frozenset({"threshold_m", "frame_period_s", "reaction_s"})
    required_brief = frozenset({"threshold_m"})
    pieces = {"summarize": "report:summarize_proximity"}


SUITE = ProximitySuite()
