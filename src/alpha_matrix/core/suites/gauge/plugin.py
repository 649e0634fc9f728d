"""The gauge suite: reading an instrument from a camera image, or saying it cannot be read."""

from alpha_matrix.core.suites.suite import Suite


class GaugeSuite(Suite):
    name = "gauge"
    # the classical reader's answers (its observations, images included: /gauge/observations)
    marker_topic = "/gauge/readings"
    audit_unit = "readings"
    nodes = {"gauge_reader": "params:GaugeReaderParams", "gauge_executive": "params:GaugeExecutiveParams"}
    config_file = None  # the reader's bounds are gauge_reader's parameters, carried in the context
    brief_placeholders = frozenset(
        {"gauge", "kind", "unit", "scale_min", "scale_max", "labelled_tick_every", "tick_every"}
    )
    required_brief = frozenset({"unit", "scale_min", "scale_max"})
    pairing_rule = (  # compare pairs its runs per scenario, by scenario_verdict
        "Paired on the same scenario and seed: right when a readable gauge is read within tolerance "
        "or an unreadable one is abstained on; an agent that aborted without an answer drops its pair."
    )
    pieces = {
        "scenario_verdict": "report:scenario_verdict",
        "summarize": "report:summarize_gauge",
        "agent_decisions": "agent_run:agent_decisions",
    }


SUITE = GaugeSuite()
