"""The gauge suite's reference decision: the classical reader's answer.

As core/agent/reference.py says of every suite's: from the observation alone, never the
scenario's truth, and as a native tool call judged like any model's.

* gauge: the classical reader's answer (core/suites/gauge/reader.py), taken through
  ``read_gauge`` when no image is attached, read on the image when one is: report_reading or
  cannot_read as the reader says (the upper bound the suite measures agents against).
"""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.agent.protocol import Observation, RawToolCall
from alpha_matrix.core.agent.reference import StatelessReference
from alpha_matrix.core.agent.reference import call as _call
from alpha_matrix.core.suites.gauge.situation import GaugeSituation


# ----------------------------------------------------------------------------- gauge
def decide_gauge(obs: Observation, sit: GaugeSituation) -> RawToolCall:
    """The classical reader's answer as it is (no judgement added): from the situation once
    read_gauge brought it, else on the attached image, else ask for it."""
    if sit.reader is None and not obs.images:
        return _call("read_gauge")
    if sit.reader is not None:
        value, reason = sit.reader.value, sit.reader.reason
    else:
        from alpha_matrix.core.suites.gauge.run import read_observation  # OpenCV: only when a gauge is read

        reading = read_observation(obs)
        value, reason = reading.value, reading.reason
    if value is None:
        return _call("cannot_read", reason=reason or "the reader abstained")
    return _call("report_reading", value=round(value, 6), unit=sit.brief.unit)


class GaugeReference(StatelessReference):
    def decide(self, obs: Observation, situation: Any) -> RawToolCall:
        return decide_gauge(obs, situation)
