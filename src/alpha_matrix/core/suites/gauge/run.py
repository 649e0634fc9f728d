"""One gauge scenario through the graph: the request, what the reader is shown, its answer, the result.

The request (``GaugeRequest``, on suite/request) is the sim side's: the item's conditions,
including the value the needle shows. The reader is shown an ``Observation`` built from the
rendered image and the face's published layout only (``gauge_observation``): no value, no
label, no degradation. Its answer is a protocol ``Decision`` (``report_reading`` or
``cannot_read``, ``reading_decision``), recorded on agent/decisions with the observation (and
its image) on agent/observations. The result scores that answer against the request's truth.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from alpha_matrix.core.agent.images import rgb_image, rgb_pixels
from alpha_matrix.core.agent.protocol import AgentProvenance, Decision, Observation, ToolCall
from alpha_matrix.core.agent.situation import situation_json
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.suites.gauge.conditions import Conditions
from alpha_matrix.core.suites.gauge.dataset import Item
from alpha_matrix.core.suites.gauge.faces import FACES, GaugeFace
from alpha_matrix.core.suites.gauge.metrics import TOLERANCE
from alpha_matrix.core.suites.gauge.reader import ReaderSettings, Reading, read_gauge
from alpha_matrix.core.suites.gauge.situation import GaugeBrief, GaugeSituation, ReaderView, tools_for
from alpha_matrix.core.suites.gauge.tools import answer_tools

SUITE = "gauge"
READER_BACKEND = "classical_reader"
READER_MODEL = "gauge_reader_v1"


class GaugeRequest(BaseModel):
    """The scenario as the runner sends it: one item of the set."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    index: int
    face: str
    degradation: str
    readable: bool
    reason: str
    seed: int
    attempt: int
    conditions: dict[str, Any]

    @classmethod
    def of(cls, item: Item) -> GaugeRequest:
        return cls(
            index=item.index, face=item.face, degradation=item.degradation, readable=item.readable,
            reason=item.reason, seed=item.seed, attempt=item.attempt, conditions=item.conditions.to_dict(),
        )  # fmt: skip

    def item_conditions(self) -> Conditions:
        return Conditions.from_dict(self.conditions)


def item_name(index: int) -> str:
    return f"g{index:03d}"


def scenario_json(item: Item) -> str:
    return canonical_json(GaugeRequest.of(item).model_dump(mode="json"))


def situation(face: GaugeFace, image_attached: bool = True, reader: Reading | None = None) -> dict[str, Any]:
    """What the reader or an agent is told besides the image: the instrument's data sheet, and
    the reader's answer once asked (core/suites/gauge/situation.GaugeSituation)."""
    brief = GaugeBrief(
        gauge=face.name, kind=face.kind, unit=face.unit, scale_min=face.lo, scale_max=face.hi,  # type: ignore[arg-type]
        labelled_tick_every=face.major, tick_every=face.minor,
    )  # fmt: skip
    seen = None
    if reader is not None:
        seen = ReaderView(
            value=None if reader.value is None else round(reader.value, 6),
            uncertainty=None if reader.uncertainty is None else round(reader.uncertainty, 6),
            abstained=reader.value is None,
            reason=reader.reason,
        )
    return situation_json(GaugeSituation(brief=brief, image_attached=image_attached, reader=seen))


def gauge_observation(episode_id: str, face: GaugeFace, pixels: np.ndarray) -> Observation:
    """What the classical reader is shown: the image and the data sheet; it answers, never asks."""
    return Observation(
        suite=SUITE,
        episode_id=episode_id,
        step=0,
        decision_index=0,
        situation=situation(face),
        tools=answer_tools(face.unit),
        images=(rgb_image(pixels, 0),),
    )


