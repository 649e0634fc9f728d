"""Gauge faces: their layout (spans, units, ticks) as data, and the face drawn with OpenCV.

A face is described in *texture pixels* of a square texture (``TEXTURE_PX``), origin top-left,
x right, y down. The same description serves three users: the drawing (the texture the
simulator shows), the readable rule (where the needle tip and the labelled ticks are), and the
reader (its calibration: which angle or height is which value). The reader gets the face, never
the item: knowing which instrument it looks at is what a real inspection route knows too.

Two kinds: ``dial`` (a needle turning over an arc, value linear in angle) and ``column`` (a sight
glass: liquid filling a vertical tube, value linear in height).

The three faces of the shipped set (``pressure``, ``thermometer``, ``sight_glass``) are read by
the classical reader with this layout. The styled faces (``STYLED``: light on dark, 180-300°
sweeps, other ranges and units, numerals close under the ticks, a red drag pointer, a round plate
or none, a sticker) are read by the dial reader (``reader="dial"``), which is told only the range,
unit and direction. Every styling field defaults to the shipped faces' drawing, whose textures
stay bit-identical.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

TEXTURE_PX = 512
PANEL_GREY = 222  # panel and dial paper, 8-bit
INK = 20  # ticks, labels, needle
GLASS_EMPTY = (232, 238, 242)  # RGB of the empty sight-glass tube
LIQUID = (30, 50, 120)  # RGB of the liquid
# Dial geometry as fractions of the dial radius R.
TICK_OUT, MAJOR_IN, MINOR_IN = 0.93, 0.80, 0.87
LABEL_AT = 0.58
NEEDLE_LEN, NEEDLE_TAIL = 0.88, 0.15
TIP_REGION = (0.62, 0.80)  # the part of the needle that must be seen (the readable rule)
NEEDLE_HALF_WIDTH = 4.0  # texture px at the hub; 2 px at the tip
DIAL_PAPER = 250  # the dial's paper inside the bezel
# Styled faces only.
PANEL_DARK = (62, 68, 76)  # RGB of the panel around a round plate
ROUND_PLATE_R = 250.0  # texture px
DRAG_RGB = (205, 35, 35)  # the red drag (max) pointer
DRAG_LEN = 0.86  # fraction of the radius
DRAG_HALF_WIDTH = 2.5  # texture px, constant along the pointer
DRAG_AHEAD = 0.15  # the drag pointer rests this share of the span above the value (at most ``hi``)


@dataclass(frozen=True)
class GaugeFace:
    """One instrument face. Dial: angles in degrees, counter-clockwise from +x (image y up)."""

    name: str
    kind: str  # "dial" | "column"
    unit: str
    lo: float
    hi: float
    major: float  # labelled tick step
    minor: float  # unlabelled tick step
    decimals: int  # label format
    # dial
    center: tuple[float, float] = (256.0, 256.0)
    radius: float = 220.0
    start_deg: float = 225.0  # angle of ``lo``
    sweep_deg: float = 270.0  # clockwise from start_deg to ``hi``
    # column: tube x range, y of ``lo`` (bottom) and ``hi`` (top)
    tube_x: tuple[float, float] = (236.0, 292.0)
    y_lo: float = 450.0
    y_hi: float = 70.0
    # style (the defaults are the shipped dials' drawing)
    # "classical": read with this layout; "dial": read by dial/read.py, told range, unit, direction, drag
    reader: Literal["classical", "dial"] = "classical"
    paper: int = DIAL_PAPER  # grey of the dial face behind the ink
    ink: int = INK  # grey of ticks, numerals, needle (lighter than ``paper``: light on dark)
    bezel: int = INK  # grey of the ring around the face
    plate: str = "square"  # "square": the texture is the plate; "round": a round plate on a dark panel;
    #                        "none": the scale printed straight on the panel (no plate, bezel or paper disc)
    label_at: float = LABEL_AT  # numerals' radius, fraction of R
    label_scale: float = 0.9  # numerals' font scale
    tip_region: tuple[float, float] = TIP_REGION  # the needle's part the rule requires (fractions of R)
    drag: bool = False  # a red drag (max) pointer beside the value needle
    sticker: tuple[int, int, int, int] | None = None  # a coloured label: x, y, w, h texture px
    sticker_rgb: tuple[int, int, int] = (235, 200, 40)

    @property
    def span(self) -> float:
        return self.hi - self.lo

    def ticks(self, step: float) -> list[float]:
        n = int(round(self.span / step))
        return [self.lo + i * self.span / n for i in range(n + 1)]

    def majors(self) -> list[float]:
        return self.ticks(self.major)

    def angle(self, value: float) -> float:
        """Dial: the needle angle (deg) of ``value``."""
        return self.start_deg - self.sweep_deg * (value - self.lo) / self.span

    def value_of_angle(self, deg: float) -> float:
        return self.lo + (self.start_deg - deg) / self.sweep_deg * self.span

    def level_y(self, value: float) -> float:
        """Column: the texture y of the liquid surface at ``value``."""
        return self.y_lo + (self.y_hi - self.y_lo) * (value - self.lo) / self.span

    def value_of_y(self, y: float) -> float:
        return self.lo + (y - self.y_lo) / (self.y_hi - self.y_lo) * self.span

    def polar(self, deg: float, frac: float) -> tuple[float, float]:
        """Dial: texture point at ``frac`` of the radius along angle ``deg``."""
        a = math.radians(deg)
        return (self.center[0] + frac * self.radius * math.cos(a), self.center[1] - frac * self.radius * math.sin(a))

    def label(self, value: float) -> str:
        return f"{value:.{self.decimals}f}"

    def drag_value(self, value: float) -> float:
        """Where the drag pointer rests when the needle shows ``value`` (a fixed function of it, so
        the item's conditions need no extra field): ``DRAG_AHEAD`` of the span above, at most ``hi``."""
        return min(self.hi, value + DRAG_AHEAD * self.span)


FACES: dict[str, GaugeFace] = {
    "pressure": GaugeFace("pressure", "dial", "bar", 0.0, 10.0, 1.0, 0.2, 0),
    "thermometer": GaugeFace(
        "thermometer", "dial", "degC", -20.0, 120.0, 20.0, 5.0, 0, start_deg=210.0, sweep_deg=240.0
    ),
    "sight_glass": GaugeFace("sight_glass", "column", "m", 0.0, 2.0, 0.25, 0.05, 2),
}
STYLED: dict[str, GaugeFace] = {
    # white ink on a black face, -1...3 bar over 270°, a yellow sticker in the plate's corner
    "vacuum_dark": GaugeFace(
        "vacuum_dark", "dial", "bar", -1.0, 3.0, 1.0, 0.1, 0, reader="dial", paper=22, ink=235, bezel=170,
        sticker=(24, 446, 92, 40),
    ),
    # 0...160 degC over 180°, a round plate on a dark panel, a green sticker on the face under the hub
    "thermo_180": GaugeFace(
        "thermo_180", "dial", "degC", 0.0, 160.0, 20.0, 5.0, 0, start_deg=180.0, sweep_deg=180.0, reader="dial",
        plate="round", sticker=(206, 384, 100, 40), sticker_rgb=(70, 175, 95),
    ),
    # 0...600 kPa over 300°, numerals close under the ticks where the needle's end passes, a red drag pointer
    "kpa_300": GaugeFace(
        "kpa_300", "dial", "kPa", 0.0, 600.0, 100.0, 20.0, 0, start_deg=240.0, sweep_deg=300.0, reader="dial",
        label_at=0.62, label_scale=0.75, tip_region=(0.74, 0.80), drag=True,
    ),
    # 0...60 psi over 270°, no plate: the scale printed on the panel, a red drag pointer, an orange sticker
    "psi_bare": GaugeFace(
        "psi_bare", "dial", "psi", 0.0, 60.0, 10.0, 2.0, 0, reader="dial", paper=PANEL_GREY, plate="none",
        drag=True, sticker=(400, 14, 96, 40), sticker_rgb=(240, 140, 40),
    ),
    # 0...1.6 MPa over 240°, white on black on a round plate, a red drag pointer
    "mpa_dark_240": GaugeFace(
        "mpa_dark_240", "dial", "MPa", 0.0, 1.6, 0.2, 0.05, 1, start_deg=210.0, sweep_deg=240.0, reader="dial",
        paper=22, ink=235, bezel=170, plate="round", drag=True,
    ),
}  # fmt: skip
FACES.update(STYLED)


def tip_points(face: GaugeFace, value: float, n: int = 7) -> list[tuple[float, float]]:
    """The indicator's end that the readable rule requires to be seen (texture px).

    Dial: the needle between ``TIP_REGION`` fractions of the radius. Column: the liquid surface
    across the tube, plus 12 px of liquid and of empty glass around it (the step itself).
    """
    if face.kind == "dial":
        deg = face.angle(value)
        return [face.polar(deg, f) for f in np.linspace(*face.tip_region, n)]
    y = face.level_y(value)
    x0, x1 = face.tube_x
    xs = np.linspace(x0 + 8, x1 - 8, n)
    return [(float(x), y + dy) for dy in (-12.0, 0.0, 12.0) for x in xs[::2]]


def label_points(face: GaugeFace) -> list[tuple[float, float]]:
    """Where each labelled (major) tick is: the middle of its mark, texture px, in ``majors()`` order."""
    if face.kind == "dial":
        return [face.polar(face.angle(v), (TICK_OUT + MAJOR_IN) / 2) for v in face.majors()]
    return [(face.tube_x[0] - 30.0, face.level_y(v)) for v in face.majors()]


def _text(img: np.ndarray, s: str, center: tuple[float, float], scale: float, ink: int = INK, thick: int = 2) -> None:
    font = cv2.FONT_HERSHEY_SIMPLEX
    (w, h), _ = cv2.getTextSize(s, font, scale, thick)
    org = (int(round(center[0] - w / 2)), int(round(center[1] + h / 2)))
    cv2.putText(img, s, org, font, scale, (ink, ink, ink), thick, cv2.LINE_AA)


def _needle(img: np.ndarray, face: GaugeFace, value: float, length: float, ink: int = INK) -> None:
    deg = math.radians(face.angle(value))
    d = np.array([math.cos(deg), -math.sin(deg)])
    n = np.array([-d[1], d[0]])
    c = np.array(face.center)
    tip = c + d * length * face.radius
    tail = c - d * NEEDLE_TAIL * face.radius
    hw, tw = NEEDLE_HALF_WIDTH, NEEDLE_HALF_WIDTH / 2
    poly = np.array([tail + n * hw, tip + n * tw, tip - n * tw, tail - n * hw]) * 16
    cv2.fillPoly(img, [poly.round().astype(np.int32)], (ink, ink, ink), cv2.LINE_AA, 4)
    cv2.circle(img, (int(c[0]), int(c[1])), 14, (ink, ink, ink), -1, cv2.LINE_AA)


def drag_segment(face: GaugeFace, value: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """The drag pointer's ends (hub, tip), texture px, when the needle shows ``value``."""
    deg = face.angle(face.drag_value(value))
    return face.center, face.polar(deg, DRAG_LEN)


def _drag(img: np.ndarray, face: GaugeFace, value: float) -> None:
    (x0, y0), (x1, y1) = drag_segment(face, value)
    width = int(round(2 * DRAG_HALF_WIDTH))
    cv2.line(img, (int(round(x0 * 16)), int(round(y0 * 16))), (int(round(x1 * 16)), int(round(y1 * 16))),
             DRAG_RGB, width, cv2.LINE_AA, 4)  # fmt: skip
    cv2.circle(img, (int(x0), int(y0)), 9, DRAG_RGB, -1, cv2.LINE_AA)


def _sticker(img: np.ndarray, face: GaugeFace) -> None:
    assert face.sticker is not None
    x, y, w, h = face.sticker
    edge = tuple(int(0.7 * c) for c in face.sticker_rgb)
    cv2.rectangle(img, (x, y), (x + w, y + h), face.sticker_rgb, -1, cv2.LINE_AA)
    cv2.rectangle(img, (x, y), (x + w, y + h), edge, 1, cv2.LINE_AA)
    _text(img, "CAL 03", (x + w / 2, y + h / 2), 0.5, 40, 1)


def _styled_dial(face: GaugeFace, value: float, needle_len: float) -> np.ndarray:
    """A styled dial (``STYLED``): plate, polarity, numerals, drag pointer and sticker as the face says."""
    img = np.full((TEXTURE_PX, TEXTURE_PX, 3), PANEL_GREY, np.uint8)
    c, r = (int(face.center[0]), int(face.center[1])), int(face.radius)
    if face.plate == "round":
        img[:] = PANEL_DARK
        cv2.circle(img, c, int(ROUND_PLATE_R), (PANEL_GREY,) * 3, -1, cv2.LINE_AA)
    if face.plate != "none":
        cv2.circle(img, c, r + 8, (face.bezel,) * 3, 6, cv2.LINE_AA)
        cv2.circle(img, c, r + 5, (face.paper,) * 3, -1, cv2.LINE_AA)
    ink = face.ink
    for v in face.ticks(face.minor):
        a = face.angle(v)
        is_major = any(abs(v - m) < 1e-9 for m in face.majors())
        p0 = face.polar(a, MAJOR_IN if is_major else MINOR_IN)
        p1 = face.polar(a, TICK_OUT)
        cv2.line(img, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), (ink,) * 3, 5 if is_major else 2, cv2.LINE_AA)
    for v in face.majors():
        _text(img, face.label(v), face.polar(face.angle(v), face.label_at), face.label_scale, ink)
    _text(img, face.unit, (face.center[0], face.center[1] + 0.45 * face.radius), 0.9, ink)
    if face.sticker is not None:
        _sticker(img, face)
    if face.drag:
        _drag(img, face, value)
    if needle_len > 0:
        _needle(img, face, value, needle_len, ink)
    return img


def draw_face(face: GaugeFace, value: float, needle_len: float = NEEDLE_LEN) -> np.ndarray:
    """The clean face showing ``value`` as an RGB uint8 texture. ``needle_len``: a broken needle."""
    if face.kind == "dial" and face.name in STYLED:
        return _styled_dial(face, value, needle_len)
    img = np.full((TEXTURE_PX, TEXTURE_PX, 3), PANEL_GREY, np.uint8)
    if face.kind == "dial":
        c, r = (int(face.center[0]), int(face.center[1])), int(face.radius)
        cv2.circle(img, c, r + 8, (INK, INK, INK), 6, cv2.LINE_AA)
        cv2.circle(img, c, r + 5, (DIAL_PAPER,) * 3, -1, cv2.LINE_AA)
        for v in face.ticks(face.minor):
            a = face.angle(v)
            is_major = any(abs(v - m) < 1e-9 for m in face.majors())
            p0 = face.polar(a, MAJOR_IN if is_major else MINOR_IN)
            p1 = face.polar(a, TICK_OUT)
            cv2.line(
                img, (int(p0[0]), int(p0[1])), (int(p1[0]), int(p1[1])), (INK,) * 3, 5 if is_major else 2, cv2.LINE_AA
            )
        for v in face.majors():
            _text(img, face.label(v), face.polar(face.angle(v), LABEL_AT), 0.9)
        _text(img, face.unit, (face.center[0], face.center[1] + 0.45 * face.radius), 0.9)
        if needle_len > 0:
            _needle(img, face, value, needle_len)
        return img
    x0, x1 = (int(x) for x in face.tube_x)
    top, bottom = int(face.y_hi) - 20, int(face.y_lo) + 20
    cv2.rectangle(img, (x0 - 6, top - 6), (x1 + 6, bottom + 6), (INK,) * 3, -1)
    cv2.rectangle(img, (x0, top), (x1, bottom), GLASS_EMPTY, -1)
    cv2.rectangle(img, (x0, int(round(face.level_y(value)))), (x1, bottom), LIQUID, -1)
    for v in face.ticks(face.minor):
        y = int(round(face.level_y(v)))
        is_major = any(abs(v - m) < 1e-9 for m in face.majors())
        cv2.line(img, (x0 - (50 if is_major else 28), y), (x0 - 12, y), (INK,) * 3, 4 if is_major else 2)
    for v in face.majors():
        _text(img, face.label(v), (x0 - 100, face.level_y(v)), 0.8)
    _text(img, face.unit, (x1 + 70, face.center[1]), 1.0)
    return img
