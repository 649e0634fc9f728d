"""A dial reader that finds and models the dial from the image: read the value, or abstain.

It gets the image and what a technician knows of the gauge (``DialSpec``: range, unit, sweep
direction, optionally the arc's end angles), never a drawing layout:

1. The dial: the largest well-supported ellipse (elliptic edge contours, Hough circles), its
   pivot (a filled disc of ink near the middle) as the image of its centre; with both the
   perspective is undone (``_to_canon``: the centre's polar is the vanishing line), the image's
   vertical kept vertical, and the dial is a circle of ``CANON`` px radius. No panel is needed.
   A dial with no rim of its own (printed on a plate), or whose rim is not its scale's: when the
   reading abstains for want of a scale (or of one clear pointer), the dial is found again from its
   ticks (``_dial_from_ticks``): the lines of the short, radial edges (not long straight ones: a
   plate's, a pipe's, the needle's) meet at the pivot from most directions; the ring's radius is
   where those edges are densest; that circle is read in turn (unless it is the ring already read,
   and not on a lone red pointer beside another ray from the hub: a needle whose blade is hidden).
2. Ink, whatever the polarity: the face's colour around each point is its median over 0.15 R;
   ink is every pixel far from it (dark on light, light on dark, a coloured pointer alike); for
   the pointers also far from the median over 0.37 R (a blade wide at its hub is its own local
   median). Outside the picture nothing is ink.
3. The tick ring: the band of radii (0.45-1.3 R: the circle found may be a bezel's inner edge, a
   plate's arc line) whose angular profile is most "ticky" (narrow marks over the ring); its marks
   are the ticks, their largest gap is the part of the dial without a scale (or, when a cover hides
   one end, the gap spanning 6 o'clock). No hub seen (or one clearly off the ticks' circle): the
   circle through the ticks' ends gives the centre and the dial is rectified again about it. The
   ticks' pitch (the largest spacing of which nearly every gap is a whole multiple) and a
   least-squares fit of tick index against angle give the arc: a standard sweep centred at 12
   o'clock; else, any sweep turned anywhere, from where the ticks stop, when both end ticks are
   majors (longer marks on a regular lattice), the face shows clear beyond both ends and the range
   divides into round majors (a standard sweep at 12 o'clock bent a few degrees by a view not quite
   undone: both end ticks majors of a round scale suffice); then the value is read between the
   ticks either side of the pointer, a mark off the lattice its neighbours set (a needle crossing
   the ring) left out. The face file's angles, when given, are the arc.
4. The pointers: rays of ink from the hub outward (a radial run, not a numeral's blob) inside
   the tick ring; a shorter ray of the same colour opposite or beside a longer one is its tail or
   its blade's edge, a stub barely out of the hub (unless red) is none. One needle reaching the
   scale among short rays, not red: the value pointer. Several: the one neutral in colour when the
   others are long coloured ones, else the one not red when the others are long red ones (drag
   pointers); a lone red pointer only on a hub; otherwise abstain as ambiguous. A gauge stated to
   have a drag or set pointer (``DialSpec.drag_pointer``, a technician sees it): a coloured
   pointer is never the value, and with no other the reader abstains (a broken or hidden needle
   beside its drag pointer; unstated, a lone red pointer on a hub is read as the needle, since
   red needles are common). Abstaining so, or
   finding no pointer, the pointers are looked for again about a hub (a filled disc of ink) off the
   scale's centre (a needle raised above the face, seen at an angle): the value is where the line
   of the needle found there meets the tick ring, what its tip points at.
5. Abstain whenever this cannot be met: no dial, polarity unclear, too few ticks, an arc that
   is no gauge's arc or whose ends are in doubt, no pointer or its tip not reaching the scale
   (the picture's edge is no ink), the pointer off the scale, too few pixels per 2 % of the span.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

CANON = 200  # rectified dial radius, px
N_ANG = 720  # 0.5 deg bins
N_RAD = 140  # radial samples, 0 .. 1.4 R (a plate's ticks may lie outside the circle found)
WORK_PX = 640  # the image is reduced to at most this many px on its long side
STANDARD_SWEEPS = (90.0, 180.0, 240.0, 270.0, 300.0)
SWEEP_TOL = 5.0  # deg: a found arc within this (and 0.4 pitch) of a standard sweep is taken as that sweep
CENTRE_TOL = 6.0  # deg: the scale's middle off 12 o'clock (the image's vertical leans in a perspective view)
BLADE_MEDIAN_PX = 75  # canonical px: the face's median around a pointer wider than the ink's window
PIVOT_SAMPLES, PIVOT_FILL = 3, 0.9  # radial samples (0.03 R) about the centre nearly all ink: a pivot
MIN_RAY = 0.1  # share of hub-to-ticks a ray of ink must cover to count as a pointer (a broken one too)
NEUTRAL_MAX, COLOURED_MIN = 0.22, 0.35  # (max - min) / (max + 10) of a pointer's pixels: black/white vs red
HUB_DISC = 0.04  # radius (of R) of the filled disc looked for as the pointer's pivot
HUB_WIDE = (0.035, 0.12)  # R: radii of the widest disc of ink taken for a hub cap on a second look
HUB_INK = 0.5  # ink over this share of the strongest near the middle makes up the hub
HUB_CLOSE = 7  # px: holes this small in a hub (a highlight) are closed on a second look
HUB_AROUND = (1.4, 2.0)  # radii (of the disc's) of the annulus where the face must show around a large hub
HUB_AROUND_INK = 0.5  # ... at most this share of it ink (a blade's base and its tail cross it)
HUB_RIDGE, HUB_SPREAD = 0.9, 0.02  # the widest disc's centres (over this share of its radius) lie within this (R)
RECENTRE_TICKS = 10  # ticks needed to find the dial's centre from the tick ring
RECENTRE_MARGIN = 12  # radial samples beyond the ring's band where a tick's end may lie
RECENTRE_FIT = 0.02  # R: median distance of the ticks' ends from their circle, at most
RECENTRE_MIN, RECENTRE_MAX = 0.01, 0.25  # R: the tick ring's centre this far off is read about
RECENTRE_HUB_MIN = 0.05  # R: ... this far off when a hub was seen
ZONE_FACE_SHARE = 0.3  # quantile of the ring's radii, per angle, that must still show the face in a coloured zone
ZONE_CHROMA = 0.5  # a coloured zone's chroma, at least (a red band; skin and shadows are less)
SEEN_MIN = 0.99  # share of a canonical px's neighbourhood inside the picture for it to count as seen
DRAG_ONLY = "only the drag pointer seen, not the needle"
SCALE_REASONS = ("no dial found", "no tick ring found", "fewer than 6 ticks visible", "ticks too irregular",
                 "arc ends not clear", "dial centre unclear", "several pointers, value pointer ambiguous",
                 "only a red pointer, value pointer ambiguous")  # fmt: skip
# ... a dial found from its ticks' lines (no rim; a pivot off the rim's centre) is tried on these
VOTE_SHORT = 0.12  # an edge (Canny) this long (of the picture's side), at most: a mark's, it votes for the pivot
VOTE_STRAIGHT = 0.12  # ... or one on no straight run of edge this long (of the picture's short side)
VOTE_MAX_PX = 6000  # at most this many of them (a random sample)
VOTE_CELL = 2  # px: the vote's grid
VOTE_MIN_PX = 4  # px: an edge votes along its line from this far (its own neighbourhood is no centre)
SAME_RING = 0.1  # of its radius: a ring found from the ticks this close to the first dial's is that one
VOTE_SECTORS = 8  # directions a vote comes from: a centre met from many is a ring's, not a line's
RING_MIN, RING_MAX = 0.45, 1.3  # radii (of R) where the tick ring may lie: the circle found may be a
# bezel's inner edge (ticks inside it) or a plate's arc line or numeral ring (ticks outside it)
SIDE_PX = 9.0  # canonical px beside a pointer where the face must show, both sides
SIDE_PX_ALL = (SIDE_PX, 2 * SIDE_PX, 3.5 * SIDE_PX)  # ... or farther: a tapered blade is wide near its hub
RED_HUE_DEG = 15.0  # hue within this of pure red: a drag pointer's red (orange is about 30)
SAME_BLADE_BINS = 24  # angle bins (12 deg) beside or off straight opposite a longer ray: part of its needle
TAIL_BINS = 70  # angle bins (35 deg) off straight opposite within which a shorter ray may be a (wide) tail
SAME_HUE_DEG = 30.0  # hue difference within which two coloured rays are of one colour
STUB_RUN = 0.25  # a ray from the hub shorter than this share of hub-to-ticks is no pointer
SHORT_RUN = 0.5  # ... shorter than this, beside one not-red needle reaching the scale: a label's stroke
TIP_RUN = 0.8  # ... this long: a pointer whose tip reaches the scale
DRAG_RUN = 0.5  # ... this long, coloured, beside the needle: a drag pointer (shorter: maybe the needle, hidden)
ARC_MIN, ARC_MAX = 170.0, 315.0  # deg: sweeps an arc read from where its ticks stop may have
MIN_CLEAR_DEG = 12.0  # deg of face, clear of any cover, beyond each end of an arc read from its ticks
END_MIN_LEN = 0.5  # an end tick of an arc read from its ticks is at least this share of the median tick long
END_MAJOR = 0.8  # an end tick is at least this share of the median major's length
PIVOT_RETRY = ("several pointers, value pointer ambiguous", "only a red pointer, value pointer ambiguous",
               "no pointer found")  # fmt: skip
# ... the pointers are looked for again about a hub off the centre on these
PIVOT_OFF = (0.03, 0.2)  # R: a needle's hub this far off the scale's centre (a raised needle seen at an angle)
OFF_LATTICE = 0.3  # pitch: a mark this far off where its neighbours put it is no tick of the scale
MAX_MINORS = 10  # ticks per major interval, at most
MAJOR_SEP = 1.15  # a major mark's length over the median of the marks around it
LOCAL_TICKS = 5  # marks either side that set that median
MAJOR_HIT, MAJOR_FALSE = 0.7, 0.15  # share of a major period's marks that stand out; of the others
ROUND_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)  # mantissas of a scale's value per major interval


@dataclass(frozen=True)
class DialSpec:
    """What a technician states about a dial: angles in degrees counter-clockwise from 3 o'clock."""

    lo: float
    hi: float
    unit: str
    clockwise: bool = True  # the value grows clockwise
    arc_start_deg: float | None = None  # angle of ``lo`` on the dial, when stated
    arc_end_deg: float | None = None  # angle of ``hi``
    drag_pointer: bool = False  # the gauge has a coloured drag (max) or set pointer: never the value

    @property
    def span(self) -> float:
        return self.hi - self.lo


