"""Dials drawn in the tests themselves (OpenCV primitives), never by the suite's renderer.

A separate routine with its own conventions: the dial sits anywhere in a larger photo-like
frame, without a panel; ink may be light on a dark dial; sweeps 180-300 deg; numerals may sit
where the needle passes; a red drag pointer may stand beside the value pointer; the dial may be
printed on a square plate with no circle of its own; the needle's hub may sit off the scale's centre.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Drawn:
    lo: float = 0.0
    hi: float = 10.0
    value: float = 6.3
    sweep: float = 270.0
    majors: int = 10  # labelled intervals
    minors: int = 5  # minor intervals per major
    dial: tuple[int, int, int] = (245, 245, 240)
    ink: tuple[int, int, int] = (25, 25, 25)
    needle: tuple[int, int, int] = (25, 25, 25)
    background: tuple[int, int, int] = (90, 100, 110)
    radius: int = 150
    centre: tuple[int, int] = (330, 250)
    size: tuple[int, int] = (640, 480)
    numerals_at: float = 0.66  # fraction of R
    drag: float | None = None  # value of a red drag pointer
    squash: float = 1.0  # vertical scale (a tilted view)
    tip: float = 0.9  # needle length / R
    main_needle: bool = True  # False: no value pointer drawn (only the drag pointer, if any)
    noise: float = 2.0
    seed: int = 0
    turn: float = 0.0  # deg the scale's middle is turned counter-clockwise from 12 o'clock
    blade: float = 4.0  # the needle's half-width at its base, px (a tapered blade: wider)
    cap: tuple[int, int, int] | None = None  # the hub cap's colour (None: the needle's)
    cap_r: float = 0.07  # the hub cap's radius / R
    drag_len: float = 0.85  # the drag pointer's length / R
    drag_width: int = 3  # the drag pointer's width, px
    rim: bool = True  # a dark rim around the dial (False: the face alone, as a plate's printed dial)
    zone: float | None = None  # from this value to ``hi`` a red band along the ticks' outer ends
    plate: bool = False  # the face a square plate (no circle, no rim): a dial printed on a panel
    pivot: tuple[float, float] = (0.0, 0.0)  # the needle's hub off the scale's centre (of R, right, down):
    # a needle raised above the face seen at an angle; its tip still over the value on the scale


def angle(d: Drawn, value: float) -> float:
    """Counter-clockwise from 3 o'clock; the scale is symmetric about 12 o'clock turned by ``turn``,
    value grows clockwise."""
    start = 90.0 + d.turn + d.sweep / 2.0
    return start - d.sweep * (value - d.lo) / (d.hi - d.lo)


def draw(d: Drawn) -> np.ndarray:
    w, h = d.size
    big = 4  # supersampled canvas, reduced at the end (anti-aliasing)
    img = np.full((h * big, w * big, 3), d.background, np.uint8)
    c = np.array(d.centre, float) * big
    r = d.radius * big

    def pt(deg: float, frac: float) -> tuple[int, int]:
        a = math.radians(deg)
        return int(c[0] + frac * r * math.cos(a)), int(c[1] - frac * r * math.sin(a))

    if d.plate:
        half = int(1.3 * r)
        cv2.rectangle(img, (int(c[0]) - half, int(c[1]) - half), (int(c[0]) + half, int(c[1]) + half), d.dial, -1)
    else:
        if d.rim:
            cv2.circle(img, (int(c[0]), int(c[1])), int(r * 1.06), (60, 60, 60), -1)
        cv2.circle(img, (int(c[0]), int(c[1])), int(r), d.dial, -1)
    if d.zone is not None:  # under the ticks: they are drawn over it
        a0, a1 = angle(d, d.hi), angle(d, d.zone)
        axes = (int(0.9 * r), int(0.9 * r))
        cv2.ellipse(img, (int(c[0]), int(c[1])), axes, 0.0, -a1, -a0, (200, 30, 30), int(0.1 * r))
    n = d.majors * d.minors
    for i in range(n + 1):
        v = d.lo + (d.hi - d.lo) * i / n
        a = angle(d, v)
        major = i % d.minors == 0
        cv2.line(img, pt(a, 0.78 if major else 0.86), pt(a, 0.95), d.ink, (5 if major else 2) * big)
    for i in range(d.majors + 1):
        v = d.lo + (d.hi - d.lo) * i / d.majors
        label = f"{v:g}"
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_DUPLEX, 0.6 * big, 1 * big)
        x, y = pt(angle(d, v), d.numerals_at)
        cv2.putText(img, label, (x - tw // 2, y + th // 2), cv2.FONT_HERSHEY_DUPLEX, 0.6 * big, d.ink, 1 * big)
    if d.drag is not None:
        cv2.line(img, (int(c[0]), int(c[1])), pt(angle(d, d.drag), d.drag_len), (200, 30, 30), d.drag_width * big)
    if not d.main_needle:
        return _finish(d, img, w, h)
    a = angle(d, d.value)
    tip = pt(a, d.tip)
    hub = (c[0] + d.pivot[0] * r, c[1] + d.pivot[1] * r)
    tail: tuple[float, float] = pt(a + 180.0, 0.15)
    if d.pivot != (0.0, 0.0):  # the needle's own direction, from its hub to the value on the scale
        a = math.degrees(math.atan2(-(tip[1] - hub[1]), tip[0] - hub[0]))
        tail = (hub[0] - 0.15 * r * math.cos(math.radians(a)), hub[1] + 0.15 * r * math.sin(math.radians(a)))
    nrm = (math.cos(math.radians(a + 90)) * d.blade * big, -math.sin(math.radians(a + 90)) * d.blade * big)
    poly = np.array(
        [[tail[0] + nrm[0], tail[1] + nrm[1]], [tip[0], tip[1]], [tail[0] - nrm[0], tail[1] - nrm[1]]], np.int32
    )
    cv2.fillPoly(img, [poly], d.needle)
    cv2.circle(img, (int(hub[0]), int(hub[1])), int(d.cap_r * r), d.cap or d.needle, -1)
    return _finish(d, img, w, h)


def _finish(d: Drawn, img: np.ndarray, w: int, h: int) -> np.ndarray:
    out = cv2.resize(img, (w, int(h * d.squash)) if d.squash != 1.0 else (w, h), interpolation=cv2.INTER_AREA)
    if d.squash != 1.0:
        canvas = np.full((h, w, 3), d.background, np.uint8)
        y0 = (h - out.shape[0]) // 2
        canvas[y0 : y0 + out.shape[0]] = out
        out = canvas
    noise = np.random.default_rng(d.seed).normal(0, d.noise, out.shape)
    return np.clip(out.astype(np.float64) + noise, 0, 255).astype(np.uint8)
