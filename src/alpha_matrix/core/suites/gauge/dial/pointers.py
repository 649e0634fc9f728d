"""The pointers: rays of ink from the hub (runs, marks with the face beside them), their colours,
tails and blades, the value pointer among them, its angle, and the needle found about a hub off
the scale's centre."""

from __future__ import annotations

import math

import numpy as np

from alpha_matrix.core.suites.gauge.dial.common import (
    CANON,
    N_ANG,
    N_RAD,
    OUT,
    SEEN_MIN,
    angle_of_bin,
    chroma,
    peaks,
    polar,
    smooth_ang,
)
from alpha_matrix.core.suites.gauge.dial.geometry import HUB_DISC, Dial, disc, widest_disc

MIN_RAY = 0.1  # share of hub-to-ticks a ray of ink must cover to count as a pointer (a broken one too)
NEUTRAL_MAX, COLOURED_MIN = 0.22, 0.35  # (max - min) / (max + 10) of a pointer's pixels: black/white vs red
DRAG_ONLY = "only the drag pointer seen, not the needle"
# a stated drag pointer's red washed out (fog, blur, low resolution): some colour of red's hue, at
# least this chroma and this many times the grey needle's, which has at most this
FADED_RED_MIN, FADED_RATIO, FADED_GREY_MAX = 0.07, 3.0, 0.05
FADED_SPREAD_MIN = 8.0  # grey levels between its median's channels, at least: a colour, not a black's noise
RAY_MIDDLE_BINS = 3  # angle bins (1.5 deg) either side of a ray's bin where its middle is looked for
RAY_ROOT_MIN = 3  # radial samples (0.03 R): a ray's first stretch of ink this long gives its colour
SIDE_PX = 9.0  # canonical px beside a pointer where the face must show, both sides
SIDE_PX_ALL = (SIDE_PX, 2 * SIDE_PX, 3.5 * SIDE_PX)  # ... or farther: a tapered blade is wide near its hub
RED_HUE_DEG = 15.0  # hue within this of pure red: a drag pointer's red (orange is about 30)
SAME_BLADE_BINS = 24  # angle bins (12 deg) beside or off straight opposite a longer ray: part of its needle
TAIL_BINS = 70  # angle bins (35 deg) off straight opposite within which a shorter ray may be a (wide) tail
SAME_HUE_DEG = 30.0  # hue difference within which two coloured rays are of one colour
OTHER_HUE_DEG = 90.0  # hue at least this far from red: a colour no red drag pointer takes (blue, green)
STUB_RUN = 0.25  # a ray from the hub shorter than this share of hub-to-ticks is no pointer
SHORT_RUN = 0.5  # ... shorter than this, beside one not-red needle reaching the scale: a label's stroke
TIP_RUN = 0.8  # ... this long: a pointer whose tip reaches the scale
DRAG_RUN = 0.5  # ... this long, coloured, beside the needle: a drag pointer (shorter: maybe the needle, hidden)
PIVOT_OFF = (0.03, 0.2)  # R: a needle's hub this far off the scale's centre (a raised needle seen at an angle)