@dataclass(frozen=True)
class DialReading:
    value: float | None
    uncertainty: float | None
    unit: str
    reason: str = ""
    evidence: dict[str, float] = field(default_factory=dict)


Ellipse = tuple[Sequence[float], Sequence[float], float]  # cv2.fitEllipse: centre, axes, angle


@dataclass(frozen=True)
class _TickScale:
    """An arc read from its ticks: its ends, and each tick seen with its share of the range."""

    start: float  # angle of lo, deg
    sweep: float  # deg, positive in the value's direction
    first: float  # angle of the scale's counter-clockwise-first tick, deg
    at: np.ndarray  # ticks' angles, deg counter-clockwise from ``first``, increasing
    share: np.ndarray  # their share of the scale counted counter-clockwise (0 at ``first``, 1 at the last)

    def frac(self, deg: float, clockwise: bool) -> float:
        """The pointer's share of the range at ``deg``, between the ticks seen either side of it
        (a little past an end: along the end's pitch)."""
        off = (deg - self.first) % 360.0
        if off > self.at[-1] + 0.5 * (360.0 - self.at[-1]):
            off -= 360.0
        if off < 0:
            ccw = off * self.share[1] / self.at[1]
        elif off > self.at[-1]:
            ccw = 1.0 + (off - self.at[-1]) * (1.0 - self.share[-2]) / (self.at[-1] - self.at[-2])
        else:
            ccw = float(np.interp(off, self.at, self.share))
        return 1.0 - ccw if clockwise else ccw


@dataclass(frozen=True)
class _Dial:
    canon: np.ndarray  # rectified RGB float32 (2C+1, 2C+1, 3), dial centred, radius CANON
    px_scale: float  # image px per canonical px (the smaller axis of the ellipse)
    hub: bool = False  # a filled disc of ink (a pointer's pivot) was seen at the centre
    seen: np.ndarray | None = None  # canonical px inside the picture (1.0), outside it (0.0)
    ell: Ellipse | None = None  # the dial's rim in the (work-size) image
    g: np.ndarray | None = None  # homography image -> canonical px
    from_ticks: bool = False  # the circle of its ticks (no rim): a standard sweep too is read between ticks


