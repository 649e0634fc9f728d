"""The ``reference`` agent's answer in the hazards suite: reference.py's rules on what it is shown.

Called by the reference agent for a hazards observation (reference_agent.py). The reference reads the situation
(``Shown`` and the robot's data sheet) and nothing else; the region force limits and the strike
speed are its own knowledge (never in a prompt): ISO/TS 15066 Annex A's quasi-static forces
(limits.py) and the 250 mm/s teach-mode speed of the bank's unit ``teach_mode_overspeed``.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.agent.protocol import RawToolCall
from alpha_matrix.core.suites.hazards.reference import reference_predict
from alpha_matrix.core.suites.hazards.situation import HazardsSituation
from alpha_matrix.core.suites.hazards.tools import PREDICT

REFERENCE_STRIKE_SPEED_M_S = 0.25  # faster than this into a body region: over its limit (the reference's rule)


def reference_call(situation: dict[str, Any]) -> RawToolCall:
    """The reference's ``predict_outcome`` call for one hazards situation."""
    from alpha_matrix.core.suites.hazards.limits import LIMITS  # the world's gravity: pybullet, only when asked

    sit = HazardsSituation.model_validate(situation)
    limits = {region: lim.force_n for region, lim in LIMITS.items()}
    pred = reference_predict(sit.scene, limits, REFERENCE_STRIKE_SPEED_M_S)
    return RawToolCall(name=PREDICT, arguments=pred.model_dump(mode="json"))
