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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict

from alpha_matrix.core.agent.images import rgb_image, rgb_pixels
from alpha_matrix.core.agent.protocol import AgentProvenance, Decision, Observation, ToolCall
from alpha_matrix.core.agent.situation import situation_json
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.suites.gauge.conditions import Conditions
from alpha_matrix.core.suites.gauge.dataset import Item
from alpha_matrix.core.suites.gauge.dial import DialSpec, read_dial
from alpha_matrix.core.suites.gauge.faces import FACES, GaugeFace
from alpha_matrix.core.suites.gauge.metrics import answer_score
from alpha_matrix.core.suites.gauge.reader import ReaderSettings, Reading, read_gauge
from alpha_matrix.core.suites.gauge.situation import GaugeBrief, GaugeSituation, ReaderView, tools_for
from alpha_matrix.core.suites.gauge.tools import answer_tools

SUITE = "gauge"
READER_BACKEND = "classical_reader"
READER_MODEL = "gauge_reader_v1"
USER_PREFIX = "user:"  # the gauge name of a user's image: user:<file>


@dataclass(frozen=True)
class UserDial:
    """A user's gauge as the reader and an agent are told it: a name and what a technician knows."""

    name: str
    spec: DialSpec
    kind: str = "dial"
    major: float | None = None
    minor: float | None = None

    @property
    def unit(self) -> str:
        return self.spec.unit

    @property
    def lo(self) -> float:
        return self.spec.lo

    @property
    def hi(self) -> float:
        return self.spec.hi

    @property
    def span(self) -> float:
        return self.spec.span


AnyFace = GaugeFace | UserDial


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
    user: dict[str, Any] | None = None  # a user's image: file, path, sha256, face (user_images.FaceFile keys)

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
    return canonical_json(GaugeRequest.of(item).model_dump(mode="json", exclude_none=True))


def user_dial(req: GaugeRequest) -> UserDial:
    """The face of a user's image request."""
    from alpha_matrix.core.suites.gauge.user_images import FaceFile

    assert req.user is not None
    return UserDial(req.face, FaceFile.model_validate(req.user["face"]).spec())


def user_pixels(req: GaugeRequest) -> np.ndarray:
    """A user's image as the request names it; ValueError when the file's pixels are not the
    request's (the request, recorded in the bag, is the image's identity)."""
    from alpha_matrix.core.errors import ConfigError
    from alpha_matrix.core.suites.gauge.user_images import inside, load_pixels, pixels_sha256

    assert req.user is not None
    path = Path(req.user["path"])
    try:
        pixels = load_pixels(inside(path.parent, req.user["file"]))
    except ConfigError as err:
        raise ValueError(str(err)) from None
    if pixels_sha256(pixels) != req.user["sha256"]:
        raise ValueError(f"{path}: not the image of the request (sha256 differs)")
    return pixels


def situation(
    face: AnyFace, image_attached: bool = True, reader: Reading | None = None, face_text: str | None = None
) -> dict[str, Any]:
    """What the reader or an agent is told besides the image: the instrument's data sheet, and
    the reader's answer once asked (core/suites/gauge/situation.GaugeSituation); ``face_text``:
    text printed on the face (the injection suite's gauge_face channel)."""
    if isinstance(face, UserDial):
        sp = face.spec
        brief = GaugeBrief(
            gauge=face.name, kind="dial", unit=sp.unit, scale_min=sp.lo, scale_max=sp.hi,
            sweep="clockwise" if sp.clockwise else "counterclockwise",
            arc_start_deg=sp.arc_start_deg, arc_end_deg=sp.arc_end_deg, drag_pointer=sp.drag_pointer,
        )  # fmt: skip
    else:
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
    return situation_json(GaugeSituation(brief=brief, image_attached=image_attached, reader=seen, face_text=face_text))


def gauge_observation(episode_id: str, face: AnyFace, pixels: np.ndarray) -> Observation:
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
    episode_id: str,
    face: AnyFace,
    index: int,
    pixels: np.ndarray | None,
    reader: Reading | None,
    face_text: str | None = None,
) -> Observation:
    """An agent's decision point: with the image (multimodal) or without it (then ``read_gauge``
    is offered until the reader's answer is in the situation)."""
    sit = GaugeSituation.model_validate(situation(face, pixels is not None, reader, face_text))
    return Observation(
        suite=SUITE,
        episode_id=episode_id,
        step=0,
        decision_index=index,
        situation=situation_json(sit),
        tools=tools_for(sit),
        images=(rgb_image(pixels, 0),) if pixels is not None else (),
    )