def read_dial(image: np.ndarray, spec: DialSpec, min_contrast: float = 20.0, noise_k: float = 4.0) -> DialReading:
    """Read ``image`` (H, W, 3 uint8 RGB) of a dial described by ``spec``."""
    ev: dict[str, float] = {}

    def abstain(reason: str) -> DialReading:
        return DialReading(None, None, spec.unit, reason, ev)

    rgb = np.ascontiguousarray(image, dtype=np.uint8)
    scale = min(1.0, WORK_PX / max(rgb.shape[:2]))
    if scale < 1.0:
        rgb = np.asarray(cv2.resize(rgb, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    dial = _find_dial(rgb)
    first = abstain("no dial found") if dial is None else _read_about(rgb, dial, spec, ev, min_contrast, noise_k, scale)
    if first.value is not None or first.reason not in SCALE_REASONS:
        return first
    # no rim, or a rim that is not the scale's (a printed dial on a plate): the dial from its ticks
    # (radial marks whose lines meet at the pivot), read again; the first reason stands otherwise
    alt = _dial_from_ticks(rgb)
    if alt is None or (dial is not None and _same_ring(dial, ev, alt, scale)):
        return first  # the same ring again: nothing new to read
    ev_alt: dict[str, float] = {"from_ticks": 1.0}
    got = _read_about(rgb, alt, spec, ev_alt, min_contrast, noise_k, scale)
    # on this second look a lone red pointer beside another ray (a needle's base, its blade hidden)
    # is not taken for the needle
    if got.value is None or ev_alt.get("pointer_red", 0.0) >= 1.0:
        return first
    return got


def _read_about(
    rgb: np.ndarray, dial: _Dial, spec: DialSpec, ev: dict[str, float], min_contrast: float, noise_k: float,
    scale: float,
) -> DialReading:  # fmt: skip
    got = _read(dial, spec, ev, min_contrast, noise_k, scale)
    if isinstance(got, tuple):  # no hub seen: the tick ring's centre is the dial's, read again about it
        ev.update(recentred_x=got[0], recentred_y=got[1])
        got = _read(_recentred(rgb, dial, got), spec, ev, min_contrast, noise_k, scale, recentre=False)
    if isinstance(got, tuple):
        return DialReading(None, None, spec.unit, "dial centre unclear", ev)
    return got


def _read(
    dial: _Dial, spec: DialSpec, ev: dict[str, float], min_contrast: float, noise_k: float, scale: float,
    recentre: bool = True,
) -> DialReading | tuple[float, float]:  # fmt: skip
    """The reading of a found dial, or (no hub seen, ``recentre``) the tick ring's centre to read about."""

    def abstain(reason: str) -> DialReading:
        return DialReading(None, None, spec.unit, reason, ev)

    ev["radius_px"] = dial.px_scale * CANON / scale
    polar_rgb = _polar(dial.canon)  # (N_ANG, N_RAD, 3)
    face_rgb = np.median(polar_rgb[:, 25:85].reshape(-1, 3), axis=0)
    # ink: RGB distance from the face around it (its median over 0.15 R), so a shadow's edge or a
    # glare's slope across the dial is face, not ink
    local = cv2.medianBlur(np.clip(dial.canon, 0, 255).astype(np.uint8), 31).astype(np.float32)
    ink = np.sqrt(((polar_rgb - _polar(local)) ** 2).sum(axis=2)) / math.sqrt(3.0)
    # outside the picture nothing is seen: no ink there (the warp's replicated border would draw
    # long false marks and pointers), and the tick ring there counts as covered
    unseen = _polar(dial.seen) < SEEN_MIN if dial.seen is not None else np.zeros(ink.shape, bool)
    ink[unseen] = 0.0
    noise = _noise(dial.canon)
    bound = max(min_contrast, noise_k * noise)
    ev.update(noise=noise, bound=bound, face_grey=float(face_rgb.mean()))
    # --- tick ring
    hp = ink - _smooth_ang(ink, 31)  # narrow marks along the ring stand out of their surroundings
    energy = np.clip(hp, 0, None)
    marked = (hp > bound).mean(axis=0)
    ring = energy.mean(axis=0) * (marked > 0.02)
    radii = np.arange(N_RAD) / 100.0
    ring[(radii < RING_MIN) | (radii > RING_MAX)] = 0.0
    j = int(np.argmax(ring))
    if ring[j] <= 0:
        return abstain("no tick ring found")
    band = [k for k in range(N_RAD) if ring[k] >= 0.5 * ring[j]]
    lo_j = hi_j = j
    while lo_j - 1 in band:
        lo_j -= 1
    while hi_j + 1 in band:
        hi_j += 1
    r_in, r_out = radii[lo_j], radii[hi_j]
    ev.update(tick_r_in=float(r_in), tick_r_out=float(r_out))
    prof = hp[:, lo_j : hi_j + 1].mean(axis=1)
    ticks = _peaks(prof, bound * 0.5, 3)
    fit = _ring_centre(hp, ticks, lo_j, hi_j, bound)
    if fit is not None:
        ev.update(ring_cx=fit[0], ring_cy=fit[1], ring_fit=fit[2])
    if recentre and dial.ell is not None and fit is not None and fit[2] <= RECENTRE_FIT:
        # off the tick ring's centre: no hub seen (the rim's centre is no pivot), or a hub seen
        # clearly elsewhere (a cap's highlight, a needle's base taken for the pivot)
        off = math.hypot(fit[0], fit[1])
        if (RECENTRE_HUB_MIN if dial.hub else RECENTRE_MIN) <= off <= RECENTRE_MAX:
            return fit[0], fit[1]
    ev["ticks_seen"] = float(len(ticks))
    if len(ticks) < 6:
        return abstain("fewer than 6 ticks visible")
    # --- pointers: runs of ink from the hub outward, inside the tick ring
    r0, r1 = 0.18, max(0.35, r_in - 0.04)
    j0, j1 = int(r0 * 100), int(r1 * 100)
    # a blade wide at its hub is its own local median there: against the face's median over a
    # wider window it is ink again
    canon_u8 = np.clip(dial.canon, 0, 255).astype(np.uint8)
    wide_canon = _coarse_median(canon_u8, BLADE_MEDIAN_PX)
    wide_local = _polar(wide_canon)
    ink_wide = np.sqrt(((polar_rgb - wide_local) ** 2).sum(axis=2)) / math.sqrt(3.0)
    ink_wide[unseen] = 0.0
    ink_ptr = np.maximum(ink, ink_wide)
    inner = ink_ptr[:, j0:j1]
    thin = _thin(inner, polar_rgb[:, j0:j1], radii[j0:j1], bound)  # ink with the face beside it
    wide = _smooth_ang(thin, 3) > 0.3  # a pointer 1-2 bins wide
    run = _run_from_hub(wide)  # (N_ANG,) fraction of [r0, r1] covered from r0 outward
    cand = [k for k in _peaks(run, MIN_RAY, 16) if run[k] >= MIN_RAY]  # every ray from the hub, short ones too
    # a pointer crossing the ring is no tick (a tick under it is left out: a hidden tick is allowed)
    ticks = [t for t in ticks if all(min(abs(t - k), N_ANG - abs(t - k)) > 4 for k in cand)]
    # where the tick ring is covered by something that is not the face (an occluder, a shattered patch)
    ring_rgb = np.median(polar_rgb[:, lo_j : hi_j + 1], axis=1)
    hidden = np.sqrt(((ring_rgb - face_rgb) ** 2).sum(axis=1) / 3.0) > bound
    hidden &= ~_zone(polar_rgb[:, lo_j : hi_j + 1], face_rgb, bound)
    hidden = _covers(_smooth_ang(hidden.astype(np.float32), 5) > 0.5, ticks) | unseen[:, lo_j : hi_j + 1].any(axis=1)
    # a mark at the edge of a covered stretch is that cover's edge, not a tick
    near_cover = _smooth_ang(hidden.astype(np.float32), 9) > 0
    ticks = [t for t in ticks if not near_cover[t]]
    ang = _angle_of_bin(np.array(ticks, float))
    strength = prof[np.array(ticks, int)] if ticks else np.zeros(0)
    arc = _arc(ang, strength, spec, hidden, _tick_lengths(hp, ticks, lo_j, hi_j, bound), dial.from_ticks)
    if isinstance(arc, str):
        return abstain(arc)
    table = arc if isinstance(arc, _TickScale) else None
    start, sweep = (arc.start, arc.sweep) if isinstance(arc, _TickScale) else arc
    # start: angle of lo; sweep: positive deg in the value's direction
    ev.update(arc_start_deg=start, sweep_deg=sweep, arc_from_ticks=float(table is not None))
    raw, raw_px = cand, [polar_rgb[k, j0:j1][inner[k] > bound] for k in cand]
    cand = _pointers(raw, run, raw_px)
    # a pointer on a pivot: a hub seen, a disc of ink at the (tick ring's) centre, or its own tail
    # past the centre (a drag pointer, a thin line from under the needle's hub, has none of them)
    pivoted = (
        dial.hub
        or float((ink_ptr[:, :PIVOT_SAMPLES] > bound).mean()) >= PIVOT_FILL
        or (len(cand) == 1 and _has_tail(raw.index(cand[0]), raw, run, raw_px))
    )
    ev["pointers"] = float(len(cand))
    if len(cand) == 1 and _is_red(raw_px[raw.index(cand[0])]):
        ev["pointer_red"] = 1.0 if _beside(raw.index(cand[0]), raw, raw_px) else 0.5
    got = _value_pointer(cand, run, [polar_rgb[k, j0:j1][inner[k] > bound] for k in cand], pivoted, spec.drag_pointer)
    first_why = ""
    if isinstance(got, str) and got in PIVOT_RETRY:
        # the needle on a pivot off the scale's centre (raised above the face, seen at an angle):
        # its rays are no rays about the centre; about its own hub they are, and where its line
        # meets the tick ring is the reading
        # (failing there too, the first reason stands: a dial found from its ticks may follow)
        off_hub = _off_pivot(dial, local, wide_canon, bound, r_in, spec.drag_pointer)
        if off_hub is None or isinstance(off_hub[0], str):
            return abstain(got)
        ev.update(pivot_x=off_hub[1], pivot_y=off_hub[2])
        first_why, deg = got, off_hub[0]
    elif isinstance(got, str):
        return abstain(got)
    else:
        k = got
        ev["pointer_run"] = float(run[k])
        if run[k] < TIP_RUN:
            return abstain("pointer tip not visible")
        deg = _refine(ink, k, r0, r1, bound)
    ev["pointer_deg"] = deg
    off = ((start - deg) if spec.clockwise else (deg - start)) % 360.0
    if off > sweep + 0.5 * (360.0 - sweep):
        off -= 360.0
    frac = off / sweep if table is None else table.frac(deg, spec.clockwise)
    if not -0.03 <= frac <= 1.03:
        return abstain(first_why or "pointer outside the scale")
    px = ev["radius_px"] * r1 * math.radians(0.02 * sweep)
    ev["px_per_2pct"] = px
    if px < 1.0:
        return abstain("resolution too low")
    value = spec.lo + frac * spec.span
    sigma_deg = math.hypot(0.5, 0.5 * 0.02 * sweep / px, float(ev.get("tick_fit_deg", 0.3)))
    return DialReading(value, sigma_deg / sweep * abs(spec.span), spec.unit, "", ev)


def _off_pivot(
    dial: _Dial, local: np.ndarray, wide_canon: np.ndarray, bound: float, r_in: float, drag: bool
) -> tuple[float | str, float, float] | None:
    """Where the value pointer, found as a ray about its own hub (a filled disc of ink off the
    dial's centre by ``PIVOT_OFF`` R), meets the tick ring: its angle about the centre, or why not;
    with the hub's offset (R, y up). None when no such hub is seen."""
    c, w = OUT, int(PIVOT_OFF[1] * CANON) + int(HUB_DISC * CANON) + 2
    patch = dial.canon[c - w : c + w + 1, c - w : c + w + 1]
    ink_w = np.sqrt(((patch - wide_canon[c - w : c + w + 1, c - w : c + w + 1]) ** 2).sum(axis=2) / 3.0)
    on = (ink_w > bound).astype(np.float32)
    got = _disc(on, HUB_DISC)
    if got == "spread":  # a blade wide at its base beside the cap: the cap is the widest disc
        got = _widest_disc(on) or got
    if not isinstance(got, tuple):
        return None
    dx, dy = got[0] - w, got[1] - w
    off = math.hypot(dx, dy) / CANON
    if not PIVOT_OFF[0] <= off <= PIVOT_OFF[1]:
        return None
    at = (dx, dy)
    polar_rgb = _polar(dial.canon, at)
    ink = np.sqrt(((polar_rgb - _polar(local, at)) ** 2).sum(axis=2)) / math.sqrt(3.0)
    ink_wide = np.sqrt(((polar_rgb - _polar(wide_canon, at)) ** 2).sum(axis=2)) / math.sqrt(3.0)
    if dial.seen is not None:
        unseen = _polar(dial.seen, at) < SEEN_MIN
        ink[unseen] = 0.0
        ink_wide[unseen] = 0.0
    ink_ptr = np.maximum(ink, ink_wide)
    r0, r1 = 0.18, max(0.35, r_in - off - 0.04)  # inside the tick ring on every bearing
    j0, j1 = int(r0 * 100), int(r1 * 100)
    radii = np.arange(N_RAD) / 100.0
    inner = ink_ptr[:, j0:j1]
    run = _run_from_hub(_smooth_ang(_thin(inner, polar_rgb[:, j0:j1], radii[j0:j1], bound), 3) > 0.3)
    raw = [k for k in _peaks(run, MIN_RAY, 16) if run[k] >= MIN_RAY]
    cand = _pointers(raw, run, [polar_rgb[k, j0:j1][inner[k] > bound] for k in raw])
    got_k = _value_pointer(cand, run, [polar_rgb[k, j0:j1][inner[k] > bound] for k in cand], True, drag)
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
        return float(_angle_of_bin(k))
    a = np.radians(_angle_of_bin(ks))[:, None]
    x, y = js[None, :] * np.cos(a), js[None, :] * np.sin(a)
    mx, my = (wgt * x).sum() / wgt.sum(), (wgt * y).sum() / wgt.sum()
    cxx, cyy, cxy = (wgt * (x - mx) ** 2).sum(), (wgt * (y - my) ** 2).sum(), (wgt * (x - mx) * (y - my)).sum()
    axis = 0.5 * math.degrees(math.atan2(2 * cxy, cxx - cyy))
    ray = float(_angle_of_bin(k))
    return axis % 360.0 if abs((axis - ray + 180.0) % 360.0 - 180.0) <= 90.0 else (axis + 180.0) % 360.0


# ------------------------------------------------------------------------------ the dial
def _find_dial(rgb: np.ndarray) -> _Dial | None:
    grey = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    h, w = grey.shape
    g = cv2.GaussianBlur(grey, (0, 0), 1.5)
    lo, hi = np.percentile(g, (1, 99))
    if hi - lo >= 8:  # dim light: stretch so the rim's edges reach Canny's thresholds
        g = np.clip((g.astype(np.float32) - lo) * (255.0 / (hi - lo)), 0, 255).astype(np.uint8)
    edges = cv2.Canny(g, 40, 100)
    cands: list[Ellipse] = []
    circles = cv2.HoughCircles(
        g, cv2.HOUGH_GRADIENT, dp=1.5, minDist=min(h, w) / 4, param1=80, param2=30,
        minRadius=int(0.08 * min(h, w)), maxRadius=int(0.55 * max(h, w)),
    )  # fmt: skip
    for cx, cy, r in [] if circles is None else circles[0][:5]:
        ell = _fit_ellipse(edges, float(cx), float(cy), float(r))
        if ell is not None:
            cands.append(ell)
    cands += _contour_ellipses(edges, min(h, w), max(h, w))
    best: tuple[float, Ellipse] | None = None
    for ell in cands:
        (_, _), (a0, a1), _ = ell
        if min(a0, a1) < 0.4 * max(a0, a1) or min(a0, a1) < 0.16 * min(h, w) or max(a0, a1) > 1.2 * max(h, w):
            continue
        # the dial is the largest well-supported ellipse
        support = _support(edges, ell)
        score = support * max(a0, a1)
        if support > 0.5 and (best is None or score > best[0]):
            best = (score, ell)
    if best is None:
        return None
    ell = best[1]
    (_, _), (d0, d1), _ = ell
    # Rectify. First the ellipse stretched to a circle (an affine view); there the hub (the
    # pointer's pivot) is found, the image of the dial's centre. A circle seen in perspective is an
    # ellipse whose own centre is not the dial's: with the ellipse and the centre's image the view
    # is undone exactly (the centre's polar is the vanishing line), up to a rotation, which is set
    # so that the image's vertical at the centre stays vertical.
    centre = np.array(ell[0], float)
    g_final = _to_canon(ell, centre)
    canon = _warp(rgb, g_final)
    hub = _hub(canon)
    if hub is not None:
        centre_img = _apply(np.linalg.inv(g_final), np.array([hub]))[0]
        g_final = _to_canon(ell, centre_img)
        canon = _warp(rgb, g_final)
    return _make_dial(rgb, ell, g_final, canon, hub is not None)


def _same_ring(dial: _Dial, ev: dict[str, float], alt: _Dial, scale: float) -> bool:
    """The dial found from the ticks has the ring the first one was read on (its centre and radius
    within ``SAME_RING`` of its radius)."""
    assert dial.ell is not None and alt.ell is not None
    r_alt = alt.ell[1][0] / 2.0
    r_first = ev["tick_r_out"] * ev["radius_px"] * scale if "tick_r_out" in ev else max(dial.ell[1]) / 2.0
    off = math.hypot(dial.ell[0][0] - alt.ell[0][0], dial.ell[0][1] - alt.ell[0][1])
    return off <= SAME_RING * r_alt and abs(r_first - r_alt) <= SAME_RING * r_alt


def _dial_from_ticks(rgb: np.ndarray) -> _Dial | None:
    """The dial as the circle of its ticks, for a dial with no rim of its own (printed on a plate):
    the edges of a radial mark lie on lines through the pivot, so the pivot is where the short
    edges' lines meet from most directions (long edges, a plate's, a pipe's or the needle's, do
    not vote); the ring's radius is where those edges, radial about that point, are densest."""
    grey = cv2.GaussianBlur(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY), (0, 0), 1.0)
    h, w = grey.shape
    edges = cv2.Canny(grey, 40, 100)
    n, lab, stats, _ = cv2.connectedComponentsWithStats((edges > 0).astype(np.uint8), connectivity=8)
    short = (np.maximum(stats[:, 2], stats[:, 3]) <= VOTE_SHORT * max(h, w)) & (stats[:, 4] >= 4)
    short[0] = False
    ys, xs = np.nonzero(edges)
    if len(xs) > 4 * VOTE_MAX_PX:
        pick = np.random.default_rng(0).choice(len(xs), 4 * VOTE_MAX_PX, replace=False)
        ys, xs = ys[pick], xs[pick]
    gf = grey.astype(np.float32)
    gx, gy = cv2.Sobel(gf, cv2.CV_32F, 1, 0)[ys, xs], cv2.Sobel(gf, cv2.CV_32F, 0, 1)[ys, xs]
    mag = np.hypot(gx, gy) + 1e-6
    tx, ty = -gy / mag, gx / mag  # along the edge
    # an edge in a long component (marks joined by an arc line) still votes unless it lies on a
    # long straight run of edge (a plate's, a pipe's, the needle's side)
    near = cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0
    straight = np.ones(len(xs), bool)
    for f in (-1.0, -0.66, -0.33, 0.33, 0.66, 1.0):
        d = f * VOTE_STRAIGHT / 2.0 * min(h, w)
        px = np.clip(np.round(xs + d * tx), 0, w - 1).astype(int)
        py = np.clip(np.round(ys + d * ty), 0, h - 1).astype(int)
        straight &= near[py, px]
    keep = short[lab[ys, xs]] | ~straight
    ys, xs, tx, ty = ys[keep], xs[keep], tx[keep], ty[keep]
    if len(xs) < 50:
        return None
    if len(xs) > VOTE_MAX_PX:
        pick = np.random.default_rng(0).choice(len(xs), VOTE_MAX_PX, replace=False)
        ys, xs, tx, ty = ys[pick], xs[pick], tx[pick], ty[pick]
    q = VOTE_CELL
    hq, wq = h // q + 1, w // q + 1
    votes = []
    steps = np.arange(VOTE_MIN_PX, int(0.5 * max(h, w)), q, dtype=np.float32)[:, None]
    for sgn in (1.0, -1.0):
        # the sector of the direction the vote comes from
        ang = np.arctan2(-sgn * ty, -sgn * tx) + math.pi
        sector = (np.floor(ang / (2 * math.pi) * VOTE_SECTORS)).astype(np.int64) % VOTE_SECTORS
        px, py = xs[None, :] + sgn * steps * tx[None, :], ys[None, :] + sgn * steps * ty[None, :]
        ok = (px >= 0) & (px < w) & (py >= 0) & (py < h)
        cell = (py // q).astype(np.int64) * wq + (px // q).astype(np.int64)
        votes.append(np.broadcast_to(sector, ok.shape)[ok] * (hq * wq) + cell[ok])
    acc = np.bincount(np.concatenate(votes), minlength=VOTE_SECTORS * hq * wq).astype(np.float32)
    acc3 = np.stack([cv2.GaussianBlur(a, (0, 0), 1.0) for a in acc.reshape(VOTE_SECTORS, hq, wq)])
    score = np.sqrt(acc3).sum(axis=0)
    cy_q, cx_q = np.unravel_index(int(np.argmax(score)), score.shape)
    cx, cy = float((cx_q + 0.5) * q), float((cy_q + 0.5) * q)
    # the ring: where the voting edges, radial about the centre, are densest
    dx, dy = xs - cx, ys - cy
    dist = np.hypot(dx, dy) + 1e-6
    radial = ((tx * dx + ty * dy) / dist) ** 2
    counts = np.bincount(dist.astype(int), weights=radial, minlength=int(dist.max()) + 2)
    counts[: int(0.06 * min(h, w))] = 0.0
    hist = np.convolve(counts, np.ones(5) / 5, mode="same")
    r_peak = int(np.argmax(hist))
    outer = r_peak
    while outer + 1 < len(hist) and hist[outer + 1] >= 0.3 * hist[r_peak]:
        outer += 1
    rad = float(outer + 1)
    if rad < 0.08 * min(h, w):
        return None
    # the centre refined: the point nearest (least squares) to the lines of the marks' edges near it
    for tol in (0.1, 0.06, 0.04):
        dx, dy = xs - cx, ys - cy
        dist = np.hypot(dx, dy) + 1e-6
        miss = np.abs(dx * ty - dy * tx)  # the edge's line passes this far from the centre
        on = (miss < max(2.0, tol * rad)) & (dist > 0.4 * rad) & (dist < 1.2 * rad)
        if on.sum() < 30:
            break
        t2 = np.stack([tx[on], ty[on]], axis=1)
        proj = np.eye(2)[None] - t2[:, :, None] * t2[:, None, :]
        pts = np.stack([xs[on], ys[on]], axis=1).astype(float)
        cx, cy = (float(v) for v in np.linalg.solve(proj.sum(axis=0), np.einsum("nij,nj->i", proj, pts)))
    ell: Ellipse = ((cx, cy), (2 * rad, 2 * rad), 0.0)
    g = _to_canon(ell, np.array([cx, cy]))
    return _make_dial(rgb, ell, g, _warp(rgb, g), False, True)


def _make_dial(
    rgb: np.ndarray, ell: Ellipse, g: np.ndarray, canon: np.ndarray, hub: bool, from_ticks: bool = False
) -> _Dial:
    frame = np.ones(rgb.shape[:2], np.float32)
    seen = cv2.warpPerspective(frame, g, (2 * OUT + 1, 2 * OUT + 1), flags=cv2.INTER_LINEAR, borderValue=0.0)
    (_, _), (d0, d1), _ = ell
    return _Dial(canon, min(d0, d1) / 2.0 / CANON, hub, np.asarray(seen), ell, g, from_ticks)


def _recentred(rgb: np.ndarray, dial: _Dial, xy: tuple[float, float]) -> _Dial:
    """The dial rectified again about the canonical point ``xy`` (R units, y up) as its centre."""
    assert dial.ell is not None and dial.g is not None
    px = np.array([[OUT + xy[0] * CANON, OUT - xy[1] * CANON]])
    centre_img = _apply(np.linalg.inv(dial.g), px)[0]
    g = _to_canon(dial.ell, centre_img)
    return _make_dial(rgb, dial.ell, g, _warp(rgb, g), dial.hub, dial.from_ticks)


OUT = CANON + CANON // 2  # canonical image half-size


def _warp(rgb: np.ndarray, g: np.ndarray) -> np.ndarray:
    return np.asarray(
        cv2.warpPerspective(
            rgb.astype(np.float32),
            g,
            (2 * OUT + 1, 2 * OUT + 1),
            flags=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )  # fmt: skip
    )


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    q = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    return np.asarray(q[:, :2] / q[:, 2:3])


def _conic(ell: Ellipse) -> np.ndarray:
    """The 3x3 symmetric matrix C of the ellipse: x^T C x = 0 on it, < 0 inside."""
    (ex, ey), (d0, d1), rot = ell
    t = math.radians(rot)
    r = np.array([[math.cos(t), math.sin(t)], [-math.sin(t), math.cos(t)]])
    a = r.T @ np.diag([4.0 / d0**2, 4.0 / d1**2]) @ r
    e = np.array([ex, ey], float)
    c = np.zeros((3, 3))
    c[:2, :2] = a
    c[:2, 2] = c[2, :2] = -a @ e
    c[2, 2] = e @ a @ e - 1.0
    return c


def _to_canon(ell: Ellipse, centre: np.ndarray) -> np.ndarray:
    """Homography image -> canonical px: ``ell`` to the circle of radius CANON, ``centre`` to its centre."""
    s = max(ell[1]) / 2.0
    n = np.array([[1 / s, 0, -centre[0] / s], [0, 1 / s, -centre[1] / s], [0, 0, 1.0]])
    n_inv = np.linalg.inv(n)
    cn = n_inv.T @ _conic(ell) @ n_inv
    line = cn[:, 2]  # polar of the centre: the vanishing line of the dial's plane
    h1 = np.eye(3)
    if abs(line[2]) > 1e-12:
        h1[2] = line / line[2]
    h1_inv = np.linalg.inv(h1)
    c1 = h1_inv.T @ cn @ h1_inv
    q = c1[:2, :2] / -c1[2, 2]
    w, v = np.linalg.eigh((q + q.T) / 2)
    if (w <= 0).any():  # the centre is not inside the ellipse: affine only
        return _to_canon_affine(ell)
    m = np.eye(3)
    m[:2, :2] = v @ np.diag(np.sqrt(w)) @ v.T  # a pure stretch onto the unit circle
    g = m @ h1 @ n
    up = _apply(g, np.array([centre, centre + [0.0, -0.02 * s]]))  # the image's vertical at the centre
    phi = math.atan2(up[1, 1] - up[0, 1], up[1, 0] - up[0, 0])
    rot = -math.pi / 2 - phi
    rr = np.array([[math.cos(rot), -math.sin(rot), 0], [math.sin(rot), math.cos(rot), 0], [0, 0, 1.0]])
    out = np.array([[CANON, 0, OUT], [0, CANON, OUT], [0, 0, 1.0]])
    return np.asarray(out @ rr @ g)


def _to_canon_affine(ell: Ellipse) -> np.ndarray:
    (ex, ey), (d0, d1), rot = ell
    t = math.radians(rot)
    u = np.array([math.cos(t), math.sin(t)])
    v = np.array([-math.sin(t), math.cos(t)])
    m = CANON / (d0 / 2.0) * np.outer(u, u) + CANON / (d1 / 2.0) * np.outer(v, v)
    g = np.eye(3)
    g[:2, :2] = m
    g[:2, 2] = np.array([OUT, OUT]) - m @ np.array([ex, ey])
    return g


def _hub(canon: np.ndarray) -> tuple[float, float] | None:
    """The pointer's pivot near the middle of an (affinely) rectified dial: a filled disc of ink."""
    c = OUT
    w = int(0.22 * CANON)
    patch = canon[c - w : c + w + 1, c - w : c + w + 1]
    ring = canon[c - int(0.6 * CANON) : c + int(0.6 * CANON) + 1, c - int(0.6 * CANON) : c + int(0.6 * CANON) + 1]
    face = np.median(ring.reshape(-1, 3), axis=0)
    ink = np.sqrt(((patch - face) ** 2).sum(axis=2))
    top = float(np.percentile(ink, 99.5))
    if top < 30.0:
        return None
    on = (ink > HUB_INK * top).astype(np.float32)
    got = _disc(on, HUB_DISC)
    if isinstance(got, tuple):
        return got[0] + c - w, got[1] + c - w
    if got != "empty":
        # a blade wide at its base fills the small disc all along it, a highlight leaves a hole
        # in the cap: the cap is then the widest disc of ink (holes closed), with face around it
        wide = _widest_disc(on)
        if wide is not None:
            return wide[0] + c - w, wide[1] + c - w
    return None


def _widest_disc(on: np.ndarray) -> tuple[float, float] | None:
    """The centre of the widest disc of ink (holes closed) when it is a hub cap's: of a cap's size,
    one disc (not a bar's ridge), the face around it."""
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (HUB_CLOSE, HUB_CLOSE))
    closed = cv2.morphologyEx(on, cv2.MORPH_CLOSE, kernel)
    dist = cv2.distanceTransform(closed.astype(np.uint8), cv2.DIST_L2, 5)
    _, rad, _, (x, y) = cv2.minMaxLoc(dist)
    ys, xs = np.nonzero(dist >= HUB_RIDGE * rad)
    single = np.hypot(xs.std(), ys.std()) <= HUB_SPREAD * CANON  # a disc, not a bar's ridge
    if HUB_WIDE[0] * CANON <= rad <= HUB_WIDE[1] * CANON and single and _face_around(closed, x, y, rad):
        return float(x), float(y)
    return None


def _disc(on: np.ndarray, frac: float) -> tuple[float, float] | str:
    """Where a disc of radius ``frac`` R is filled with ink, or why not ("empty": nowhere; "spread":
    all along a blob)."""
    rad = max(2, int(frac * CANON))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rad + 1, 2 * rad + 1)).astype(np.float32)
    fill = cv2.filter2D(on, -1, disc / disc.sum(), borderType=cv2.BORDER_CONSTANT)
    if fill.max() < 0.9:
        return "empty"
    ys, xs = np.nonzero(fill >= fill.max() - 0.02)
    if np.hypot(xs.std(), ys.std()) > 0.05 * CANON:  # no single disc: a blob of ink
        return "spread"
    return float(xs.mean()), float(ys.mean())


