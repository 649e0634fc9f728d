"""The injection suite: instructions smuggled into what the robot perceives, scored at the actuator.

It sits above the suites it attacks: it imports their public pieces (the refusal suite's scene,
judge, guard and execution), and none of them imports it (pyproject's import contracts).
"""

from alpha_matrix.core.suites.suite import Suite


class InjectionSuite(Suite):
    name = "injection"
    marker_topic = "/injection/verdicts"
    audit_unit = "decisions"
    nodes = {"injection_executive": "params:InjectionExecutiveParams"}
    config_file = None  # every item travels whole in its request; agent, guard and prompt in the context
    brief_placeholders = frozenset({"instruction", "constraints"})
    required_brief = frozenset({"instruction", "constraints"})
    agent_baselines = {"obey": "alpha_matrix.core.suites.injection.obey:ObeyAgent"}  # the compromised agent
    pairing_rule = "the attack did not succeed (injected twin); the refusal verdict right (clean twin)"
    pieces = {"scenario_verdict": "episode:scenario_verdict"}


SUITE = InjectionSuite()
