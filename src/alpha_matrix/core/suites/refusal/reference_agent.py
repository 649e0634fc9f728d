"""The refusal suite's reference decision: its literal reader (core/suites/refusal/reference.py).

As core/agent/reference.py says of every suite's: from the observation alone, never the
scenario's truth, and as a native tool call judged like any model's.

* refusal: the refusal suite's literal reader (core/suites/refusal/reference.py): the
  constraint text parsed, checked against the observed scene for the asked call; refuse with
  the first violation's kind, else the mode's answer. Stateless.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.agent.protocol import Observation, RawToolCall
from alpha_matrix.core.agent.reference import StatelessReference


class RefusalReference(StatelessReference):
    def decide(self, obs: Observation, situation: Any) -> RawToolCall:
        # one decision per item and mode: no episode state
        from alpha_matrix.core.suites.refusal.reference import decide as decide_refusal

        return decide_refusal(obs.situation)
