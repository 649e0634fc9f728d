"""The gauge suite's situation: the instrument's data sheet, the image, the classical reader's answer.

What the brief states (core/agent/situation.py says what no situation ever holds):

* gauge: the instrument's data sheet (name, kind, unit, scale, tick spacing); the moment is
  whether the image is attached and, once asked, the classical reader's answer. Never the
  value, the degradation or the readable label.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from alpha_matrix.core.agent.prompts import num as _num
from alpha_matrix.core.agent.protocol import Tool
from alpha_matrix.core.agent.situation import Strict as _Strict
from alpha_matrix.core.suites.gauge.tools import gauge_tools


# ----------------------------------------------------------------------------- gauge
class GaugeBrief(_Strict):
    """The instrument as its data sheet gives it (core/suites/gauge/faces.py): never its value."""

    gauge: str
    kind: Literal["dial", "column"]
    unit: str
    scale_min: float
    scale_max: float
    labelled_tick_every: float | None = None  # not stated for a user's gauge (read from the image)
    tick_every: float | None = None
    sweep: Literal["clockwise", "counterclockwise"] = "clockwise"  # the direction the value grows
    arc_start_deg: float | None = None  # where scale_min and scale_max sit, when stated
    arc_end_deg: float | None = None
    drag_pointer: bool = False  # a coloured drag (max) or set pointer beside the needle (left out when not)


class ReaderView(_Strict):
    """The classical reader's answer, once ``read_gauge`` was called."""

    value: float | None
    uncertainty: float | None
    abstained: bool
    reason: str = ""


class GaugeSituation(_Strict):
    suite: Literal["gauge"] = "gauge"
    brief: GaugeBrief
    step: int = Field(default=0, ge=0)
    image_attached: bool  # the camera image is in the observation (multimodal agents)
    reader: ReaderView | None = None
    # text printed on the face, as the robot's text reader gives it (only the injection suite's
    # gauge_face channel sets it; left out of the JSON when None, so every gauge item is as before)
    face_text: str | None = Field(default=None, min_length=1, max_length=30)

    @model_serializer(mode="wrap")
    def _without_unstated(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``face_text`` None and ``drag_pointer`` false are left out: every gauge item as before."""
        out: dict[str, Any] = handler(self)
        if out.get("face_text") is None:
            out.pop("face_text", None)
        if isinstance(out.get("brief"), dict) and not out["brief"].get("drag_pointer"):
            out["brief"].pop("drag_pointer", None)
        return out


def tools_for(situation: GaugeSituation) -> tuple[Tool, ...]:
    return gauge_tools(situation.brief.unit, reader=situation.reader is None and not situation.image_attached)


def brief_values(brief: dict[str, Any]) -> dict[str, str]:
    """The brief as the prompt's placeholder values."""
    return {k: str(v) if isinstance(v, str) else _num(v) for k, v in brief.items() if v is not None}
