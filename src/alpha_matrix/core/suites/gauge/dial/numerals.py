"""The scale from the dial's printed numerals: read the labels by the major ticks, match them to
the stated range, or say why not.

Two or more labels read at known angles give value = a + b * angle without knowing where the
scale's ends are (glare, a red zone or a cover at an end leaves ``dial.scale.arc`` in doubt).

1. ``read_labels``: on a rectified dial (``dial.geometry.Dial.canon``: the dial a circle of radius
   ``dial.CANON`` px about the image's centre), ink is every pixel far in RGB from the face's
   median around it (either polarity alike), closed by a px. Its connected components that touch
   neither the tick ring's band, nor the hub, nor the unseen part of the picture, and are no
   larger than a label's glyph, are grouped into words (side by side, of one height, close).
   Each glyph (its strokes' cores: half its contrast) is classified among 0-9 by its nearest
   templates, rendered once from OpenCV's Hershey SIMPLEX, PLAIN, DUPLEX, COMPLEX, TRIPLEX faces
   and Pillow's bundled font at several sizes, the large ones also leaning +-10 deg (normalised:
   cropped, height 24 px, blurred, unit-norm correlation), with its holes as a veto (a 0 and an
   8 differ in little ink but in their holes; where a lone hole lies rules out more: a 0's spans
   the glyph, a 9's is high, a 6's low, so a small blurred 0 near a 9's template in shape is a 0);
   '-' and '.' by shape and place. A glyph is unknown
   when its best class is far, does not beat the next class with those holes by ``MIN_MARGIN``,
   is a blob (``MAX_FILL``), is under ``MIN_IMAGE_H`` picture px tall or its ink is of two
   colours; digits touching are cut once at the least-inked column (a 1 only leading). A word
   with an unknown glyph, two glyphs no wider together than one digit, an unexplained mark
   beside it, other ink on its line within ``TOUCH_GAP`` (a digit run into a tick), another glyph
   on its line or a larger blob (a cover, the needle) next to it is not read: it comes back as
   print not read (text "?", value NaN). Labels are taken upright, as printed on gauges.
2. ``scale_from_labels``: the largest set of labels on one linear value-vs-angle map in the
   stated direction (all pairs as hypotheses), at one radius, on an even lattice of the range;
   it must have 3 or more labels (2 only when they are the range's min and max) spanning
   ``MIN_SPAN`` of the range, a sweep of 60-340 deg, a residual within ``FIT_RMS``, no more
   than a few read labels off it, no read label on its extension beyond the range and no print
   not read a label's step or so past an end (a dial drawn 0-16 stated 0-10), and no as good
   map the other way round. Any doubt: a one-line reason (beginning "numerals:").

Called in ``dial.read._read`` once the tick ring is known, when ``dial.scale.arc`` leaves the ends in
doubt: ``scale_from_labels(read_labels(...), spec)`` gives (start, sweep) as ``dial.scale._ends``
does (the angle of ``spec.lo``, the sweep > 0; counter-clockwise from 3 o'clock, the value growing
clockwise when ``spec.clockwise``), or a reason, and the ticks' reason stands. ``centre`` defaults
to the image's centre ((w - 1) / 2, (h - 1) / 2), the dial's centre in ``Dial.canon``; ``local``
(dial/read.py's median over 31 px) saves ~10 ms; ``px_scale`` is the (work) picture's px per canonical
px. This module imports nothing of the dial reader (it imports this one). Note: OpenCV 5 draws every Hershey face with one
built-in font and one weight (putText's thickness has no effect), so the Hershey templates are
three designs (SIMPLEX, PLAIN, DUPLEX = COMPLEX = TRIPLEX) at a few sizes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

import cv2
import numpy as np

GLYPH_H, GLYPH_W = 24, 24  # normalised glyph: height scaled to GLYPH_H, centred in a GLYPH_W-wide box
GLYPH_BLUR = 1.2  # px (normalised): a stroke's weight and a font's detail matter less
MIN_H_PX, MAX_H_R = 8, 0.2  # a digit's height: at least this many canonical px, at most this share of R
MAX_FILL = 0.78  # share of a glyph's box inked, at most (more: a blob, its strokes not told apart)
MIN_IMAGE_H = 9  # px: a digit's least height in the picture (fewer: too blurred to tell 6 from 0)
RING_NEAR = 0.06  # R: a large blob's ink this near the tick ring's band is the ring's (ticks on an arc line)
HUB_R, OUTER_R = 0.1, 1.45  # R: ink this close to the centre is the hub's; this far out, no label
MEDIAN_PX = 31  # canonical px: the face's median window (dial/read.py's ``local``)
MAX_DIST = 0.22  # 1 - correlation of a glyph with its best template, at most
MIN_MARGIN = 0.04  # the second class's distance minus the best's, at least
MIN_SCORE = 0.0  # labels scored below this are dropped (score = the worst glyph's margin over MIN_MARGIN)
SPLIT_W, SPLIT_INK = 1.2, 0.45  # a glyph wider than this (of its height) is digits touching; cut where
# a column has at most this share of its height inked
TOUCH_GAP = 0.2  # other ink on a word's line this near it (of its height): the word may be cut short
BROKEN_W = 0.8  # two glyphs side by side no wider than this (of their height) together: maybe one broken
WORD_GAP = 0.5  # horizontal gap between glyphs of a word, at most, of their height
ANGLE_TOL = 2.5  # deg: a label's angle off the map, at most
STEP_TOL = 0.25  # ... at most this share of the angle between neighbouring labels' values
RADIUS_TOL = 0.08  # R: labels of one scale lie on one circle, within this
COLOUR_TOL = 40.0  # RGB distance from a glyph's median colour beyond which its ink is of another colour
MIN_SPAN = 0.6  # the agreeing labels' values span at least this share of the range
FIT_RMS = 1.5  # deg: the map's residual over its labels, at most
SWEEP_MIN, SWEEP_MAX = 60.0, 340.0

_HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
)
_HERSHEY_SIZES = ((0.7, 1), (0.7, 2), (1.2, 1), (1.2, 2), (1.2, 3), (2.0, 2), (2.0, 4), (2.0, 6))
_PIL_SIZES = ((18, 0), (28, 0), (28, 1), (48, 0), (48, 2))
DIGITS = "0123456789"
TEMPLATE_LEAN = (-10.0, 10.0)  # deg: the large renders also leaning so much
# the holes each digit's ink may have: "0", "1" holes, "8" two stacked, "s" two side by side (a
# slashed 0, as Hershey's), a 4 open or closed at its top
HOLES = ({"1", "s"}, {"0"}, {"0"}, {"0"}, {"0", "1"}, {"0"}, {"1"}, {"0"}, {"8"}, {"1"})
# One hole ("1") is told further by where it lies in the glyph's height: "T" top to bottom, "U" in the
# upper part, "L" in the lower, "M" in the middle. That rules some digits out, whatever the font (on
# the fonts rendered for the templates and DejaVu's, a 0's hole spans 0.19-0.81 or more, a 9's ends by
# 0.6, a 6's begins at 0.38 or below): these are then neither the digit read nor its competitors.
RULED_OUT: dict[str, set[int]] = {"T": {6, 9}, "U": {6}, "L": {0, 9}, "M": set()}
# Measured down from the glyph's top, of its height:
HOLE_HIGH = 0.3  # a hole whose top is nearer than this is high
HOLE_DEEP = 0.7  # ... whose bottom is farther than this reaches low (high and deep: it spans the glyph, a 0's)
HOLE_LOW = 0.38  # ... deep, and whose top is at least this far down: low (a 6's)


class _Spec(Protocol):
    """What ``scale_from_labels`` needs of ``dial.DialSpec``."""

    @property
    def lo(self) -> float: ...
    @property
    def hi(self) -> float: ...
    @property
    def clockwise(self) -> bool: ...


@dataclass(frozen=True)
class Label:
    """A word of print on the dial: a numeral read, or (``text`` "?", ``value`` NaN) one not read
    surely, kept because a label may be there (``scale_from_labels`` looks beyond the range's
    ends for such print: a scale that goes on)."""

    angle_deg: float  # of the label's centre about the dial's centre, counter-clockwise from 3 o'clock
    radius: float  # of the label's centre, of R
    text: str
    value: float
    score: float  # the worst glyph's margin (1 - correlation) between its best class and the next
    box: tuple[int, int, int, int]  # x, y, w, h (px) in the image read


# ------------------------------------------------------------------------------ glyphs
def normalise(mask: np.ndarray) -> np.ndarray | None:
    """A glyph's ink mask -> the unit-norm, zero-mean blurred vector it is compared by (None: empty)."""
    ys, xs = np.nonzero(mask)
    if not len(ys):
        return None
    crop = mask[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1].astype(np.float32)
    h, w = crop.shape
    nw = max(1, min(GLYPH_W, int(round(w * GLYPH_H / h))))
    interp = cv2.INTER_AREA if h > GLYPH_H else cv2.INTER_LINEAR
    small = cv2.resize(crop, (nw, GLYPH_H), interpolation=interp)
    canvas = np.zeros((GLYPH_H + 4, GLYPH_W + 4), np.float32)
    x0 = 2 + (GLYPH_W - nw) // 2
    canvas[2 : 2 + GLYPH_H, x0 : x0 + nw] = small
    v = cv2.GaussianBlur(canvas, (0, 0), GLYPH_BLUR).ravel()
    v = v - v.mean()
    n = float(np.linalg.norm(v))
    return None if n <= 1e-6 else np.asarray(v / n, np.float32)


