"""An agent under test on one gauge item: ask, let it consult the reader, score its answer.

Multimodal agents (``images``) get the camera image and answer at once; text agents get the
data sheet without the image and ``read_gauge``, which brings the classical reader's answer
into their next observation. Up to ``max_decisions`` decisions: an invalid answer or a message
is counted and asked again; an abort (no answer at all: the infrastructure's failure) ends the
item and is counted apart (the runner re-runs such an item). The answer is data: only
``report_reading`` with a number in the gauge's unit counts as a reported value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from alpha_matrix.core.agent.protocol import Decision, Observation
from alpha_matrix.core.suites.agent_common import provenance_part
from alpha_matrix.core.suites.gauge.metrics import answer_score
from alpha_matrix.core.suites.gauge.reader import Reading
from alpha_matrix.core.suites.gauge.run import AnyFace, agent_observation, answer_of

ANSWERS = ("report_reading", "cannot_read")


def reading_of(decision: Decision, unit: str) -> Reading:
    """The reader's decision as the Reading an agent is shown."""
    value, why = answer_of(decision, unit)
    unc = decision.call.arguments.get("uncertainty") if decision.call and value is not None else None
    return Reading(value, float(unc) if isinstance(unc, int | float) else None, unit, why)


def run_agent(
    episode_id: str,
    face: AnyFace,
    pixels: np.ndarray,
    reader: Decision,
    ask: Callable[[Observation], Decision],
    *,
    images: bool,
    max_decisions: int,
    face_text: str | None = None,
) -> list[Decision]:
    """The agent's decisions on one item, in order (the last one is its answer when it gave one).
    ``face_text``: text printed on the face, in every observation (the injection suite's gauge_face)."""
    seen: Reading | None = None
    decisions: list[Decision] = []
    for index in range(max_decisions):
        obs = agent_observation(episode_id, face, index, pixels if images else None, seen, face_text)
        d = ask(obs)
        decisions.append(d)
        if d.kind == "abort" or (d.kind == "tool_call" and d.call is not None and d.call.name in ANSWERS):
            break
        if d.kind == "tool_call" and d.call is not None and d.call.name == "read_gauge":
            seen = reading_of(reader, face.unit)
    return decisions


def agent_part(
    decisions: Sequence[Decision],
    spec: str,
    unit: str,
    span: float,
    truth: float | None,
    readable: bool,
    stated_unreadable: bool = False,
) -> dict[str, Any]:
    """The agent's scored answer (JSON-able): its value or why none, the counts behind it, who
    answered (backend, model, digest, prompt, raw texts) and each decision's latency.
    ``stated_unreadable``: a user's image stated unreadable with no value known (still scored)."""
    final = decisions[-1] if decisions else None
    answered = final is not None and final.kind == "tool_call" and final.call is not None and final.call.name in ANSWERS
    value, why = answer_of(final, unit) if answered and final is not None else (None, "no answer")
    return {
        "spec": spec,
        "value": value,
        "abstained": value is None,
        "reason": why,
        **answer_score(readable, value, truth, span, stated_unreadable),
        "decisions": len(decisions),
        "used_reader": any(d.call is not None and d.call.name == "read_gauge" for d in decisions),
        "invalid": sum(d.kind == "invalid" for d in decisions),
        "messages": sum(d.kind == "message" for d in decisions),
        "aborts": sum(d.kind == "abort" for d in decisions),
        "latencies_s": [round(d.provenance.latency_s, 6) for d in decisions],
        **provenance_part(decisions),
    }


def agent_decisions(result: dict[str, Any]) -> int:
    """The agent decisions a recorded result was built from (the recorder's commit waits for them)."""
    agent = result.get("agent")
    return int(agent["decisions"]) if isinstance(agent, dict) else 0