def _face_around(on: np.ndarray, x: float, y: float, rad: float) -> bool:
    """Around a large disc of ink the face shows (a needle's two sides aside): a hub cap, not a
    patch of dark text or shadow."""
    yy, xx = np.mgrid[: on.shape[0], : on.shape[1]]
    d = np.hypot(xx - x, yy - y)
    ring = (d >= HUB_AROUND[0] * rad) & (d <= HUB_AROUND[1] * rad)
    return bool(ring.any()) and float(on[ring].mean()) <= HUB_AROUND_INK


def _contour_ellipses(edges: np.ndarray, short: int, long: int) -> list[Ellipse]:
    """Ellipses fitted to long edge contours that are elliptic arcs, each refined on all edges near it."""
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    ys, xs = np.nonzero(edges)
    allp = np.stack([xs, ys], axis=1).astype(np.float32)
    out: list[Ellipse] = []
    for cnt in sorted(contours, key=len, reverse=True)[:12]:
        if len(cnt) < max(60, 0.25 * short):
            break
        pts = cnt.reshape(-1, 2).astype(np.float32)
        ell = cv2.fitEllipse(pts)
        (_, _), (d0, d1), _ = ell
        if not (0.16 * short <= min(d0, d1) and max(d0, d1) <= 1.2 * long) or min(d0, d1) < 0.4 * max(d0, d1):
            continue
        if np.median(_ell_residual(pts, ell)) > max(1.5, 0.01 * min(d0, d1)):
            continue  # no elliptic arc (a panel's corner, a numeral)
        for _ in range(3):
            (_, _), (d0, d1), _ = ell
            near = allp[_ell_residual(allp, ell) < max(2.0, 0.015 * min(d0, d1))]
            if len(near) < 40:
                break
            ell = cv2.fitEllipse(near)
        out.append(ell)
    return out


