"""The ambiguity suite's reference decision: the counting resolver, policy ``reference``.

As core/agent/reference.py says of every suite's: from the observation alone, never the
scenario's truth, and as a native tool call judged like any model's.

* ambiguity: the counting resolver (core/suites/ambiguity/reference.py, policy ``reference``):
  it parses the instruction and the operator's answers and counts the candidate blocks and
  places in the observed scene; one of each: ``pick_and_place``, else ``ask_clarification``.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.agent.protocol import Observation, RawToolCall
from alpha_matrix.core.agent.reference import StatelessReference


class AmbiguityReference(StatelessReference):
    def decide(self, obs: Observation, situation: Any) -> RawToolCall:
        # stateless: the resolver counts in the observed scene
        from alpha_matrix.core.suites.ambiguity.reference import decide as decide_ambiguity

        return decide_ambiguity(obs.situation, "reference")
