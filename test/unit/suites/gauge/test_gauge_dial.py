"""The dial reader that models the dial from the image (core/suites/gauge/dial/read.py), on dials drawn
here with OpenCV primitives (dials_drawn_here.py), never by the suite's renderer: each case is read
within 2 % of the span or abstained on, as the rule says."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from dials_drawn_here import Drawn, draw

from alpha_matrix.core.suites.gauge.dial import DialSpec, read_dial

DARK = {"dial": (20, 20, 25), "ink": (235, 235, 235), "needle": (240, 240, 240)}


def _read(d: Drawn, **spec: object) -> tuple[float | None, str]:
    r = read_dial(draw(d), DialSpec(d.lo, d.hi, "bar", **spec))  # type: ignore[arg-type]
    return r.value, r.reason


def _within(value: float | None, d: Drawn) -> bool:
    return value is not None and abs(value - d.value) <= 0.02 * (d.hi - d.lo)


@pytest.mark.parametrize(
    "d",
    [
        Drawn(value=6.3),
        Drawn(value=1.7, **DARK),  # type: ignore[arg-type]
        Drawn(value=3.7, sweep=180.0),
        Drawn(value=8.8, sweep=180.0, **DARK),  # type: ignore[arg-type]
        Drawn(lo=-20.0, hi=120.0, majors=7, value=87.0, sweep=240.0),
        Drawn(lo=-1.0, hi=3.0, majors=4, value=0.4, sweep=300.0),
        Drawn(hi=600.0, majors=6, value=455.0, sweep=270.0, squash=0.72),  # a tilted view
        Drawn(value=4.0, numerals_at=0.45),  # numerals inside the needle's path
        Drawn(value=6.0, numerals_at=0.45, **DARK),  # type: ignore[arg-type]
        Drawn(value=3.2, drag=8.5),  # a red drag pointer beside the value pointer
        Drawn(value=7.1, drag=2.0, background=(200, 190, 170), centre=(200, 200), radius=120),
    ],
    ids=["270", "270-light-on-dark", "180", "180-light-on-dark", "240-thermo", "300-vacuum", "270-tilted",
         "numerals-in-path", "numerals-in-path-dark", "drag-pointer", "drag-pointer-off-centre"],
)  # fmt: skip
def test_read_within_two_percent(d: Drawn) -> None:
    value, reason = _read(d)
    assert _within(value, d), (value, reason, d.value)


def test_counterclockwise_and_stated_arc() -> None:
    d = Drawn(value=2.5)
    # the same picture read as a counter-clockwise scale: lo at the other end
    value, _ = _read(d, clockwise=False)
    assert value is not None and abs(value - (10.0 - 2.5)) <= 0.2
    # the arc's ends stated by the technician (they agree with the ticks)
    value, _ = _read(d, arc_start_deg=225.0, arc_end_deg=-45.0)
    assert _within(value, d)
    # stated ends the ticks do not cover: abstain
    value, reason = _read(d, arc_start_deg=180.0, arc_end_deg=0.0)
    assert value is None and "arc" in reason


@pytest.mark.parametrize(
    ("d", "why"),
    [
        (Drawn(tip=0.3), "pointer"),  # a broken needle ends short of the scale
        (Drawn(value=5.0, drag=8.0, needle=(200, 30, 30)), "pointers"),  # two coloured pointers: which?
        (Drawn(value=5.0, ink=(232, 232, 228), needle=(232, 232, 228)), ""),  # ink lost in the dial's colour
    ],
    ids=["broken-needle", "two-red-pointers", "washed-out"],
)
def test_abstains_when_the_rule_cannot_be_met(d: Drawn, why: str) -> None:
    value, reason = _read(d)
    assert value is None and why in reason, (value, reason)


def test_no_dial_and_blank_images_abstain() -> None:
    spec = DialSpec(0.0, 10.0, "bar")
    rng = np.random.default_rng(3)
    for img in (
        np.full((480, 640, 3), 128, np.uint8),
        rng.integers(0, 255, (480, 640, 3), dtype=np.uint8),
        np.zeros((40, 40, 3), np.uint8),
    ):
        assert read_dial(img, spec).value is None


def test_deterministic_and_fast_enough() -> None:
    img = draw(Drawn(value=6.3))
    a, b = read_dial(img, DialSpec(0, 10, "bar")), read_dial(img.copy(), DialSpec(0, 10, "bar"))
    assert a == b


def test_a_larger_photo_is_read_at_work_resolution() -> None:
    d = Drawn(value=6.3, size=(1600, 1200), centre=(800, 600), radius=380)
    value, reason = _read(replace(d))
    assert _within(value, d), reason


@pytest.mark.parametrize(
    "d",
    [Drawn(value=5.0, drag=8.0, main_needle=False), Drawn(value=5.0, drag=3.0, main_needle=False, **DARK)],  # type: ignore[arg-type]
    ids=["drag-only", "drag-only-light-on-dark"],
)
def test_a_drag_pointer_without_its_needle_is_no_reading(d: Drawn) -> None:
    value, reason = _read(d)
    assert value is None and "pointer" in reason, (value, reason)


def _perspective(img: np.ndarray, d: Drawn, pan_deg: float, pitch_deg: float) -> np.ndarray:
    """The drawn dial seen off-axis by an upright pinhole camera at 3 radii: the dial's plane turned
    by ``pan_deg`` about the vertical, then ``pitch_deg`` about the horizontal (a perspective view,
    not an affine one; the camera is not rolled, as a photo is taken upright)."""
    import math

    import cv2

    f = 3.0 * d.radius
    a, b = math.radians(pan_deg), math.radians(pitch_deg)
    pan = np.array([[math.cos(a), 0, math.sin(a)], [0, 1, 0], [-math.sin(a), 0, math.cos(a)]])
    pitch = np.array([[1, 0, 0], [0, math.cos(b), -math.sin(b)], [0, math.sin(b), math.cos(b)]])
    rot = pitch @ pan
    cx, cy = d.centre
    src = np.array([[cx - 200, cy - 200], [cx + 200, cy - 200], [cx + 200, cy + 200], [cx - 200, cy + 200]], float)
    dst = []
    for x, yy in src:
        p = rot @ np.array([x - cx, yy - cy, 0.0]) + np.array([0.0, 0.0, f])
        dst.append([cx + f * p[0] / p[2], cy + f * p[1] / p[2]])
    h = cv2.getPerspectiveTransform(src.astype(np.float32), np.array(dst, np.float32))
    return np.asarray(cv2.warpPerspective(img, h, (img.shape[1], img.shape[0]), borderValue=d.background))


@pytest.mark.parametrize(
    ("pan", "pitch", "value"),
    [(40.0, 0.0, 6.3), (30.0, 30.0, 2.2), (0.0, -45.0, 8.9), (-40.0, 0.0, 3.3)],
)
def test_a_perspective_view_is_read(pan: float, pitch: float, value: float) -> None:
    """Seen at an angle from 3 radii, the rim's ellipse has its centre off the pivot (by about a
    sixth of the radius here) and the pivot under the wide needle base is no disc: the pivot is
    where the ticks' lines meet, and the view is undone about it."""
    d = Drawn(value=value, radius=120, centre=(320, 240))
    r = read_dial(_perspective(draw(d), d, pan, pitch), DialSpec(d.lo, d.hi, "bar"))
    assert _within(r.value, d), (r.value, r.reason, d.value)


def test_an_object_over_the_needle_tip_is_no_reading() -> None:
    import cv2

    d = Drawn(value=6.3, radius=150, centre=(330, 250))
    img = draw(d)
    # a brown box over the outer part of the needle (its tip hidden), edges not along the needle
    cv2.fillPoly(img, [np.array([[390, 120], [470, 150], [440, 240], [360, 210]], np.int32)], (150, 100, 70))
    r = read_dial(img, DialSpec(d.lo, d.hi, "bar"))
    assert r.value is None, (r.value, r.reason)