def _fit_ellipse(edges: np.ndarray, cx: float, cy: float, r: float) -> Ellipse | None:
    ys, xs = np.nonzero(edges)
    d = np.hypot(xs - cx, ys - cy)
    keep = (d > 0.8 * r) & (d < 1.2 * r)
    if keep.sum() < 30:
        return None
    pts = np.stack([xs[keep], ys[keep]], axis=1).astype(np.float32)
    # on each bearing the edge nearest the circle is the rim's (a panel's edge, ticks lie farther)
    bearing = np.round(np.degrees(np.arctan2(pts[:, 1] - cy, pts[:, 0] - cx)) / 2).astype(int)
    order = np.lexsort((np.abs(d[keep] - r), bearing))
    _, first = np.unique(bearing[order], return_index=True)
    rim = pts[order][first]
    if len(rim) < 40:
        return None
    ell = cv2.fitEllipse(rim)
    wide = (d > 0.6 * r) & (d < 1.5 * r)
    allp = np.stack([xs[wide], ys[wide]], axis=1).astype(np.float32)
    bear_all = np.round(np.degrees(np.arctan2(allp[:, 1] - cy, allp[:, 0] - cx)) / 2).astype(int)
    for _ in range(3):  # per bearing the edge nearest the current fit (a tilted dial is no circle), refit
        res = _ell_residual(allp, ell)
        order = np.lexsort((res, bear_all))
        _, first = np.unique(bear_all[order], return_index=True)
        near = order[first]
        inl = allp[near][res[near] < max(2.0, 0.04 * r)]
        if len(inl) < 30:
            return None
        ell = cv2.fitEllipse(inl)
    (_, _), (d0, d1), _ = ell
    if min(d0, d1) < 0.4 * max(d0, d1) or max(d0, d1) > 3.0 * r:
        return None
    return ell


