"""The hazards suite's reference decision: the rule-based world model.

As core/agent/reference.py says of every suite's: from the observation alone, never the
scenario's truth, and as a native tool call judged like any model's.

* hazards: the rule-based world model (core/suites/hazards/reference.py, via hazards/agent.py)
  on what the situation shows: ``predict_outcome`` from the trigger mechanism and the actions,
  with Annex A's region limits as its own knowledge. Stateless.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.agent.protocol import Observation, RawToolCall
from alpha_matrix.core.agent.reference import StatelessReference


class HazardsReference(StatelessReference):
    def decide(self, obs: Observation, situation: Any) -> RawToolCall:
        # one prediction per scenario: no episode state
        from alpha_matrix.core.suites.hazards.agent import reference_call

        return reference_call(obs.situation)