def run_from_hub(wide: np.ndarray, raw: np.ndarray | None = None) -> np.ndarray:
    """Per angle: the share of radii covered by one run of ink starting within the first tenth.

    ``raw``: ink of any shape at (angle, radius). A gap in a pointer's run is bridged only where
    ink fills it (the pointer crossing a numeral or another pointer: no face beside it there, but
    its own ink): a gap of bare face is its end, and a numeral beyond a short (broken) needle's
    end is not its tip."""
    n = wide.shape[1]
    out = np.zeros(wide.shape[0])
    head = max(1, n // 10)
    for i in range(wide.shape[0]):
        row = wide[i]
        if not row[:head].any():
            continue
        s = int(np.argmax(row[:head]))
        # the run ends at the first gap longer than a numeral or a crossing pointer (7 samples, 0.07 R)
        closed = row[s:].copy()
        holes = np.nonzero(~closed)[0]
        end = n - s
        for h in holes:
            if not closed[h : h + 8].any():
                end = int(h)
                break
            if raw is not None and not raw[i, s + h]:  # bare face: the run ends here
                end = int(h)
                break
        out[i] = end / n
    return out


def thin(inner: np.ndarray, rgb: np.ndarray, radii: np.ndarray, bound: float) -> np.ndarray:
    """Ink at (angle, radius) with the same face ``SIDE_PX`` (or, a blade wide at its hub, twice
    that) away on both sides: a mark, not the edge of a patch (an occluder's edge has something
    else on one side)."""
    out = np.zeros((len(SIDE_PX_ALL), *inner.shape), bool)
    for j, r in enumerate(radii):
        col = inner[:, j]
        for n, side_px in enumerate(SIDE_PX_ALL):
            off = max(2, int(round(math.degrees(side_px / max(r * CANON, 1.0)) * N_ANG / 360.0)))
            side = np.maximum(np.roll(col, off), np.roll(col, -off))
            a, b = np.roll(rgb[:, j], off, axis=0), np.roll(rgb[:, j], -off, axis=0)
            step = np.sqrt(((a - b) ** 2).sum(axis=1) / 3.0)
            out[n, :, j] = (col > bound) & (side < 0.5 * col) & (step < 0.8 * col)
    return np.asarray(out.any(axis=0))


def ray_pixels(rgb: np.ndarray, inner: np.ndarray, k: int, bound: float, root: bool = False) -> np.ndarray:
    """The pixels of the ray at angle bin ``k`` (its ink's, of ``rgb`` over the radii of ``inner``):
    along the most coloured of the bins within ``RAY_MIDDLE_BINS`` of it that hold at least half
    the most ink, the pointer's own (a ray's bin may lie at its edge, where a thin red line's
    pixels are half face, or over a numeral it crosses: its colour would be lost). ``root``: only
    its first stretch of ink from the hub (a tail's own colour, before a gap a label beyond it may
    follow), when ``RAY_ROOT_MIN`` long."""
    bins = np.arange(k - RAY_MIDDLE_BINS, k + RAY_MIDDLE_BINS + 1) % N_ANG
    count = (inner[bins] > bound).sum(axis=1)
    # of the bins with most of its ink, the most coloured: its edges' pixels are half face
    full = [int(b) for b, c in zip(bins, count, strict=True) if c >= 0.5 * count.max() and c > 0]
    best = max(full, key=lambda b: chroma(rgb[b][inner[b] > bound])) if full else k
    on = inner[best] > bound
    if root and on.any():
        gaps = np.nonzero(~on)[0]
        after = gaps[gaps > int(np.argmax(on))]
        first = on.copy()
        if len(after):
            first[after[0] :] = False
        if first.sum() >= RAY_ROOT_MIN:
            on = first
    return np.asarray(rgb[best][on])


def pointers(
    cand: list[int], run: np.ndarray, pixels: list[np.ndarray], roots: list[np.ndarray] | None = None
) -> list[int]:
    """The rays that may be pointers, with their pixels (and those of their roots, their first
    stretch from the hub). A shorter ray of the same colour straight opposite a longer one (its
    tail; or whose root is of the longer one's colour: a tail with a label beyond it) or beside
    it (the edge of a blade wide at its hub) is part of that needle; a stub barely out of the hub (a
    hub cap's rim, a label's stroke) is none, unless red (a needle's or drag pointer's visible
    part); any other ray stays (a needle whose tip is hidden)."""
    out = []
    for i, k in enumerate(cand):
        part = False
        for j, o in enumerate(cand):
            d = (k - o) % N_ANG
            tail = abs(d - N_ANG // 2) <= TAIL_BINS
            near = min(d, N_ANG - d) <= SAME_BLADE_BINS or tail
            alike = _same_colour(pixels[i], pixels[j]) or (
                tail and roots is not None and _same_colour(roots[i], pixels[j])
            )
            part |= j != i and run[o] > run[k] and near and alike
        if not part and (run[k] >= STUB_RUN or is_red(pixels[i])):
            out.append(k)
    return out


def has_tail(i: int, cand: list[int], run: np.ndarray, pixels: list[np.ndarray]) -> bool:
    """Ray ``i`` has a shorter ray of its colour straight opposite: a needle's tail."""
    k = cand[i]
    return any(
        j != i
        and run[o] < run[k]
        and abs((k - o) % N_ANG - N_ANG // 2) <= TAIL_BINS
        and _same_colour(pixels[i], pixels[j])
        for j, o in enumerate(cand)
    )


def beside(i: int, cand: list[int], pixels: list[np.ndarray]) -> bool:
    """Another ray from the hub, not red, not opposite ray ``i`` (its tail): a needle's base whose
    blade is hidden beside a red drag pointer."""
    k = cand[i]
    return any(
        j != i and not is_red(pixels[j]) and abs((k - o) % N_ANG - N_ANG // 2) > TAIL_BINS for j, o in enumerate(cand)
    )


def is_red(p: np.ndarray) -> bool:
    """The pointer's pixels are red (a drag or set pointer's colour), not orange, yellow or blue."""
    if not len(p) or chroma(p) < COLOURED_MIN:
        return False
    return abs(_hue(p)) <= RED_HUE_DEG


def _faded_red(p: np.ndarray) -> bool:
    """The pointer's pixels are a washed-out red: some colour, of red's hue (their median's channels
    apart by more than noise: a black pointer's hue is noise's)."""
    if not len(p) or chroma(p) < FADED_RED_MIN:
        return False
    med = np.median(p, axis=0)
    return float(med.max() - med.min()) >= FADED_SPREAD_MIN and abs(_hue(p)) <= RED_HUE_DEG


def _far_from_red(p: np.ndarray) -> bool:
    """The pointer's pixels are of a colour whose hue is far from red's: no red washed out or shaded."""
    return len(p) > 0 and chroma(p) >= COLOURED_MIN and abs(_hue(p)) >= OTHER_HUE_DEG


def _hue(p: np.ndarray) -> float:
    """Hue (deg, -180..180, 0 red) of the median of the pixels."""
    r, g, b = np.median(p, axis=0)
    return math.degrees(math.atan2(math.sqrt(3.0) * (g - b), 2.0 * r - g - b))


def _same_colour(p: np.ndarray, q: np.ndarray) -> bool:
    """Two rays' pixels of one colour, lit alike or not: both neutral, or both coloured of a hue
    (a needle's tail in the hub's shade is its blade's hue, darker)."""
    cp, cq = chroma(p), chroma(q)
    if cp < COLOURED_MIN and cq < COLOURED_MIN:
        return True
    if cp < NEUTRAL_MAX or cq < NEUTRAL_MAX or not len(p) or not len(q):
        return False
    d = abs(_hue(p) - _hue(q)) % 360.0
    return min(d, 360.0 - d) <= SAME_HUE_DEG


def value_pointer(
    cand: list[int], run: np.ndarray, pixels: list[np.ndarray], pivoted: bool, drag: bool = False
) -> int | str:
    """The value pointer among the pointers, or why none. Several: the one neutral in colour
    when the others are coloured, else the one not red when the others are red (drag or set
    pointers are red). One: any but a red one; a red one only on a pivot (a hub seen at the
    dial's centre, or its own tail: a drag pointer is drawn from under the needle's hub).
    ``drag``: the gauge is stated to have a coloured drag or set pointer, so a coloured pointer is
    never the value (its needle hidden or broken, the drag pointer alone would be read), nor is
    one washed out to a faint red (fog, blur): beside one grey pointer, that one is the needle.
    With a red pointer seen (the stated one), a pointer of a hue far from red's is a needle too;
    of several, one reaching the scale among short ones of its colour (its tail, its blade's
    edge) is the needle."""
    if not cand:
        return "no pointer found"
    if drag:
        # the drag pointer seen, red: a pointer of a hue far from red's (a blue, a green needle) is
        # none of it; without a red one seen, any coloured pointer may be the stated one
        red_seen = any(is_red(p) for p in pixels)
        plain = [
            k
            for k, p in zip(cand, pixels, strict=True)
            if not is_red(p) and (chroma(p) < COLOURED_MIN or (red_seen and _far_from_red(p)))
        ]
        if not plain:
            return DRAG_ONLY
        if len(plain) == 1:  # unless it is a washed-out red: the drag pointer, the needle unseen
            return DRAG_ONLY if _faded_red(pixels[cand.index(plain[0])]) else plain[0]
        # one of them reaching the scale, the others short of its colour: its blade's edge, its tail
        at = {k: p for k, p in zip(cand, pixels, strict=True)}
        reach = [k for k in plain if run[k] >= TIP_RUN]
        if len(reach) == 1 and all(
            run[k] < SHORT_RUN and _same_colour(at[k], at[reach[0]]) for k in plain if k != reach[0]
        ):
            return reach[0]
        # the drag pointer's red washed out (fog, blur, few px mixing it with the face) keeps its
        # hue: one grey pointer among long faded red ones is the needle
        chr_ = {k: chroma(p) for k, p in zip(cand, pixels, strict=True) if k in plain}
        grey = [k for k in plain if chr_[k] < FADED_GREY_MAX]
        faded = [k for k, p in zip(cand, pixels, strict=True) if k in plain and _faded_red(p)]
        if (
            len(grey) == 1
            and len(grey) + len(faded) == len(plain)
            and all(run[k] >= DRAG_RUN and chr_[k] >= FADED_RATIO * chr_[grey[0]] for k in faded)
        ):
            return grey[0]
        return "several pointers, value pointer ambiguous"
    chromas = [chroma(p) for p in pixels]
    long = [i for i, k in enumerate(cand) if run[k] >= TIP_RUN]
    others = [i for i in range(len(cand)) if i != (long[0] if long else -1)]
    if (
        len(long) == 1
        and not is_red(pixels[long[0]])
        and all(run[cand[i]] < SHORT_RUN and not is_red(pixels[i]) for i in others)
    ):
        return cand[long[0]]  # one needle reaching the scale, not red, the other rays short: labels, strokes
    if len(cand) == 1:
        if is_red(pixels[0]) and not pivoted:
            return "only a red pointer, value pointer ambiguous"
        return cand[0]
    neutral = [k for k, c in zip(cand, chromas, strict=True) if c < NEUTRAL_MAX]
    coloured = [k for k, c in zip(cand, chromas, strict=True) if c >= COLOURED_MIN]
    if len(neutral) == 1 and len(neutral) + len(coloured) == len(cand) and all(run[k] >= DRAG_RUN for k in coloured):
        return neutral[0]  # the others drag or set pointers: long, coloured (a stub may be the needle)
    not_red = [k for k, p in zip(cand, pixels, strict=True) if not is_red(p)]
    red = [k for k in cand if k not in not_red]
    if len(not_red) == 1 and all(run[k] >= DRAG_RUN for k in red):
        return not_red[0]
    return "several pointers, value pointer ambiguous"


def refine(ink: np.ndarray, k: int, r0: float, r1: float, bound: float) -> float:
    """The pointer's angle: ink-weighted mean angle over +-4 deg at the outer half of its run."""
    js = np.arange(int((r0 + r1) / 2 * 100), int(r1 * 100))
    ks = np.arange(k - 8, k + 9)
    w = np.clip(ink[np.mod(ks, N_ANG)][:, js] - 0.5 * bound, 0, None).sum(axis=1)
    if w.sum() <= 0:
        return float(angle_of_bin(k))
    return float((angle_of_bin(ks) * w).sum() / w.sum()) % 360.0


def off_pivot(
    dial: Dial, local: np.ndarray, wide_canon: np.ndarray, bound: float, r_in: float, drag: bool
) -> tuple[float | str, float, float] | None:
    """Where the value pointer, found as a ray about its own hub (a filled disc of ink off the
    dial's centre by ``PIVOT_OFF`` R), meets the tick ring: its angle about the centre, or why not;
    with the hub's offset (R, y up). None when no such hub is seen."""
    c, w = OUT, int(PIVOT_OFF[1] * CANON) + int(HUB_DISC * CANON) + 2
    patch = dial.canon[c - w : c + w + 1, c - w : c + w + 1]
    ink_w = np.sqrt(((patch - wide_canon[c - w : c + w + 1, c - w : c + w + 1]) ** 2).sum(axis=2) / 3.0)
    on = (ink_w > bound).astype(np.float32)
    got = disc(on, HUB_DISC)
    if got == "spread":  # a blade wide at its base beside the cap: the cap is the widest disc
        got = widest_disc(on) or got
    if not isinstance(got, tuple):
        return None
    dx, dy = got[0] - w, got[1] - w
    off = math.hypot(dx, dy) / CANON
    if not PIVOT_OFF[0] <= off <= PIVOT_OFF[1]:
        return None
    at = (dx, dy)
    polar_rgb = polar(dial.canon, at)
    ink = np.sqrt(((polar_rgb - polar(local, at)) ** 2).sum(axis=2)) / math.sqrt(3.0)
    ink_wide = np.sqrt(((polar_rgb - polar(wide_canon, at)) ** 2).sum(axis=2)) / math.sqrt(3.0)
    if dial.seen is not None:
        unseen = polar(dial.seen, at) < SEEN_MIN
        ink[unseen] = 0.0
        ink_wide[unseen] = 0.0
    ink_ptr = np.maximum(ink, ink_wide)
    r0, r1 = 0.18, max(0.35, r_in - off - 0.04)  # inside the tick ring on every bearing
    j0, j1 = int(r0 * 100), int(r1 * 100)
    radii = np.arange(N_RAD) / 100.0
    inner = ink_ptr[:, j0:j1]
    run = run_from_hub(smooth_ang(thin(inner, polar_rgb[:, j0:j1], radii[j0:j1], bound), 3) > 0.3)
    raw = [k for k in peaks(run, MIN_RAY, 16) if run[k] >= MIN_RAY]
    raw_px = [ray_pixels(polar_rgb[:, j0:j1], inner, k, bound) for k in raw]
    cand = pointers(raw, run, raw_px)
    got_k = value_pointer(cand, run, [raw_px[raw.index(k)] for k in cand], True, drag)
    xy = (dx / CANON, -dy / CANON)
    if isinstance(got_k, str):
        return got_k, *xy
    if run[got_k] < TIP_RUN:
        return "pointer tip not visible", *xy
    # where the needle's line meets the tick ring, about the scale's centre: what its tip points at
    u = math.radians(_direction(ink, got_k, r0, r1, bound))
    ux, uy = math.cos(u), math.sin(u)
    pb = xy[0] * ux + xy[1] * uy
    t = -pb + math.sqrt(max(pb * pb - (xy[0] ** 2 + xy[1] ** 2 - r_in**2), 0.0))
    return math.degrees(math.atan2(xy[1] + t * uy, xy[0] + t * ux)) % 360.0, *xy


def _direction(ink: np.ndarray, k: int, r0: float, r1: float, bound: float) -> float:
    """The pointer's direction: the axis of its ink over +-4 deg of ray ``k`` from ``r0`` to ``r1``
    (a line's direction, right even when the pivot found is a little off it)."""
    js = np.arange(int(r0 * 100), int(r1 * 100))
    ks = np.arange(k - 8, k + 9)
    wgt = np.clip(ink[np.mod(ks, N_ANG)][:, js] - 0.5 * bound, 0, None)
    if wgt.sum() <= 0:
        return float(angle_of_bin(k))
    a = np.radians(angle_of_bin(ks))[:, None]
    x, y = js[None, :] * np.cos(a), js[None, :] * np.sin(a)
    mx, my = (wgt * x).sum() / wgt.sum(), (wgt * y).sum() / wgt.sum()
    cxx, cyy, cxy = (wgt * (x - mx) ** 2).sum(), (wgt * (y - my) ** 2).sum(), (wgt * (x - mx) * (y - my)).sum()
    axis = 0.5 * math.degrees(math.atan2(2 * cxy, cxx - cyy))
    ray = float(angle_of_bin(k))
    return axis % 360.0 if abs((axis - ray + 180.0) % 360.0 - 180.0) <= 90.0 else (axis + 180.0) % 360.0