def agent_observation(
    episode_id: str, face: GaugeFace, index: int, pixels: np.ndarray | None, reader: Reading | None
) -> Observation:
    """An agent's decision point: with the image (multimodal) or without it (then ``read_gauge``
    is offered until the reader's answer is in the situation)."""
    sit = GaugeSituation.model_validate(situation(face, pixels is not None, reader))
    return Observation(
        suite=SUITE,
        episode_id=episode_id,
        step=0,
        decision_index=index,
        situation=situation_json(sit),
        tools=tools_for(sit),
        images=(rgb_image(pixels, 0),) if pixels is not None else (),
    )


def face_of(obs: Observation) -> GaugeFace:
    """The face an observation names; ValueError for one that is not a gauge of the suite."""
    brief = obs.situation.get("brief")
    name = brief.get("gauge") if isinstance(brief, dict) else None
    if obs.suite != SUITE or name not in FACES:
        raise ValueError(f"not a gauge observation (suite {obs.suite!r}, gauge {name!r})")
    return FACES[str(name)]


def read_observation(obs: Observation, settings: ReaderSettings | None = None) -> Reading:
    """The classical reader on the observation's image (what the gauge_reader node and the audit run)."""
    if len(obs.images) != 1 or obs.images[0].kind != "rgb":
        raise ValueError("a gauge observation carries exactly one rgb image")
    return read_gauge(rgb_pixels(obs.images[0]), face_of(obs), settings)


def reading_decision(reading: Reading, latency_s: float = 0.0) -> Decision:
    """The reader's answer as a protocol decision (values rounded: the record compares them)."""
    prov = AgentProvenance(backend=READER_BACKEND, model=READER_MODEL, latency_s=round(latency_s, 4))
    if reading.value is None:
        return Decision(
            kind="tool_call", call=ToolCall(name="cannot_read", arguments={"reason": reading.reason}), provenance=prov
        )
    args = {"value": round(reading.value, 6), "unit": reading.unit, "uncertainty": round(reading.uncertainty or 0.0, 6)}
    return Decision(kind="tool_call", call=ToolCall(name="report_reading", arguments=args), provenance=prov)


def answer_of(decision: Decision, unit: str) -> tuple[float | None, str]:
    """(value reported or None, why not): a decision that is no valid reading counts as no value."""
    call = decision.call
    if decision.kind != "tool_call" or call is None:
        return None, f"no tool call ({decision.kind})"
    if call.name == "cannot_read":
        return None, str(call.arguments.get("reason", ""))
    value = call.arguments.get("value")
    if call.name == "report_reading" and isinstance(value, int | float) and call.arguments.get("unit") == unit:
        return float(value), ""
    return None, f"not a valid reading ({call.name})"


def result_of(req: GaugeRequest, decision: Decision) -> dict[str, Any]:
    """The scenario's result: the item's truth and the reader's scored answer (JSON-able)."""
    face = FACES[req.face]
    value, why = answer_of(decision, face.unit)
    truth = float(req.conditions["value"])
    err = None if value is None else abs(value - truth) / face.span * 100.0
    return {
        "index": req.index,
        "face": req.face,
        "unit": face.unit,
        "span": face.span,
        "degradation": req.degradation,
        "readable": req.readable,
        "rule_reason": req.reason,
        "truth": truth,
        "item": {"seed": req.seed, "attempt": req.attempt, "conditions": req.conditions},
        "reader": {
            "value": value,
            "uncertainty": (decision.call.arguments.get("uncertainty") if decision.call else None)
            if value is not None
            else None,
            "abstained": value is None,
            "reason": why,
            "error_pct_span": None if err is None else round(err, 4),
            "accurate": bool(req.readable and err is not None and err <= TOLERANCE * 100.0),
            "hallucinated": bool(not req.readable and value is not None),
            "latency_s": decision.provenance.latency_s,
        },
    }


def settings_dict(s: ReaderSettings) -> dict[str, Any]:
    return asdict(s)


def settings_of(d: dict[str, Any]) -> ReaderSettings:
    return ReaderSettings(**d)


def decision_json(decision: Decision) -> str:
    return json.dumps(decision.model_dump(mode="json"), sort_keys=True)