def face_of(obs: Observation) -> AnyFace:
    """The face an observation names; ValueError for one that is not a gauge of the suite."""
    brief = obs.situation.get("brief")
    name = brief.get("gauge") if isinstance(brief, dict) else None
    if obs.suite == SUITE and isinstance(brief, dict) and isinstance(name, str) and name.startswith(USER_PREFIX):
        b = GaugeBrief.model_validate(brief)
        if b.kind != "dial" or not b.scale_min < b.scale_max:
            raise ValueError(f"not a readable user gauge ({name!r})")
        start, end = b.arc_start_deg, b.arc_end_deg
        spec = DialSpec(b.scale_min, b.scale_max, b.unit, b.sweep == "clockwise", start, end, b.drag_pointer)
        return UserDial(name, spec)
    if obs.suite != SUITE or name not in FACES:
        raise ValueError(f"not a gauge observation (suite {obs.suite!r}, gauge {name!r})")
    return FACES[str(name)]


def dial_spec(face: GaugeFace) -> DialSpec:
    """What a technician knows of a styled face (``reader="dial"``): range, unit, direction, whether
    it has a drag pointer; never its layout."""
    return DialSpec(face.lo, face.hi, face.unit, clockwise=True, drag_pointer=face.drag)


def read_observation(obs: Observation, settings: ReaderSettings | None = None) -> Reading:
    """The reader on the observation's image (what the gauge_reader node and the audit run): the
    classical reader with the face's layout for the shipped faces, the dial reader (dial/read.py, told
    range, unit and direction only) for a user's image and for a styled face (``reader="dial"``)."""
    if len(obs.images) != 1 or obs.images[0].kind != "rgb":
        raise ValueError("a gauge observation carries exactly one rgb image")
    face = face_of(obs)
    if isinstance(face, UserDial) or face.reader == "dial":
        spec = face.spec if isinstance(face, UserDial) else dial_spec(face)
        s = settings or ReaderSettings()
        r = read_dial(rgb_pixels(obs.images[0]), spec, s.min_contrast, s.noise_k)
        return Reading(r.value, r.uncertainty, r.unit, r.reason, r.evidence)
    return read_gauge(rgb_pixels(obs.images[0]), face, settings)


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


def request_face(req: GaugeRequest) -> AnyFace:
    return user_dial(req) if req.user is not None else FACES[req.face]


def result_of(req: GaugeRequest, decision: Decision) -> dict[str, Any]:
    """The scenario's result: the item's truth and the reader's scored answer (JSON-able). A
    user's image with neither a stated value nor ``readable: false`` has truth None: listed, never
    scored (``stated_unreadable``: scored as unreadable with no value known)."""
    face = request_face(req)
    value, why = answer_of(decision, face.unit)
    truth = float(req.conditions["value"]) if "value" in req.conditions else None
    stated = (req.user or {}).get("face", {})
    unreadable_stated = truth is None and stated.get("readable") is False  # scored without a value
    labels = {"style": stated["style"]} if stated.get("style") else {}
    if unreadable_stated:
        labels["stated_unreadable"] = True
    return {
        **labels,
        "index": req.index,
        "face": req.face,
        "unit": face.unit,
        "span": face.span,
        "degradation": req.degradation,
        "readable": req.readable,
        "rule_reason": req.reason,
        "truth": truth,
        "item": {"seed": req.seed, "attempt": req.attempt, "conditions": req.conditions}
        if req.user is None
        else {"file": req.user["file"], "sha256": req.user["sha256"]},
        "reader": {
            "value": value,
            "uncertainty": (decision.call.arguments.get("uncertainty") if decision.call else None)
            if value is not None
            else None,
            "abstained": value is None,
            "reason": why,
            **answer_score(req.readable, value, truth, face.span, unreadable_stated),
            "latency_s": decision.provenance.latency_s,
        },
    }


def settings_dict(s: ReaderSettings) -> dict[str, Any]:
    return asdict(s)


def settings_of(d: dict[str, Any]) -> ReaderSettings:
    return ReaderSettings(**d)


def decision_json(decision: Decision) -> str:
    return json.dumps(decision.model_dump(mode="json"), sort_keys=True)