def _render_hershey(ch: str, font: int, scale: float, thick: int) -> np.ndarray:
    big = 4
    (tw, th), base = cv2.getTextSize(ch, font, scale * big, thick * big)
    img = np.zeros((th + base + 8 * big, tw + 8 * big), np.uint8)
    cv2.putText(img, ch, (4 * big, th + 4 * big), font, scale * big, 255, thick * big, cv2.LINE_AA)
    small = cv2.resize(img, (img.shape[1] // big, img.shape[0] // big), interpolation=cv2.INTER_AREA)
    return np.asarray(small > 127)


def _render_pil(ch: str, size: int, stroke: int) -> np.ndarray:
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.load_default(size=size)
    img = Image.new("L", (3 * size, 3 * size), 0)
    ImageDraw.Draw(img).text((size // 2, size // 2), ch, fill=255, font=font, stroke_width=stroke, stroke_fill=255)
    return np.asarray(img) > 127


def _rotate(mask: np.ndarray, deg: float) -> np.ndarray:
    """A template leaning ``deg`` (a dial seen from aside: its upright print leans a little)."""
    pad = np.pad(mask.astype(np.uint8) * 255, 8)
    rot = cv2.getRotationMatrix2D((pad.shape[1] / 2.0, pad.shape[0] / 2.0), deg, 1.0)
    return np.asarray(cv2.warpAffine(pad, rot, (pad.shape[1], pad.shape[0]), flags=cv2.INTER_LINEAR) > 127)


@lru_cache(maxsize=1)
def templates() -> tuple[np.ndarray, np.ndarray]:
    """(n, GLYPH) template vectors and their classes (index into DIGITS), rendered once."""
    vecs: list[np.ndarray] = []
    cls: list[int] = []
    for d, ch in enumerate(DIGITS):
        masks = [_render_hershey(ch, f, s, t) for f in _HERSHEY for s, t in _HERSHEY_SIZES]
        try:
            masks += [_render_pil(ch, s, k) for s, k in _PIL_SIZES]
        except (ImportError, OSError, TypeError):  # Pillow without FreeType: Hershey alone
            pass
        masks += [_rotate(m, deg) for m in masks if m.shape[0] >= 30 for deg in TEMPLATE_LEAN]
        for m in masks:
            if _fill(m) > MAX_FILL:  # a small render in a thick stroke: a blob, no model of a digit
                continue
            v = normalise(m)
            if v is not None:
                vecs.append(v)
                cls.append(d)
    return np.stack(vecs), np.array(cls)


def holes(mask: np.ndarray) -> str:
    """The glyph's holes (enclosed background, 2 px or larger): "0" (none); one: "T", "U", "L" or "M"
    by where it lies (``RULED_OUT``); "8" (two, one straight above the other), "s" (two offset
    sideways: a slashed 0, as Hershey's), "x" (more)."""
    pad = np.pad(~mask.astype(bool), 1, constant_values=True).astype(np.uint8)
    # 4-connected (ink is 8-connected: a thin stroke's diagonal step closes a loop)
    n, _, stats, cen = cv2.connectedComponentsWithStats(pad, connectivity=4)
    # component 1 is the background outside (it holds the padded corner)
    inner = [i for i in range(2, n) if stats[i, cv2.CC_STAT_AREA] >= 2]
    if not inner:
        return "0"
    if len(inner) == 1:
        top = (stats[inner[0], cv2.CC_STAT_TOP] - 1) / mask.shape[0]
        bottom = top + stats[inner[0], cv2.CC_STAT_HEIGHT] / mask.shape[0]
        high, deep = top < HOLE_HIGH, bottom > HOLE_DEEP
        return ("T" if deep else "U") if high else "L" if deep and top >= HOLE_LOW else "M"
    if len(inner) > 2:
        return "x"
    return "s" if abs(cen[inner[0]][0] - cen[inner[1]][0]) > 0.06 * mask.shape[1] else "8"


def _fits(d: int, n_holes: str | None) -> bool:
    return n_holes is None or ("1" if n_holes in RULED_OUT else n_holes) in HOLES[d]


def classify(vecs: np.ndarray, n_holes: Sequence[str | None] | None = None) -> list[tuple[str, float]]:
    """Each normalised glyph's digit and margin ('?' when unsure). With the glyphs' hole counts,
    the best class must have that many holes, and its margin is over the next class that has
    them too (a 0 and an 8 differ in little ink but in their holes)."""
    if not len(vecs):
        return []
    tv, tc = templates()
    # (n, templates), by einsum's own loop: BLAS's threads on a busy machine cost more than this
    dist = 1.0 - np.einsum("tj,nj->nt", tv, vecs)
    # the templates are in class order: each class's nearest at once
    per = np.minimum.reduceat(dist, np.searchsorted(tc, np.arange(len(DIGITS))), axis=1)
    order = np.argsort(per, axis=1)
    out = []
    for i in range(len(vecs)):
        nh = None if n_holes is None else n_holes[i]
        ranked = [int(d) for d in order[i] if int(d) not in RULED_OUT.get(nh or "", ())]
        b = ranked[0]
        # competitors: the digits with these holes, and with no hole seen, those with a loop (a
        # 6's or 9's loop left open by blur is a 5 or 7 to the eye)
        rest = [d for d in ranked[1:] if _fits(d, nh) or (nh == "0" and d in (0, 6, 9))]
        # no other digit has these holes: the holes are the margin (the shape must still agree)
        margin = float(per[i, rest[0]] - per[i, b]) if rest else 1.0
        ok = per[i, b] <= MAX_DIST and margin >= MIN_MARGIN and _fits(b, nh)
        out.append((DIGITS[b] if ok else "?", margin))
    return out


# ------------------------------------------------------------------------------ labels
def _fill(mask: np.ndarray) -> float:
    """Share of the glyph's box that is ink."""
    ys, xs = np.nonzero(mask)
    return float(len(ys) / ((np.ptp(ys) + 1) * (np.ptp(xs) + 1))) if len(ys) else 0.0


def _glyph(core: np.ndarray) -> list[tuple[int, str, float]] | None:
    """One glyph's digit (x offset 0, digit, margin), or None when unsure (a blob of ink, too
    blurred or too bold to show its strokes, is none)."""
    if _fill(core) > MAX_FILL:
        return None
    v = normalise(core)
    if v is None:
        return None
    ch, margin = classify(v[None], [holes(core)])[0]
    return None if ch == "?" else [(0, ch, margin)]


def _glyphs(core: np.ndarray) -> list[tuple[int, str, float]] | None:
    """Digits touching (bold print, light ink spreading on a dark face): cut into 2 (3) pieces at
    the column of least ink about the middle (the thirds), where a column has little ink; the cut
    whose every piece reads surely, or None (both do: unsure). One cut each, never a search over
    cuts for one that reads (some cut of any blob would)."""
    h, w = core.shape
    col = core.sum(axis=0).astype(float)

    def valley(lo: float, hi: float, at: float) -> int | None:
        xs = np.arange(max(2, int(lo * w)), min(w - 1, int(math.ceil(hi * w)) + 1))
        if not len(xs):
            return None
        x = int(xs[np.argmin(col[xs] + 1e-3 * np.abs(xs - at * w))])
        return x if col[x] <= SPLIT_INK * h else None

    found = []
    for plan in ([valley(0.25, 0.75, 0.5)], [valley(0.2, 0.45, 1 / 3), valley(0.55, 0.8, 2 / 3)]):
        if any(x is None for x in plan):
            continue
        cuts = [0, *(int(x) for x in plan if x is not None), w]
        if any(cuts[i + 2] - cuts[i] <= BROKEN_W * h for i in range(len(cuts) - 2)):
            continue  # two pieces no wider than one digit: a glyph cut in two
        out: list[tuple[int, str, float]] = []
        for a, b in zip(cuts[:-1], cuts[1:], strict=True):
            got = _glyph(core[:, a:b]) if 2 <= b - a <= SPLIT_W * h else None
            if got is None:
                break
            out.append((a, got[0][1], got[0][2]))
        # a 1 only leading (10, 100, 150): half a 0 or an 8 cut off reads as a 1
        if len(out) == len(cuts) - 1 and all(ch != "1" for _, ch, _ in out[1:]):
            found.append(out)
    return found[0] if len(found) == 1 else None


@dataclass
class _Comp:
    x: int
    y: int
    w: int
    h: int
    idx: int


def read_labels(
    canon: np.ndarray,
    ring: tuple[float, float],
    *,
    centre: tuple[float, float] | None = None,
    radius: float = 200.0,
    bound: float = 20.0,
    seen: np.ndarray | None = None,
    local: np.ndarray | None = None,
    px_scale: float = 1.0,
) -> list[Label]:
    """The numerals read on a rectified dial.

    canon: (H, W, 3) RGB (uint8 or float) with the dial a circle of ``radius`` px about ``centre``
    (default: the image's centre). ring: the tick ring's band (r_in, r_out) in units of R; ink
    touching it is the ticks'. bound: the least RGB distance from the face counted as ink.
    seen: (H, W), > 0.99 where the picture shows the dial. local: the face's median around each
    pixel (H, W, 3), computed here over ``MEDIAN_PX`` px when not given. px_scale: the picture's
    px per px of ``canon`` (a digit under ``MIN_IMAGE_H`` px tall in the picture is not read)."""
    img = np.asarray(canon, np.float32)
    h, w = img.shape[:2]
    cx, cy = centre if centre is not None else ((w - 1) / 2.0, (h - 1) / 2.0)
    if local is None:  # the face's median over MEDIAN_PX px, taken at half resolution (4x faster)
        u8 = np.clip(img, 0, 255).astype(np.uint8)
        half = cv2.resize(u8, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        med = cv2.medianBlur(half, (MEDIAN_PX // 2) | 1)
        local = cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    dist = np.sqrt(((img - np.asarray(local, np.float32)) ** 2).sum(axis=2) / 3.0)
    yy, xx = np.ogrid[:h, :w]
    rr = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2) / radius
    r_in, r_out = ring
    forbid = (rr < HUB_R) | (rr > OUTER_R) | ((rr >= r_in) & (rr <= r_out))
    if seen is not None:
        forbid |= np.asarray(seen) < 0.99
    # closed by a px: a thin stroke's faint stretch (a serif 0's top, blurred) keeps its glyph
    # whole, not two arcs each like a 1
    mask = cv2.morphologyEx((dist > bound).astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    bad = np.zeros(n, bool)
    bad[np.unique(lab[forbid & (mask > 0)])] = True
    max_h = MAX_H_R * radius
    glyphs: list[_Comp] = []
    small: list[_Comp] = []
    blobs: list[_Comp] = []
    for i in range(1, n):
        x, y, cw, ch, area = (int(v) for v in stats[i])
        c = _Comp(x, y, cw, ch, i)
        if ch > max_h or cw > max_h:
            blobs.append(c)  # a cover, the needle, a bezel: no glyph, and no label beside it is whole
        elif bad[i]:
            continue  # a tick, the hub, print at the picture's edge: nothing to read
        elif ch >= max(MIN_H_PX, MIN_IMAGE_H / max(px_scale, 1e-6)):
            glyphs.append(c)
        elif area >= 2:
            small.append(c)
    small_ids = np.array([c.idx for c in small], int)
    blob_mask = np.isin(lab, [b.idx for b in blobs]) if blobs else np.zeros(lab.shape, bool)
    # ticks joined by an arc line are one large blob: its part by the ring is no cover
    blob_mask &= ~((rr >= r_in - RING_NEAR) & (rr <= r_out + RING_NEAR))
    out = []
    for word in _words(glyphs):
        crowded = _crowded(word, glyphs) or _touching(word, lab, small_ids)
        got = None if crowded else _label(word, small, blob_mask, lab, dist, bound, cx, cy, radius, img)
        if got is None:  # print not read: kept as such (a label may be there)
            x0, x1 = min(c.x for c in word), max(c.x + c.w for c in word)
            y0, y1 = min(c.y for c in word), max(c.y + c.h for c in word)
            mx, my = (x0 + x1) / 2.0 - 0.5, (y0 + y1) / 2.0 - 0.5
            ang = math.degrees(math.atan2(-(my - cy), mx - cx)) % 360.0
            got = Label(ang, math.hypot(mx - cx, my - cy) / radius, "?", math.nan, -1.0, (x0, y0, x1 - x0, y1 - y0))
        out.append(got)
    return out


def _crowded(word: list[_Comp], glyphs: list[_Comp]) -> bool:
    """Another glyph, not of the word, beside it on its line (a digit of another height, a
    letter, a digit or sign run into a tick): the word may be part of a longer print, not a
    label whole."""
    x0, x1 = min(c.x for c in word), max(c.x + c.w for c in word)
    y0, y1 = min(c.y for c in word), max(c.y + c.h for c in word)
    pad = WORD_GAP * (y1 - y0)
    ids = {c.idx for c in word}
    for g in glyphs:
        if g.idx in ids:
            continue
        overlap = min(y1, g.y + g.h) - max(y0, g.y)
        if overlap > 0.3 * min(g.h, y1 - y0) and g.x < x1 + pad and g.x + g.w > x0 - pad:
            return True
    return False


def _touching(word: list[_Comp], lab: np.ndarray, small_ids: np.ndarray) -> bool:
    """Ink of anything else (a tick, a cover, the needle; small marks aside) on the word's line
    within ``TOUCH_GAP`` of its height: a digit or sign may have run into it."""
    x0, x1 = min(c.x for c in word), max(c.x + c.w for c in word)
    y0, y1 = min(c.y for c in word), max(c.y + c.h for c in word)
    pad = int(math.ceil(TOUCH_GAP * (y1 - y0)))
    region = lab[y0:y1, max(0, x0 - pad) : x1 + pad]
    other = (region > 0) & ~np.isin(region, [c.idx for c in word]) & ~np.isin(region, small_ids)
    return bool(other.any())


def _words(glyphs: list[_Comp]) -> list[list[_Comp]]:
    """Glyphs side by side, of one height, close: one word each (left to right)."""
    parent = list(range(len(glyphs)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(glyphs):
        for j in range(i + 1, len(glyphs)):
            b = glyphs[j]
            hh = max(a.h, b.h)
            if min(a.h, b.h) < 0.75 * hh:
                continue
            overlap = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
            gap = max(a.x, b.x) - min(a.x + a.w, b.x + b.w)
            if overlap >= 0.7 * min(a.h, b.h) and gap <= WORD_GAP * hh:
                parent[root(i)] = root(j)
    groups: dict[int, list[_Comp]] = {}
    for i, g in enumerate(glyphs):
        groups.setdefault(root(i), []).append(g)
    return [sorted(g, key=lambda c: c.x) for g in groups.values()]


def _label(
    word: list[_Comp], small: list[_Comp], blobs: np.ndarray, lab: np.ndarray, dist: np.ndarray, bound: float,
    cx: float, cy: float, radius: float, img: np.ndarray,
) -> Label | None:  # fmt: skip
    x0 = min(c.x for c in word)
    x1 = max(c.x + c.w for c in word)
    y0 = min(c.y for c in word)
    y1 = max(c.y + c.h for c in word)
    hh = y1 - y0
    if len(word) > 4 or x1 - x0 > 4.0 * hh:
        return None
    if any(c.h < 0.75 * hh for c in word):
        return None
    # two neighbours that together are no wider than one digit: maybe one glyph broken in two
    # (a 0 whose thin top and bottom are lost reads as two 1s): dropped
    for a, b in zip(word[:-1], word[1:], strict=True):
        if (b.x + b.w - a.x) <= BROKEN_W * hh:
            return None
    # beside a larger blob (a cover, the needle) the label may be cut: dropped
    pad = int(math.ceil(0.6 * hh))
    if blobs[max(0, y0 - pad) : y1 + pad, max(0, x0 - pad) : x1 + pad].any():
        return None
    # '-' before the first digit, '.' between digits (small marks on the word's line)
    items: list[tuple[int, str, float]] = []
    for c in word:
        crop = lab[c.y : c.y + c.h, c.x : c.x + c.w] == c.idx
        ink = dist[c.y : c.y + c.h, c.x : c.x + c.w]
        # thin to the strokes' cores: half the glyph's contrast (a blurred edge thickens a glyph)
        thr = max(bound, 0.5 * float(np.percentile(ink[crop], 90)))
        core = crop & (ink > thr)
        # a label's ink (its strongest) is of one colour: a glyph run into a cover of another is none
        pix = img[c.y : c.y + c.h, c.x : c.x + c.w][core & (ink > 0.75 * float(np.percentile(ink[crop], 90)))]
        if len(pix):
            off = np.sqrt(((pix - np.median(pix, axis=0)) ** 2).sum(axis=1) / 3.0)
            if float((off > max(COLOUR_TOL, 2.0 * bound)).mean()) > 0.15:
                return None
        # one glyph, or digits touching; both readings sure: unsure
        one = _glyph(core) if c.w <= SPLIT_W * c.h else None
        more = _glyphs(core) if c.w > SPLIT_W * c.h else None
        got = None if one is not None and more is not None else one or more
        if got is None:
            return None
        items += [(c.x + dx, ch, m) for dx, ch, m in got]
    for s in small:
        gap = min(abs(s.x - x1), abs(x0 - (s.x + s.w)))
        inside = x0 < s.x and s.x + s.w < x1
        if not (inside or gap <= WORD_GAP * hh) or not (y0 - 0.2 * hh <= s.y and s.y + s.h <= y1 + 0.2 * hh):
            continue
        mid = (s.y + s.h / 2.0 - y0) / hh
        if s.w >= 1.5 * s.h and s.w >= 0.25 * hh and s.h <= 0.3 * hh and 0.3 <= mid <= 0.7 and s.x + s.w <= x0:
            items.append((s.x, "-", 1.0))
            x0 = min(x0, s.x)
        elif s.h <= 0.3 * hh and s.w <= 0.35 * hh and 0.5 <= s.w / s.h <= 2.0 and mid >= 0.8 and inside:
            items.append((s.x, ".", 1.0))
        else:
            return None  # a mark in or at the word that is neither: something else is written here
    items.sort()
    text = "".join(ch for _, ch, _ in items)
    if not re.fullmatch(r"-?(0|[1-9]\d*)(\.\d+)?", text):
        return None
    score = min(m for _, _, m in items) - MIN_MARGIN
    if score < MIN_SCORE:
        return None
    mx, my = (x0 + x1) / 2.0 - 0.5, (y0 + y1) / 2.0 - 0.5  # the centre of the ink's box, px
    ang = math.degrees(math.atan2(-(my - cy), mx - cx)) % 360.0
    rad = math.hypot(mx - cx, my - cy) / radius
    return Label(ang, rad, text, float(text), score, (x0, y0, x1 - x0, hh))


# ------------------------------------------------------------------------------ the scale
def _wrap(d: float | np.ndarray) -> np.ndarray:
    return np.asarray((np.asarray(d) + 180.0) % 360.0 - 180.0)


def _consensus(labels: Sequence[Label], lo: float, hi: float, clockwise: bool) -> tuple[list[int], float, float] | None:
    """The largest set of labels (indices) on one map angle = start + sign * k * (value - lo) in the
    given direction, with its start and k (deg per unit); None when no pair makes one."""
    sign = -1.0 if clockwise else 1.0
    ang = np.array([lb.angle_deg for lb in labels])
    val = np.array([lb.value for lb in labels])
    rad = np.array([lb.radius for lb in labels])
    best: tuple[tuple[int, float], list[int], float, float] | None = None
    for i in range(len(labels)):
        for j in range(len(labels)):
            if val[j] <= val[i] or abs(rad[i] - rad[j]) > RADIUS_TOL:
                continue
            delta = (sign * (ang[j] - ang[i])) % 360.0
            if delta <= 0:
                continue
            k = delta / (val[j] - val[i])
            if not SWEEP_MIN <= k * (hi - lo) <= SWEEP_MAX + 20.0:
                continue
            start = ang[i] - sign * k * (val[i] - lo)
            res = _wrap(ang - (start + sign * k * (val - lo)))
            tol = min(ANGLE_TOL, STEP_TOL * k * _min_step(val))
            on = np.nonzero((np.abs(res) <= tol) & (np.abs(rad - np.median(rad[[i, j]])) <= RADIUS_TOL))[0]
            if len(set(val[on].tolist())) != len(on):  # one value at two places
                continue
            key = (len(on), -float(np.abs(res[on]).sum()))
            if best is None or key > best[0]:
                best = (key, [int(x) for x in on], float(start), float(k))
    return None if best is None else (best[1], best[2], best[3])


def _min_step(val: np.ndarray) -> float:
    d = np.diff(np.unique(val))
    return float(d.min()) if len(d) else 1.0


def _lattice(vals: np.ndarray, lo: float, hi: float) -> bool:
    """The values evenly stepped: all on lo + n * step, with step (their least gap) dividing the range."""
    step = _min_step(vals)
    if step <= 0:
        return False
    q = (vals - lo) / step
    n = (hi - lo) / step
    return bool(np.all(np.abs(q - np.round(q)) < 1e-3)) and abs(n - round(n)) < 1e-3


def scale_from_labels(labels: Sequence[Label], spec: _Spec) -> tuple[float, float] | str:
    """(angle of ``spec.lo``, sweep) in dial/read.py's convention (deg counter-clockwise from 3 o'clock,
    sweep > 0 in the value's direction, as ``dial.scale._ends`` gives), from the labels; or why not."""
    lo, hi = float(spec.lo), float(spec.hi)
    if hi <= lo:
        return "numerals: range not increasing"
    eps = 1e-6 * (hi - lo)
    unread = [lb for lb in labels if math.isnan(lb.value)]
    labels = [lb for lb in labels if not math.isnan(lb.value)]
    inside = [lb for lb in labels if lo - eps <= lb.value <= hi + eps]
    beyond = [lb for lb in labels if not lo - eps <= lb.value <= hi + eps]
    if len(labels) < 2:
        return "numerals: fewer than 2 read"
    if len(inside) < 2:
        return "numerals: fewer than 2 read within the stated range"
    got = _consensus(inside, lo, hi, spec.clockwise)
    if got is None:
        return "numerals: no two agree with the stated range and direction"
    on, start, k = got
    vals = np.array([inside[i].value for i in on])
    ends = bool(np.isclose(vals.min(), lo) and np.isclose(vals.max(), hi))
    if len(on) < 3 and not (len(on) == 2 and ends):
        return "numerals: fewer than 3 agree"
    if vals.max() - vals.min() < MIN_SPAN * (hi - lo) - eps:  # the ends far extrapolated: in doubt
        return "numerals: those agreeing span too little of the range"
    other = _consensus(inside, lo, hi, not spec.clockwise)
    if other is not None and len(other[0]) >= max(3, len(on)):
        return "numerals: they run against the stated direction"
    if not _lattice(vals, lo, hi):
        return "numerals: values not evenly stepped over the range"
    # refit on the agreeing labels: angle = a + b * value
    sign = -1.0 if spec.clockwise else 1.0
    ang = np.array([inside[i].angle_deg for i in on])
    unwrapped = start + sign * k * (vals - lo) + _wrap(ang - (start + sign * k * (vals - lo)))
    b, a = np.polyfit(vals, unwrapped, 1)
    rms = float(np.sqrt(np.mean((unwrapped - (a + b * vals)) ** 2)))
    if rms > FIT_RMS:
        return "numerals: their angles are not linear in value"
    if b * sign <= 0:
        return "numerals: they run against the stated direction"
    start, sweep = float((a + b * lo) % 360.0), float(abs(b) * (hi - lo))
    if not SWEEP_MIN <= sweep <= SWEEP_MAX:
        return f"numerals: sweep {sweep:.0f} deg is no gauge's"
    # a confident label beyond the range on the map's extension: the dial's range is not the stated
    for lb in beyond:
        pred = a + b * lb.value
        ext = abs(b) * max(lo - lb.value, lb.value - hi)
        if ext < 360.0 - sweep and abs(_wrap(lb.angle_deg - pred)) <= ANGLE_TOL:
            return f"numerals: {lb.text} read beyond the stated range"
    # print at the labels' circle a step or so beyond an end: the scale goes on past the range
    r_med = float(np.median([inside[i].radius for i in on]))
    step_deg = abs(b) * _min_step(vals)
    for lb in unread:
        if abs(lb.radius - r_med) > RADIUS_TOL:
            continue
        past_hi = (sign * (lb.angle_deg - (a + b * hi))) % 360.0  # in the scale's gap: < 360 - sweep
        past_lo = (-sign * (lb.angle_deg - (a + b * lo))) % 360.0
        if past_hi < 360.0 - sweep and 0.5 * step_deg <= min(past_hi, past_lo) <= 1.5 * step_deg:
            return "numerals: print beyond the stated range's end"
    # too many confident labels within the range off the map: the reading is in doubt
    off = len(inside) - len(on)
    if off > max(1, len(on) // 3):
        return f"numerals: {off} of {len(inside)} disagree"
    return start, sweep
