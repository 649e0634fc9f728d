"""The numeral reader (core/suites/gauge/dial/numerals.py) on dials drawn here.

The reader's templates are OpenCV's Hershey SIMPLEX, PLAIN, DUPLEX, COMPLEX, TRIPLEX and Pillow's
bundled font. The labels here are drawn in fonts that are none of them:

- ``FONT_A`` = ``"dejavu"`` (DejaVu Sans) and ``FONT_B`` = ``"serif"`` (DejaVu Serif), TrueType fonts drawn with Pillow, taken from the pinned matplotlib wheel so that every
  machine draws the same (a system's fonts differ: one without Liberation fell back to Pillow's
  own, a templated font). ``"small"`` (FONT_HERSHEY_COMPLEX_SMALL) and ``"pil"`` (Pillow's font,
  bold) remain as cases: beware that OpenCV 5 draws every Hershey face with its one built-in font
  (COMPLEX_SMALL correlates 0.98 with the templated DUPLEX; SIMPLEX | ITALIC is SIMPLEX itself).
- ``"seg7"``: seven-segment digits drawn here as strokes (no font at all), far from every
  template: any label read must be right (most are left unread).

Rectified dials (the dial a circle of R = 200 px about the centre of a 601 px square, as
``dial._Dial.canon``) are drawn directly; one picture goes through dial/read.py's own rectification.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import matplotlib
import numpy as np
import pytest

from alpha_matrix.core.suites.gauge.dial import DialSpec, read_dial
from alpha_matrix.core.suites.gauge.dial.common import CANON, OUT
from alpha_matrix.core.suites.gauge.dial.geometry import find_dial
from alpha_matrix.core.suites.gauge.dial.numerals import Label, _glyph, holes, read_labels, scale_from_labels

SEG = {  # segments a b c d e f g of each character
    "0": "abcdef", "1": "bc", "2": "abdeg", "3": "abcdg", "4": "bcfg", "5": "acdfg",
    "6": "acdefg", "7": "abc", "8": "abcdefg", "9": "abcdfg", "-": "g",
}  # fmt: skip


MPL_FONTS = Path(matplotlib.get_data_path()) / "fonts" / "ttf"  # the pinned wheel's: the same on every machine
TTF = {
    "dejavu": str(MPL_FONTS / "DejaVuSans.ttf"),
    "serif": str(MPL_FONTS / "DejaVuSerif.ttf"),
    "mono": str(MPL_FONTS / "DejaVuSansMono-Bold.ttf"),
}


FONT_A = "dejavu"
FONT_B = "serif"


@dataclass(frozen=True)
class Face:
    lo: float = 0.0
    hi: float = 10.0
    majors: int = 5  # labelled intervals
    sweep: float = 270.0
    clockwise: bool = True
    turn: float = 0.0  # deg the scale's middle is turned counter-clockwise from 12 o'clock
    dark: bool = False  # light ink on a dark face
    font: str = "dejavu"  # see the module's docstring
    at: float = 0.66  # the labels' centres, of R (0.66: inside the ticks; 1.12: outside)
    text_h: float = 0.09  # the digits' height, of R
    hide: float | None = None  # the value whose label a blob covers
    drawn_hi: float | None = None  # the labels drawn up to this value (a dial not of the stated range)
    numerals: bool = True
    value: float = 3.3  # the needle
    arc_line: bool = False  # the ticks joined by a circular line at their outer ends
    lean: float = 0.0  # deg the labels lean (counter-clockwise), as seen from aside

    @property
    def start(self) -> float:
        """Angle of lo (deg counter-clockwise from 3 o'clock)."""
        return (90.0 + self.turn + (self.sweep / 2.0 if self.clockwise else -self.sweep / 2.0)) % 360.0

    def angle(self, v: float) -> float:
        hi = self.drawn_hi if self.drawn_hi is not None else self.hi
        sign = -1.0 if self.clockwise else 1.0
        return self.start + sign * self.sweep * (v - self.lo) / (hi - self.lo)

    def values(self) -> list[float]:
        hi = self.drawn_hi if self.drawn_hi is not None else self.hi
        return [self.lo + (hi - self.lo) * i / self.majors for i in range(self.majors + 1)]


def _text_mask(text: str, font: str, height_px: float) -> np.ndarray:
    """The label's ink (uint8 0-255) cropped to its box, ``height_px`` tall."""
    if font == "seg7":
        h = int(round(height_px))
        w = int(round(0.55 * h))
        t = max(2, int(round(0.14 * h)))
        gap = int(round(0.3 * h))
        cells = []
        for ch in text:
            if ch == ".":
                cell = np.zeros((h, t + 2), np.uint8)
                cell[h - t :, 1 : 1 + t] = 255
                cells.append(cell)
                continue
            cell = np.zeros((h, w), np.uint8)
            m = (h - 1) // 2
            pts = {"a": ((0, 0), (w - 1, 0)), "b": ((w - 1, 0), (w - 1, m)), "c": ((w - 1, m), (w - 1, h - 1)),
                   "d": ((0, h - 1), (w - 1, h - 1)), "e": ((0, m), (0, h - 1)), "f": ((0, 0), (0, m)),
                   "g": ((0, m), (w - 1, m))}  # fmt: skip
            for s in SEG[ch]:
                (xa, ya), (xb, yb) = pts[s]
                cv2.rectangle(cell, (min(xa, xb), min(ya, yb)), (max(xa, xb) + t - 1, max(ya, yb) + t - 1), 255, -1)
            cell = cell[:h, :w] if ch != "-" else cell
            cells.append(cell)
        out = cells[0]
        for c in cells[1:]:
            out = np.hstack([out, np.zeros((h, gap if c.shape[1] > t + 2 and out.shape[1] else 2), np.uint8), c])
        return out
    if font in TTF:  # a TrueType font of the system (none of the templates)
        from PIL import Image, ImageDraw, ImageFont

        ttf = ImageFont.truetype(TTF[font], size=int(round(1.35 * height_px)))
        canvas = Image.new("L", (int(4 * height_px * len(text)), int(3 * height_px)), 0)
        ImageDraw.Draw(canvas).text((height_px, height_px), text, fill=255, font=ttf)
        img = np.asarray(canvas)
    elif font == "pil":  # Pillow's bundled font, bold (stroke 1) at 1.3x the digits' height in px
        from PIL import Image, ImageDraw, ImageFont

        pil = ImageFont.load_default(size=int(round(1.3 * height_px)))
        canvas = Image.new("L", (int(4 * height_px * len(text)), int(3 * height_px)), 0)
        ImageDraw.Draw(canvas).text((height_px, height_px), text, fill=255, font=pil, stroke_width=1, stroke_fill=255)
        img = np.asarray(canvas)
    else:
        big = 4
        hf = {"small": cv2.FONT_HERSHEY_COMPLEX_SMALL, "italic": cv2.FONT_HERSHEY_SIMPLEX | cv2.FONT_ITALIC}[font]
        (tw, th), base = cv2.getTextSize("0", hf, 1.0, 1)
        scale = height_px / th * big
        thick = max(1, int(round(scale * 0.9)))
        (tw, th), base = cv2.getTextSize(text, hf, scale, thick)
        img = np.zeros((th + base + 20 * big, tw + 20 * big), np.uint8)
        cv2.putText(img, text, (10 * big, th + 10 * big), hf, scale, 255, thick, cv2.LINE_AA)
        img = cv2.resize(img, (img.shape[1] // big, img.shape[0] // big), interpolation=cv2.INTER_AREA)
    ys, xs = np.nonzero(img > 60)
    return np.asarray(img[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1])


def draw_face(f: Face, seed: int = 0) -> np.ndarray:
    """A rectified dial: R = CANON px about the centre of a (2 OUT + 1) px square image, RGB uint8."""
    n = 2 * OUT + 1
    face, ink = ((25, 28, 32), (235, 235, 230)) if f.dark else ((240, 238, 230), (25, 25, 30))
    img = np.full((n, n, 3), (90, 95, 100), np.uint8)
    c, r = OUT, CANON
    cv2.circle(img, (c, c), int(1.35 * r), (70, 70, 70), -1)
    cv2.circle(img, (c, c), int(1.3 * r), face, -1, cv2.LINE_AA)

    def pt(deg: float, frac: float) -> tuple[int, int]:
        a = math.radians(deg)
        return int(round(16 * (c + frac * r * math.cos(a)))), int(round(16 * (c - frac * r * math.sin(a))))

    hi = f.drawn_hi if f.drawn_hi is not None else f.hi
    minors = 5
    for i in range(f.majors * minors + 1):
        a = f.angle(f.lo + (hi - f.lo) * i / (f.majors * minors))
        major = i % minors == 0
        cv2.line(img, pt(a, 0.78 if major else 0.84), pt(a, 0.95), ink, 3 if major else 1, cv2.LINE_AA, 4)
    if f.arc_line:
        cv2.circle(img, (c, c), int(0.95 * r), ink, 2, cv2.LINE_AA)
    if f.numerals:
        for v in f.values():
            m = _text_mask(f"{v:g}", f.font, f.text_h * r)
            if f.lean:
                pad = np.pad(m, 10)
                rot = cv2.getRotationMatrix2D((pad.shape[1] / 2.0, pad.shape[0] / 2.0), f.lean, 1.0)
                m = cv2.warpAffine(pad, rot, (pad.shape[1], pad.shape[0]), flags=cv2.INTER_LINEAR)
                ys, xs = np.nonzero(m > 60)
                m = m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
            x, y = pt(f.angle(v), f.at)
            x0, y0 = int(round(x / 16 - m.shape[1] / 2)), int(round(y / 16 - m.shape[0] / 2))
            a = (m.astype(np.float32) / 255.0)[..., None]
            patch = img[y0 : y0 + m.shape[0], x0 : x0 + m.shape[1]].astype(np.float32)
            img[y0 : y0 + m.shape[0], x0 : x0 + m.shape[1]] = (patch * (1 - a) + np.array(ink) * a).astype(np.uint8)
    if f.hide is not None:
        x, y = pt(f.angle(f.hide), f.at)
        cv2.circle(img, (x // 16, y // 16), int(0.12 * r), (130, 60, 40), -1, cv2.LINE_AA)
    a = math.radians(f.angle(f.value))
    tip = (int(c + 0.9 * r * math.cos(a)), int(c - 0.9 * r * math.sin(a)))
    cv2.line(img, (c, c), tip, ink, 4, cv2.LINE_AA)
    cv2.circle(img, (c, c), int(0.07 * r), ink, -1, cv2.LINE_AA)
    noise = np.random.default_rng(seed).normal(0, 2.0, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


RING = (0.78, 0.95)


def _read(f: Face) -> tuple[list[Label], tuple[float, float] | str]:
    labels = read_labels(draw_face(f), RING)
    return labels, scale_from_labels(labels, DialSpec(f.lo, f.hi, "bar", clockwise=f.clockwise))


def _angle_off(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


CASES = [
    Face(),
    Face(dark=True),
    Face(font=FONT_B),
    Face(font=FONT_B, dark=True),
    Face(lo=-1.0, hi=3.0, majors=4, sweep=180.0),
    Face(hi=160.0, majors=8, sweep=270.0, font=FONT_B),
    Face(hi=600.0, majors=6, sweep=270.0, dark=True, at=0.62),
    Face(lo=-20.0, hi=120.0, majors=7, sweep=180.0, font=FONT_B, dark=True),
    Face(clockwise=False),
    Face(hi=160.0, majors=8, clockwise=False, sweep=180.0, turn=-90.0, font=FONT_B),
    Face(at=1.12),
    Face(at=1.12, hi=600.0, majors=6, font=FONT_B, dark=True),
    Face(hide=6.0),
    Face(lo=-1.0, hi=3.0, majors=4, sweep=270.0, font=FONT_B, turn=20.0, at=1.12, text_h=0.075),
    Face(hi=600.0, majors=6, font=FONT_B, arc_line=True),
]
IDS = ["0-10", "0-10-dark", "b", "b-dark", "-1-3-180", "0-160-b", "0-600-dark", "-20-120-180-b-dark",
       "ccw", "ccw-180-turned-b", "outside", "outside-600-b-dark", "hidden-label", "-1-3-turned-outside-b",
       "arc-line-600-b"]  # fmt: skip


def _check_labels(f: Face, labels: list[Label]) -> int:
    """Every label read is the one drawn at its place, exactly; the number read."""
    labels = [lb for lb in labels if lb.text != "?"]  # print not read
    for lb in labels:
        drawn = [v for v in f.values() if v != f.hide and _angle_off(lb.angle_deg, f.angle(v)) < 3.0]
        assert drawn and lb.value == drawn[0] and abs(lb.radius - f.at) < 0.04, (lb, drawn)
    assert len({lb.value for lb in labels}) == len(labels)
    return len(labels)


@pytest.mark.parametrize("f", CASES, ids=IDS)
def test_scale_from_the_numerals(f: Face) -> None:
    labels, got = _read(f)
    assert not isinstance(got, str), (got, [lb.text for lb in labels])
    start, sweep = got
    assert _angle_off(start, f.start) <= 1.5 and abs(sweep - f.sweep) <= 1.5, (got, f.start, f.sweep)
    assert _check_labels(f, labels) >= 3


def test_most_labels_are_read() -> None:
    """Over the cases, in the fonts not templated (seven-segment aside), most labels are read."""
    drawn = read = 0
    for f in CASES:
        drawn += len([v for v in f.values() if v != f.hide])
        read += _check_labels(f, _read(f)[0])
    assert read >= 0.75 * drawn, (read, drawn)


@pytest.mark.parametrize("f", [CASES[0], CASES[6], CASES[7], CASES[11]], ids=["0-10", "0-600", "-20-120", "outside"])
def test_an_unfamiliar_font_is_read_right_or_not_at_all(f: Face) -> None:
    """Seven-segment digits are far from every template: any label read is right, any scale found is right."""
    g = Face(**{**f.__dict__, "font": "seg7"})
    labels, got = _read(g)
    _check_labels(g, labels)
    if not isinstance(got, str):
        assert _angle_off(got[0], g.start) <= 1.5 and abs(got[1] - g.sweep) <= 1.5


@pytest.mark.parametrize("lean", [-15.0, 10.0, 20.0])
def test_leaning_labels_are_read_right_or_not_at_all(lean: float) -> None:
    """Labels leaning (a view from aside): any read is right, any scale found is right."""
    for f in (Face(lean=lean), Face(lean=lean, font=FONT_B, hi=160.0, majors=8)):
        labels, got = _read(f)
        _check_labels(f, labels)
        if not isinstance(got, str):
            assert _angle_off(got[0], f.start) <= 1.5 and abs(got[1] - f.sweep) <= 1.5


@pytest.mark.parametrize(
    "f, stated, why",
    [
        (Face(drawn_hi=16.0, majors=8), (0.0, 10.0), "beyond the stated range"),  # drawn 0-16, stated 0-10
        (Face(drawn_hi=16.0, majors=8, font=FONT_B, dark=True), (0.0, 10.0), "beyond the stated range"),
        (Face(hi=160.0, majors=8), (0.0, 100.0), "beyond the stated range"),
        (Face(numerals=False), (0.0, 10.0), "fewer than 2"),
        (Face(), (0.0, 16.0), "numerals"),  # 0-10 drawn, stated 0-16
    ],
    ids=["0-16-for-0-10", "0-16-for-0-10-pil", "0-160-for-0-100", "no-numerals", "0-10-for-0-16"],
)
def test_abstains_when_the_numerals_contradict(f: Face, stated: tuple[float, float], why: str) -> None:
    labels = read_labels(draw_face(f), RING)
    got = scale_from_labels(labels, DialSpec(stated[0], stated[1], "bar"))
    assert isinstance(got, str) and why in got, (got, [lb.text for lb in labels])


def test_abstains_against_the_stated_direction() -> None:
    labels = read_labels(draw_face(Face()), RING)  # drawn clockwise, stated counter-clockwise
    got = scale_from_labels(labels, DialSpec(0.0, 10.0, "bar", clockwise=False))
    assert isinstance(got, str), got


def test_a_label_partly_covered_is_not_read() -> None:
    """A blob over half of "10": its "1" alone must not be read as a label (dropped beside the blob)."""
    f = Face()
    img = draw_face(f)
    a = math.radians(f.angle(10.0))
    x, y = int(OUT + f.at * CANON * math.cos(a)), int(OUT - f.at * CANON * math.sin(a))
    cv2.circle(img, (x + 22, y), 18, (120, 60, 40), -1)
    labels = read_labels(img, RING)
    assert all(lb.value != 1.0 for lb in labels) and _check_labels(f, labels) >= 4
    got = scale_from_labels(labels, DialSpec(0.0, 10.0, "bar"))
    assert not isinstance(got, str) and _angle_off(got[0], f.start) <= 1.5 and abs(got[1] - f.sweep) <= 1.5


def test_unit_text_and_a_serial_number_are_no_scale() -> None:
    """Other print on the face (the unit, a serial number) is no label of the scale."""
    f = Face()
    img = draw_face(f)
    cv2.putText(img, "bar", (272, 380), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (25, 25, 30), 2, cv2.LINE_AA)
    cv2.putText(img, "2019", (272, 240), cv2.FONT_HERSHEY_DUPLEX, 0.5, (25, 25, 30), 1, cv2.LINE_AA)
    labels = read_labels(img, RING)
    got = scale_from_labels(labels, DialSpec(0.0, 10.0, "bar"))
    assert not isinstance(got, str) and _angle_off(got[0], f.start) <= 1.5 and abs(got[1] - f.sweep) <= 1.5


def test_two_labels_only_when_min_and_max() -> None:
    spec = DialSpec(0.0, 10.0, "bar")
    ends = [Label(225.0, 0.66, "0", 0.0, 0.2, (0, 0, 1, 1)), Label(-45.0 % 360, 0.66, "10", 10.0, 0.2, (0, 0, 1, 1))]
    got = scale_from_labels(ends, spec)
    assert not isinstance(got, str) and _angle_off(got[0], 225.0) < 1e-6 and abs(got[1] - 270.0) < 1e-6
    mid = [Label(225.0, 0.66, "0", 0.0, 0.2, (0, 0, 1, 1)), Label(90.0, 0.66, "5", 5.0, 0.2, (0, 0, 1, 1))]
    assert isinstance(scale_from_labels(mid, spec), str)


def test_through_dials_own_rectification() -> None:
    """A photo-like frame: the dial off-centre and squashed as in a view 40 deg off its axis,
    rectified by ``dial.geometry.find_dial``; called as dial/read.py is to call it in ``_read``: its canon,
    seen, px_scale, local median and bound, and the tick ring's band it found (``r_in``, ``r_out``,
    here taken from ``read_dial``'s evidence)."""
    f = Face(hi=160.0, majors=8, at=0.62)
    size = (470, 360)  # the 601 px square squashed
    frame = np.full((480, 640, 3), (90, 100, 110), np.uint8)
    frame[60 : 60 + size[1], 85 : 85 + size[0]] = cv2.resize(draw_face(f), size, interpolation=cv2.INTER_AREA)
    spec = DialSpec(0.0, 160.0, "bar")
    ev = read_dial(frame, spec).evidence
    dial = find_dial(frame)
    assert dial is not None
    local = cv2.medianBlur(np.clip(dial.canon, 0, 255).astype(np.uint8), 31).astype(np.float32)
    labels = read_labels(
        dial.canon, (ev["tick_r_in"], ev["tick_r_out"]), bound=ev["bound"], seen=dial.seen, local=local,
        radius=CANON, px_scale=dial.px_scale,
    )  # fmt: skip
    got = scale_from_labels(labels, spec)
    assert not isinstance(got, str), (got, [lb.text for lb in labels])
    # the same convention as dial/read.py's own arc (start: the angle of lo; sweep > 0)
    assert _angle_off(got[0], f.start) <= 1.5 and abs(got[1] - f.sweep) <= 1.5, got
    assert _angle_off(got[0], ev["arc_start_deg"]) <= 1.5 and abs(got[1] - ev["sweep_deg"]) <= 1.5
    assert len([lb for lb in labels if lb.text != "?"]) >= 3


def _glyph_core(ch: str, font: str, height_px: int, lean: float, blur: float) -> np.ndarray:
    """One character drawn here in a TrueType font, leaning and blurred, thinned to its strokes'
    cores as the reader does (half the glyph's contrast) and cropped."""
    from PIL import Image, ImageDraw, ImageFont

    ttf = ImageFont.truetype(str(MPL_FONTS / font), int(1.35 * height_px))
    img = Image.new("L", (4 * height_px, 4 * height_px), 0)
    ImageDraw.Draw(img).text((height_px, height_px), ch, fill=255, font=ttf)
    m = np.asarray(img, np.float32)
    if lean:
        rot = cv2.getRotationMatrix2D((m.shape[1] / 2.0, m.shape[0] / 2.0), lean, 1.0)
        m = cv2.warpAffine(m, rot, (m.shape[1], m.shape[0]))
    if blur:
        m = cv2.GaussianBlur(m, (0, 0), blur)
    core = m > 0.5 * np.percentile(m[m > 20], 90)
    ys, xs = np.nonzero(core)
    return core[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def test_where_a_glyphs_one_hole_lies() -> None:
    """A 0's hole spans the glyph, a 9's is high, a 6's low: ``holes`` tells them apart."""
    for font in ("DejaVuSans.ttf", "DejaVuSerif.ttf"):
        assert [holes(_glyph_core(ch, font, 20, 0.0, 0.0)) for ch in "0964"] == ["T", "U", "L", "U"], font


@pytest.mark.parametrize(
    ("ch", "font", "height_px", "lean", "blur"),
    [
        ("6", "DejaVuSans.ttf", 10, 8.0, 0.8),
        ("6", "DejaVuSans-Bold.ttf", 12, -8.0, 0.8),
        ("6", "DejaVuSerif.ttf", 14, 0.0, 1.4),
        ("0", "DejaVuSans.ttf", 12, 8.0, 1.4),
        ("0", "DejaVuSerif.ttf", 12, 0.0, 1.4),
        ("0", "DejaVuSansMono.ttf", 14, -8.0, 0.0),
    ],
)
def test_a_0_or_6_near_a_9_in_shape_is_read_by_where_its_hole_lies(
    ch: str, font: str, height_px: int, lean: float, blur: float
) -> None:
    """Small, leaning, blurred: the shape alone left these unread (a 9's or 5's template about as
    near); the hole's place rules the 9 out."""
    core = _glyph_core(ch, font, height_px, lean, blur)
    got = _glyph(core)
    assert got is not None and got[0][1] == ch, (holes(core), got)