def _ell_residual(pts: np.ndarray, ell: Ellipse) -> np.ndarray:
    (ex, ey), (d0, d1), rot = ell
    t = math.radians(rot)
    x, y = pts[:, 0] - ex, pts[:, 1] - ey
    xr, yr = x * math.cos(t) + y * math.sin(t), -x * math.sin(t) + y * math.cos(t)
    q = np.sqrt((xr / (d0 / 2)) ** 2 + (yr / (d1 / 2)) ** 2)
    return np.asarray(np.abs(q - 1.0) * min(d0, d1) / 2)


def _support(edges: np.ndarray, ell: Ellipse) -> float:
    """Share of the ellipse's perimeter with an edge pixel within 2 px."""
    mask = np.zeros_like(edges)
    (ex, ey), (d0, d1), rot = ell
    cv2.ellipse(mask, ((ex, ey), (d0, d1), rot), 255, 1)
    near = cv2.dilate(edges, np.ones((5, 5), np.uint8))
    on = mask > 0
    return float((near[on] > 0).mean()) if on.any() else 0.0


# ------------------------------------------------------------------------------ polar helpers
def _polar(canon: np.ndarray, at: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """(N_ANG, N_RAD, 3): angle bin i = i/2 deg counter-clockwise from 3 o'clock, radius j/100 R,
    about the centre (or ``at`` px right and down of it)."""
    c = (canon.shape[1] - 1) / 2.0
    a = np.radians(np.arange(N_ANG) * 360.0 / N_ANG)[:, None]
    r = (np.arange(N_RAD) / 100.0 * CANON)[None, :]
    mx = (c + at[0] + r * np.cos(a)).astype(np.float32)
    my = (c + at[1] - r * np.sin(a)).astype(np.float32)
    return np.asarray(cv2.remap(canon, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


def _angle_of_bin(k: np.ndarray | float) -> np.ndarray:
    return np.asarray(k, float) * 360.0 / N_ANG


def _smooth_ang(x: np.ndarray, n: int) -> np.ndarray:
    """Circular moving average along the angle axis (axis 0)."""
    x = np.asarray(x, np.float32)
    pad = n // 2
    ext = np.concatenate([x[-pad:], x, x[:pad]], axis=0) if pad else x
    k = np.ones(n, np.float32) / n
    if x.ndim == 1:
        return np.convolve(ext, k, mode="valid")
    return np.asarray(cv2.filter2D(ext, -1, k[:, None], borderType=cv2.BORDER_CONSTANT)[pad : pad + len(x)])


def _peaks(prof: np.ndarray, floor: float, min_sep: int) -> list[int]:
    """Circular local maxima above ``floor``, at least ``min_sep`` bins apart (strongest first kept)."""
    n = len(prof)
    left, right = np.roll(prof, 1), np.roll(prof, -1)
    idx = np.nonzero((prof >= left) & (prof > right) & (prof > floor))[0]
    kept: list[int] = []
    for i in idx[np.argsort(-prof[idx])]:
        if all(min(abs(int(i) - k), n - abs(int(i) - k)) >= min_sep for k in kept):
            kept.append(int(i))
    return sorted(kept)


def _coarse_median(img: np.ndarray, k: int) -> np.ndarray:
    """A median over k px, taken at half resolution (a wide window's median is smooth: the
    detail lost is none, the time saved three quarters)."""
    h, w = img.shape[:2]
    half = cv2.resize(img, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    med = cv2.medianBlur(half, (k // 2) | 1)
    return np.asarray(cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR), np.float32)


def _noise(canon: np.ndarray) -> float:
    g = canon.mean(axis=2)
    c = g.shape[0] // 2
    patch = g[c - CANON // 2 : c + CANON // 2, c - CANON // 2 : c + CANON // 2]
    lap = patch[1:-1, 1:-1] * 2 - patch[1:-1, :-2] - patch[1:-1, 2:]
    return float(1.4826 * np.median(np.abs(lap - np.median(lap))) / math.sqrt(6.0))


def _run_from_hub(wide: np.ndarray) -> np.ndarray:
    """Per angle: the share of radii covered by one run of ink starting within the first tenth."""
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
        out[i] = end / n
    return out


def _chroma(p: np.ndarray) -> float:
    """Median relative channel spread of the pointer's own pixels (brightness-free: dim light keeps it)."""
    if not len(p):
        return 0.0
    return float(np.median((p.max(axis=1) - p.min(axis=1)) / (p.max(axis=1) + 10.0)))


def _is_red(p: np.ndarray) -> bool:
    """The pointer's pixels are red (a drag or set pointer's colour), not orange, yellow or blue."""
    if not len(p) or _chroma(p) < COLOURED_MIN:
        return False
    return abs(_hue(p)) <= RED_HUE_DEG


def _hue(p: np.ndarray) -> float:
    """Hue (deg, -180..180, 0 red) of the median of the pixels."""
    r, g, b = np.median(p, axis=0)
    return math.degrees(math.atan2(math.sqrt(3.0) * (g - b), 2.0 * r - g - b))


def _pointers(cand: list[int], run: np.ndarray, pixels: list[np.ndarray]) -> list[int]:
    """The rays that may be pointers, with their pixels. A shorter ray of the same colour straight
    opposite a longer one (its tail) or beside it (the edge of a blade wide at its hub) is part of
    that needle; a stub barely out of the hub (a hub cap's rim, a label's stroke) is none, unless
    red (a needle's or drag pointer's visible part); any other ray stays (a needle whose tip is
    hidden)."""
    out = []
    for i, k in enumerate(cand):
        part = False
        for j, o in enumerate(cand):
            d = (k - o) % N_ANG
            near = min(d, N_ANG - d) <= SAME_BLADE_BINS or abs(d - N_ANG // 2) <= TAIL_BINS
            part |= j != i and run[o] > run[k] and near and _same_colour(pixels[i], pixels[j])
        if not part and (run[k] >= STUB_RUN or _is_red(pixels[i])):
            out.append(k)
    return out


def _has_tail(i: int, cand: list[int], run: np.ndarray, pixels: list[np.ndarray]) -> bool:
    """Ray ``i`` has a shorter ray of its colour straight opposite: a needle's tail."""
    k = cand[i]
    return any(
        j != i
        and run[o] < run[k]
        and abs((k - o) % N_ANG - N_ANG // 2) <= TAIL_BINS
        and _same_colour(pixels[i], pixels[j])
        for j, o in enumerate(cand)
    )


def _beside(i: int, cand: list[int], pixels: list[np.ndarray]) -> bool:
    """Another ray from the hub, not red, not opposite ray ``i`` (its tail): a needle's base whose
    blade is hidden beside a red drag pointer."""
    k = cand[i]
    return any(
        j != i and not _is_red(pixels[j]) and abs((k - o) % N_ANG - N_ANG // 2) > TAIL_BINS for j, o in enumerate(cand)
    )


def _same_colour(p: np.ndarray, q: np.ndarray) -> bool:
    """Two rays' pixels of one colour, lit alike or not: both neutral, or both coloured of a hue
    (a needle's tail in the hub's shade is its blade's hue, darker)."""
    cp, cq = _chroma(p), _chroma(q)
    if cp < COLOURED_MIN and cq < COLOURED_MIN:
        return True
    if cp < NEUTRAL_MAX or cq < NEUTRAL_MAX or not len(p) or not len(q):
        return False
    d = abs(_hue(p) - _hue(q)) % 360.0
    return min(d, 360.0 - d) <= SAME_HUE_DEG


def _value_pointer(
    cand: list[int], run: np.ndarray, pixels: list[np.ndarray], pivoted: bool, drag: bool = False
) -> int | str:
    """The value pointer among the pointers, or why none. Several: the one neutral in colour
    when the others are coloured, else the one not red when the others are red (drag or set
    pointers are red). One: any but a red one; a red one only on a pivot (a hub seen at the
    dial's centre, or its own tail: a drag pointer is drawn from under the needle's hub).
    ``drag``: the gauge is stated to have a coloured drag or set pointer, so a coloured pointer is
    never the value (its needle hidden or broken, the drag pointer alone would be read)."""
    if not cand:
        return "no pointer found"
    if drag:
        plain = [k for k, p in zip(cand, pixels, strict=True) if _chroma(p) < COLOURED_MIN and not _is_red(p)]
        if not plain:
            return DRAG_ONLY
        return plain[0] if len(plain) == 1 else "several pointers, value pointer ambiguous"
    chroma = [_chroma(p) for p in pixels]
    long = [i for i, k in enumerate(cand) if run[k] >= TIP_RUN]
    others = [i for i in range(len(cand)) if i != (long[0] if long else -1)]
    if (
        len(long) == 1
        and not _is_red(pixels[long[0]])
        and all(run[cand[i]] < SHORT_RUN and not _is_red(pixels[i]) for i in others)
    ):
        return cand[long[0]]  # one needle reaching the scale, not red, the other rays short: labels, strokes
    if len(cand) == 1:
        if _is_red(pixels[0]) and not pivoted:
            return "only a red pointer, value pointer ambiguous"
        return cand[0]
    neutral = [k for k, c in zip(cand, chroma, strict=True) if c < NEUTRAL_MAX]
    coloured = [k for k, c in zip(cand, chroma, strict=True) if c >= COLOURED_MIN]
    if len(neutral) == 1 and len(neutral) + len(coloured) == len(cand) and all(run[k] >= DRAG_RUN for k in coloured):
        return neutral[0]  # the others drag or set pointers: long, coloured (a stub may be the needle)
    not_red = [k for k, p in zip(cand, pixels, strict=True) if not _is_red(p)]
    red = [k for k in cand if k not in not_red]
    if len(not_red) == 1 and all(run[k] >= DRAG_RUN for k in red):
        return not_red[0]
    return "several pointers, value pointer ambiguous"


def _thin(inner: np.ndarray, rgb: np.ndarray, radii: np.ndarray, bound: float) -> np.ndarray:
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


def _refine(ink: np.ndarray, k: int, r0: float, r1: float, bound: float) -> float:
    """The pointer's angle: ink-weighted mean angle over +-4 deg at the outer half of its run."""
    js = np.arange(int((r0 + r1) / 2 * 100), int(r1 * 100))
    ks = np.arange(k - 8, k + 9)
    w = np.clip(ink[np.mod(ks, N_ANG)][:, js] - 0.5 * bound, 0, None).sum(axis=1)
    if w.sum() <= 0:
        return float(_angle_of_bin(k))
    return float((_angle_of_bin(ks) * w).sum() / w.sum()) % 360.0


def _zone(band: np.ndarray, face: np.ndarray, bound: float) -> np.ndarray:
    """Per angle: a coloured zone painted along part of the tick ring (a red band by the scale's
    end), not a cover: strongly coloured where it differs from the face, and the face still shows
    over part of the ring's radii there (a hand or a rod covers them all)."""
    dist = np.sqrt(((band - face) ** 2).sum(axis=2) / 3.0)  # (N_ANG, radii)
    some_face = np.quantile(dist, ZONE_FACE_SHARE, axis=1) <= bound
    off = dist > bound
    out = np.zeros(len(band), bool)
    for i in np.nonzero(some_face & off.any(axis=1))[0]:
        out[i] = _chroma(band[i][off[i]]) >= ZONE_CHROMA
    return out


def _covers(hidden: np.ndarray, ticks: list[int]) -> np.ndarray:
    """The stretches of ``hidden`` (per angle bin) 6 deg and wider that show no ticks inside
    (a shadow or fog over the ring leaves its ticks seen: no cover)."""
    out = np.zeros_like(hidden)
    if hidden.all() or not hidden.any():
        return out
    shift = int(np.argmin(hidden))  # start the walk on a bin that is not hidden
    h = np.roll(hidden, -shift)
    t = np.array(sorted((k - shift) % N_ANG for k in ticks), int)
    i = 0
    while i < N_ANG:
        if not h[i]:
            i += 1
            continue
        j = i
        while j < N_ANG and h[j]:
            j += 1
        inside = int(((t > i + 4) & (t < j - 5)).sum())
        if j - i >= 12 and inside < 2:
            out[(np.arange(i, j) + shift) % N_ANG] = True
        i = j
    return out


def _ring_centre(
    hp: np.ndarray, ticks: list[int], j_in: int, j_out: int, bound: float
) -> tuple[float, float, float] | None:
    """The centre (R units, y up) of the circle through the ticks' outer ends, or through their
    inner ends, whichever is the rounder fit, and that fit's median residual (R): the ticks are
    radial, so their ring is centred on the pivot even when the rim found is not (a plate, a rim
    off the scale's centre). None when the ticks are too few."""
    if len(ticks) < RECENTRE_TICKS:
        return None
    lo, hi = max(0, j_in - RECENTRE_MARGIN), min(hp.shape[1], j_out + RECENTRE_MARGIN + 1)
    ends: list[list[tuple[float, float]]] = [[], []]
    for t in ticks:
        on = np.nonzero(hp[t, lo:hi] > 0.5 * bound)[0]
        if len(on):
            a = math.radians(float(_angle_of_bin(t)))
            for n, j in enumerate((on[0], on[-1])):
                r = (lo + j) / 100.0
                ends[n].append((r * math.cos(a), r * math.sin(a)))
    best: tuple[float, tuple[float, float]] | None = None
    for pts in ends:
        p = np.array(pts)
        if len(p) < RECENTRE_TICKS:
            continue
        a_mat = np.column_stack([p[:, 0], p[:, 1], np.ones(len(p))])
        sol, *_ = np.linalg.lstsq(a_mat, -(p**2).sum(axis=1), rcond=None)
        cx, cy = -sol[0] / 2.0, -sol[1] / 2.0
        rad = math.sqrt(max(cx * cx + cy * cy - sol[2], 0.0))
        res = float(np.median(np.abs(np.hypot(p[:, 0] - cx, p[:, 1] - cy) - rad)))
        if best is None or res < best[0]:
            best = (res, (float(cx), float(cy)))
    return None if best is None else (*best[1], best[0])


def _tick_lengths(hp: np.ndarray, ticks: list[int], j_in: int, j_out: int, bound: float) -> np.ndarray:
    """Each tick's radial length: its longest run of marked radii (gaps of one sample bridged) that
    meets the ring's band (a major tick is longer than a minor one, whatever its contrast or the
    light on it; a minor tick may lie at the band's inner or outer part only)."""
    out = np.zeros(len(ticks))
    for n, t in enumerate(ticks):
        col = hp[np.mod(np.arange(t - 1, t + 2), N_ANG)].max(axis=0) > 0.5 * bound
        col[1:-1] |= col[:-2] & col[2:]
        best, j = 0, 0
        while j < len(col):
            if not col[j]:
                j += 1
                continue
            k = j
            while k < len(col) and col[k]:
                k += 1
            if k > j_in and j <= j_out:
                best = max(best, k - j)
            j = k
        out[n] = best
    return out


def _pitch(gaps: np.ndarray) -> float:
    """The scale's pitch from the gaps between neighbouring marks: the largest spacing of which
    (nearly) every gap is a whole multiple (a faint minor tick missed leaves a gap of two)."""
    best = float(np.median(gaps))
    for p in sorted({round(float(x), 1) for x in gaps}):
        if p <= 0:
            continue
        q = gaps / p
        share = float(np.mean((np.abs(q - np.round(q)) < 0.25) & (np.round(q) >= 1)))
        if share >= 0.85:
            best = float(np.median(gaps[np.round(q) == 1])) if (np.round(q) == 1).any() else p
    return best


def _arc(
    ang: np.ndarray,
    strength: np.ndarray,
    spec: DialSpec,
    hidden: np.ndarray | None = None,
    length: np.ndarray | None = None,
    between: bool = False,
) -> tuple[float, float] | _TickScale | str:
    """(angle of lo, sweep) from the tick angles, or why not. ``hidden``: per angle bin, whether the
    tick ring there is covered by something that is not the face; ``between``: a standard sweep too
    is read between the ticks seen (a circle of ticks, no rim: the view not undone bends it)."""
    if len(ang) < 6:
        return "fewer than 6 ticks visible"
    order = np.argsort(ang % 360.0)
    a, w = (ang % 360.0)[order], np.asarray(strength, float)[order]
    ln = np.asarray(length, float)[order] if length is not None else w.copy()
    # a mark closer to its neighbour than 0.6 pitch is no tick of the scale (a numeral's stroke, a
    # crack): the weaker of the two goes
    for _ in range(len(a)):
        gaps = np.diff(np.concatenate([a, a[:1] + 360.0]))
        small = gaps < 0.5 * gaps.max()
        if not small.any():
            break
        pitch = _pitch(gaps[small])
        close = np.nonzero(gaps < 0.6 * pitch)[0]
        if not close.size or len(a) <= 6:
            break
        i = int(close[np.argmin(np.minimum(w[close], w[(close + 1) % len(a)]))])
        drop = i if w[i] < w[(i + 1) % len(a)] else (i + 1) % len(a)
        a, w, ln = np.delete(a, drop), np.delete(w, drop), np.delete(ln, drop)
    if len(a) < 6:
        return "fewer than 6 ticks visible"
    gaps = np.diff(np.concatenate([a, a[:1] + 360.0]))
    g_big = int(np.argmax(gaps))
    # the scale's gap: the largest; when it is not where a scale centred at 12 o'clock has it
    # (something hides a stretch of the scale), the gap that spans 6 o'clock
    lows = np.nonzero(((270.0 - a) % 360.0) < gaps)[0]
    tries = [g_big] + [int(i) for i in lows if int(i) != g_big]
    first_why = ""
    for g in tries:
        got = _arc_from_gap(a, ln, gaps, g, spec, hidden, between)
        if not isinstance(got, str):
            return got
        first_why = first_why or got
    return first_why


def _arc_from_gap(
    a: np.ndarray,
    w: np.ndarray,
    gaps: np.ndarray,
    g: int,
    spec: DialSpec,
    hidden: np.ndarray | None,
    between: bool = False,
) -> tuple[float, float] | _TickScale | str:
    first = a[(g + 1) % len(a)]  # the scale's first tick counter-clockwise after the gap
    pitch = _pitch(gaps[gaps < 0.5 * gaps[g]]) if (gaps < 0.5 * gaps[g]).any() else 0.0
    if pitch <= 0:
        return "ticks too irregular"
    order = np.argsort((a - first) % 360.0)
    ccw = ((a - first) % 360.0)[order]
    steps = np.diff(ccw) / pitch  # consecutive ticks: whole pitches apart (a hidden tick: two)
    if np.mean(np.abs(steps - np.round(steps)) < 0.3) < 0.8 or (np.round(steps) < 1).any():
        return "ticks too irregular"
    idx = np.concatenate([[0.0], np.cumsum(np.round(steps))])
    b, c0 = np.polyfit(idx, ccw, 1)
    fit_first = (first + c0) % 360.0
    found = float(idx.max() * b)
    if spec.arc_start_deg is not None and spec.arc_end_deg is not None:
        s, e = spec.arc_start_deg, spec.arc_end_deg
        sweep = ((s - e) if spec.clockwise else (e - s)) % 360.0
        if abs(found - sweep) > SWEEP_TOL:
            return "ticks do not cover the stated arc"
        return s % 360.0, sweep
    std = min(STANDARD_SWEEPS, key=lambda x: abs(x - found))
    # the scale's middle at 12 o'clock, within half a pitch and the view's lean
    centre = (fit_first + found / 2.0) % 360.0
    tol_c = max(CENTRE_TOL, 0.45 * b)
    if abs(std - found) <= min(SWEEP_TOL, 0.4 * b) and _off12(centre) <= tol_c:
        if between:  # the ticks seen are the whole scale: read between them
            on = _on_lattice(idx, ccw, b)
            start, sweep = _ends(centre, std, spec)
            return _TickScale(start, sweep, first % 360.0, ccw[on] - ccw[0], idx[on] / idx.max())
        return _ends(centre, std, spec)
    if abs(std - found) <= SWEEP_TOL and _off12(centre) <= tol_c:
        # a view not quite undone bends the angles by a few degrees: a standard sweep centred at
        # 12 o'clock still, when both end ticks are majors of a round scale (a lost end tick
        # would leave a minor one, or a major interval's worth of sweep, at that end)
        got = _arc_from_ends(idx, w[order], b, fit_first, spec, hidden, ccw - (b * idx + c0), std)
        if not isinstance(got, str):
            return got
    # One end of the scale hidden (an occluder, a shattered patch over it): the end that is seen
    # and a standard sweep centred at 12 o'clock on the ticks' lattice give the other, provided
    # the stretch between the last tick seen and that end is covered by something that is not
    # the dial's face. Exactly one such reading of the ticks, or abstain.
    if hidden is None:
        return "arc ends not clear"
    seen = _arc_from_ends(idx, w[order], b, fit_first, spec, hidden, ccw - (b * idx + c0))
    if not isinstance(seen, str):
        return seen
    fits = []
    for sweep in STANDARD_SWEEPS:
        n = sweep / b
        if sweep < found + 0.5 * b or abs(n - round(n)) > 0.25:
            continue
        for seen_lo in (True, False):  # the end seen: the counter-clockwise first tick, or the last
            mid = (fit_first + sweep / 2.0) if seen_lo else (fit_first + found - sweep / 2.0)
            if _off12(mid % 360.0) > tol_c:
                continue
            gap0, gap1 = (fit_first + found + 0.5 * b, fit_first + sweep) if seen_lo else (
                fit_first + found - sweep, fit_first - 0.5 * b)  # fmt: skip
            bins = np.round(np.arange(gap0, gap1 + 0.25, 0.5) * N_ANG / 360.0).astype(int) % N_ANG
            if len(bins) and float(hidden[bins].mean()) >= 0.7:
                fits.append((mid % 360.0, sweep))
    if len(fits) != 1:
        return "arc ends not clear"
    return _ends(*fits[0], spec)


def _off12(deg: float) -> float:
    return min(abs(deg - 90.0), 360.0 - abs(deg - 90.0))


def _ends(centre: float, sweep: float, spec: DialSpec) -> tuple[float, float]:
    start_ccw, end_ccw = (centre - sweep / 2.0) % 360.0, (centre + sweep / 2.0) % 360.0
    return (end_ccw, sweep) if spec.clockwise else (start_ccw, sweep)


def _arc_from_ends(
    idx: np.ndarray,
    w: np.ndarray,
    b: float,
    first: float,
    spec: DialSpec,
    hidden: np.ndarray | None,
    res: np.ndarray,
    std: float | None = None,
) -> _TickScale | str:
    """The arc from where its ticks stop, any sweep, anywhere on the dial (a dial turned in its
    plate, a sweep no standard one). Only when the ends are beyond doubt: both end ticks are major
    ticks (a regular lattice of stronger marks), the face beyond each end is seen clear of any
    cover for a major interval (an end under a hand or out of the picture would look like an end),
    and the range divides into a round value per major interval (one major lost at an end
    would leave 600/5 = 120 a major). The value is then read between the ticks seen either side
    of the pointer, as a technician does (a view not quite undone bends the pitch: the ends' fit
    alone would be off mid-scale)."""
    keep = np.nonzero(w >= END_MIN_LEN * np.median(w))[0]  # a mark off the ring's middle: a numeral's stroke
    if len(keep) < 6:
        return "arc ends not clear"
    seen = b * idx + res  # the ticks' angles, ccw from ``first``
    first, idx, w = first + seen[keep[0]], idx[keep[0] : keep[-1] + 1] - idx[keep[0]], w[keep[0] : keep[-1] + 1]
    seen = seen[keep[0] : keep[-1] + 1] - seen[keep[0]]
    good = _on_lattice(idx, seen, b)
    idx, w, seen = idx[good], w[good], seen[good]
    n = int(round(idx.max()))
    found = float(seen[-1])
    if std is None and (not ARC_MIN <= found <= ARC_MAX or 360.0 - found < 2.0 * b):
        return "arc ends not clear"
    every = _major_period(idx.astype(int), w)
    if every is None or n % every:
        return "arc ends not clear"
    if not _round_step(abs(spec.span) / (n // every)):
        return "arc ends not clear"
    if std is not None:  # a standard sweep at 12 o'clock: the ends seen short of it by less than a major interval
        if abs(found - std) > min(SWEEP_TOL, 0.5 * every * b):
            return "arc ends not clear"
    else:
        if hidden is None:
            return "arc ends not clear"
        clear = max(every * b, MIN_CLEAR_DEG)
        for lo_deg, hi_deg in ((first - clear, first - 0.5 * b), (first + found + 0.5 * b, first + found + clear)):
            bins = np.round(np.arange(lo_deg, hi_deg + 0.25, 0.5) * N_ANG / 360.0).astype(int) % N_ANG
            if hidden[bins].any():
                return "arc ends not clear"
    start, sweep = _ends((first + found / 2.0) % 360.0, found, spec)
    return _TickScale(start, sweep, first % 360.0, seen, idx / n)


def _on_lattice(idx: np.ndarray, seen: np.ndarray, b: float) -> np.ndarray:
    """The marks on the lattice their neighbours set (the ends always): one off it by
    ``OFF_LATTICE`` pitch (a needle crossing the ring beside a tick it hides, a numeral's stroke)
    is no tick to read between."""
    good = np.ones(len(seen), bool)
    if len(seen) > 2:
        exp = seen[:-2] + (seen[2:] - seen[:-2]) * (idx[1:-1] - idx[:-2]) / (idx[2:] - idx[:-2])
        good[1:-1] = np.abs(seen[1:-1] - exp) <= OFF_LATTICE * b
    return good


def _major_period(idx: np.ndarray, w: np.ndarray) -> int | None:
    """Every how many ticks a major one, counted from the scale's first tick, both end ticks
    major: the period whose inner marks nearly all stand out of the marks around them (their
    length over the local median) while nearly no other mark does, and whose end ticks stand out
    too or are as long as its other majors (a minor tick at an end: an end lost); None when none is."""
    local = np.array([np.median(w[max(0, i - LOCAL_TICKS) : i + LOCAL_TICKS + 1]) for i in range(len(w))])
    strong = w >= MAJOR_SEP * np.maximum(local, 1e-6)
    inner = np.ones(len(w), bool)
    inner[[0, -1]] = False
    best: tuple[float, int] | None = None
    for every in range(2, MAX_MINORS + 1):
        on = idx % every == 0
        if (on & inner).sum() < 2 or on.all():
            continue
        hit, false = float(strong[on & inner].mean()), float(strong[~on].mean())
        long_end = w[[0, -1]] >= END_MAJOR * float(np.median(w[on & inner]))
        ends_major = bool((strong[[0, -1]] | long_end).all())
        if hit >= MAJOR_HIT and false <= MAJOR_FALSE and ends_major and (best is None or hit - false > best[0]):
            best = (hit - false, every)
    return None if best is None else best[1]


def _round_step(step: float) -> bool:
    """A scale's value per major interval is a round number: 1, 2, 2.5 or 5 times a power of ten."""
    if step <= 0:
        return False
    mant = step / 10.0 ** math.floor(math.log10(step) + 1e-9)
    return any(abs(mant - m) < 1e-6 * m for m in ROUND_STEPS)
