"""A dial reader that finds and models the dial from the image: read the value, or abstain.

It gets the image and what a technician knows of the gauge (``DialSpec``: range, unit, sweep
direction, optionally the arc's end angles), never a drawing layout. The parts of each step are
in the module named with it; this one (``read_dial``, ``_read``) takes them in turn:

1. The dial (``dial.geometry``): the largest well-supported ellipse (elliptic edge contours, Hough
   circles), its pivot (a filled disc of ink near the middle; no disc seen, the point near the
   ellipse's centre where the ticks' lines meet) as the image of its centre; with both
   the perspective is undone (the centre's polar is the vanishing line), the image's vertical kept
   vertical, and the dial is a circle of ``CANON`` px radius. No panel is needed.
   A dial with no rim of its own (printed on a plate), or whose rim is not its scale's: when the
   reading abstains for want of a scale (or of one clear pointer), the dial is found again from its
   ticks (``dial_from_ticks``): the lines of the short, radial edges (not long straight ones: a
   plate's, a pipe's, the needle's) meet at the pivot from most directions; the ring's radius is
   where those edges are densest (seen at an angle, the ellipse of the ticks' outer ends); that
   circle is read in turn (unless it is the ring already read,
   and not on a lone red pointer beside another ray from the hub: a needle whose blade is hidden).
   The ticks' ellipse is taken for the dial's circle seen at an angle when it is clearly flat; when
   it is nearly round (a plate turned 15-35 deg) the circle is read first, and if that gives no
   scale (the view bends the ticks' gaps, 8 to 10 deg about a pitch of 9) or no needle reaching it
   (a 180 deg scale's circle of ticks drifts off the pivot) the dial is read again about the ellipse.
2. Ink (here), whatever the polarity: the face's colour around each point is its median over 0.15 R;
   ink is every pixel far from it (dark on light, light on dark, a coloured pointer alike); for the
   pointers also far from the median over 0.37 R (a blade wide at its hub is its own local median).
   Outside the picture nothing is ink.
3. The tick ring (``dial.scale``): the band of radii (0.45-1.3 R: the circle found may be a bezel's
   inner edge, a plate's arc line) whose angular profile is most "ticky" (narrow marks over the
   ring); its marks are the ticks, their largest gap is the part of the dial without a scale (or,
   when a cover hides one end, the gap spanning 6 o'clock). No hub seen (or one clearly off the
   ticks' circle): the circle through the ticks' ends gives the centre and the dial is rectified
   again about it. The ticks' pitch (the largest spacing of which nearly every gap is a whole
   multiple) and a least-squares fit of tick index against angle give the arc (a lone mark with
   no other within three pitches, a label's or sticker's stroke in the scale's gap, left out when
   the arc is not read with it; a mark no longer than a minor tick a tick or more beyond an end, an
   object's or a thumb's edge, is no end of the scale, which ends on a major: without it only a
   standard sweep seen whole is read): a standard sweep centred at 12 o'clock; else, any sweep turned
   anywhere, from where the ticks stop, when both end
   ticks are majors (longer marks on a regular lattice), the face shows clear beyond both ends and
   the range divides into round majors (a standard sweep at 12 o'clock bent a few degrees by a view
   not quite undone: both end ticks majors of a round scale suffice); then the value is read between
   the ticks either side of the pointer, a mark off the lattice its neighbours set (a needle
   crossing the ring) left out. The face file's angles, when given, check the arc: it is read from
   the ticks (and numerals) as if not stated, and each of its ends must lie within the view's roll
   of the stated one (6 deg or 0.45 pitch: the rectified dial keeps the image's vertical, which a
   perspective turns off the face's by a few degrees; read linearly from the stated degrees a
   view rolled 3.6 deg was 2.3 % off), or abstain (a wrong statement gives no value); the ticks'
   ends in doubt, they are the stated ends when their sweep is within 0.4 pitch of the stated one
   and they lie where stated (within that roll), read between them. A scale read that disagrees
   ends the reading (no next ring, no dial from its ticks: a search for a ring that agrees with a
   statement 8 deg off found one, 2.1 % off). When the ticks
   leave the ends in doubt, the printed numerals (``numerals``) may state the scale: labels read
   at their angles and matched to the stated range on one linear map, or the abstention stands.
   The ring read first may be the numerals' (close inside a short scale's ticks their strokes are
   as "ticky"): when it gives no scale (too few ticks, irregular, its ends in doubt), the next ring
   of marks outside it is read, and taken only with a value, a needle reaching that ring, the ring
   inside the dial's circle and less than half of it covered (a hand's fingers inside the scale, an
   object's edges outside the rim, read as ticks, gave values 45 % and 12 % of the span off).
   Its ends in doubt, the ring under each pointer crossing it counts as covered (an end tick under
   a drag pointer left at the scale's end) and the arc is read again: a standard sweep the ticks
   fall short of into the cover, or (the view's degrees bent) the ticks counted: the end seen a
   major with the face clear beyond it, the ticks short of a whole number of round majors by
   fewer than a major interval's, their places under the cover. Still in doubt, a stretch of the
   ring not the face's colour that shows far fewer marks than the ticks' pitch puts there is a
   cover too (an occluder's own edges, a hand's fingers, are a few marks over the ticks it hides;
   a shadow leaves its ticks seen) and the arc is read again, unless such stretches make up more
   than half the ring (the face's colour is then in doubt). An end given by a standard sweep
   the ticks fall short of into a cover lies under that cover (its place seen bare: the scale
   ends short of that sweep). A stub barely out of the hub
   (a needle's tail) hides no tick. Still no scale: the ticks may be dense and blurred together,
   so that over the ink's window their own colour is the median and only their edges are ink; the
   dial is read again with the ring's ink taken against the face's median over the wider window
   (0.37 R), and taken only with a value, a needle reaching that ring and the ticks' ends on a
   circle (an object's edges over the ring are ink there too).
4. The pointers (``dial.pointers``): rays of ink from the hub outward (a radial run, not a numeral's
   blob; a gap in it bridged only where ink fills it, a numeral it crosses: bare face is its end,
   and a numeral beyond a broken needle's end no tip of it) inside the tick ring, each of the colour of its most coloured bin (not its edge's, half
   face), none of the face's own colour; a shorter ray of the same colour opposite or beside a
   longer one is its tail or its blade's edge (opposite, its root of the longer one's colour suffices:
   a label may follow a short tail), a stub barely out of the hub (unless red) is none. One needle
   reaching the scale among short rays, not red: the value pointer. Several: the one neutral in
   colour when the others are long coloured ones, else the one not red when the others are long red
   ones (drag pointers); a lone red pointer only on a hub; otherwise abstain as ambiguous. A gauge
   stated to have a drag or set pointer (``DialSpec.drag_pointer``, a technician sees it): a
   coloured pointer is never the value, and with no other the reader abstains (a broken or hidden
   needle beside its drag pointer; unstated, a lone red pointer on a hub is read as the needle,
   since red needles are common), unless the drag pointer is seen, red, and the other pointer's
   colour is far from red's (a blue needle); a drag pointer's red washed out (fog, blur: a faint
   colour of red's hue, not a black's noise) is still the drag pointer, and the one grey pointer beside it the needle. Abstaining so, or finding no pointer, the pointers are looked for
   again about a hub (a filled disc of ink) off the scale's centre (a needle raised above the face,
   seen at an angle): the value is where the line of the needle found there meets the tick ring,
   what its tip points at.
5. Abstain whenever this cannot be met: no dial, polarity unclear, too few ticks, an arc that
   is no gauge's arc or whose ends are in doubt, no pointer or its tip not reaching the scale
   (the picture's edge is no ink; its line leaving the picture short of the ticks, or running
   into a cover over the ring short of it: its tip unseen), the pointer off the scale, too few
   pixels per 2 % of the span.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from alpha_matrix.core.suites.gauge.dial.common import (
    CANON,
    N_ANG,
    N_RAD,
    SEEN_MIN,
    angle_of_bin,
    peaks,
    polar,
    smooth_ang,
)
from alpha_matrix.core.suites.gauge.dial.geometry import Dial, dial_from_ticks, find_dial, recentred
from alpha_matrix.core.suites.gauge.dial.numerals import read_labels, scale_from_labels
from alpha_matrix.core.suites.gauge.dial.pointers import (
    MIN_RAY,
    STUB_RUN,
    TIP_RUN,
    beside,
    has_tail,
    is_red,
    off_pivot,
    pointers,
    ray_pixels,
    refine,
    run_from_hub,
    thin,
    value_pointer,
)
from alpha_matrix.core.suites.gauge.dial.scale import (
    TickScale,
    agrees,
    arc,
    covers,
    ring_centre,
    stated,
    tick_lengths,
    zone,
)

WORK_PX = 640  # the image is reduced to at most this many px on its long side
BLADE_MEDIAN_PX = 75  # canonical px: the face's median around a pointer wider than the ink's window
PIVOT_SAMPLES, PIVOT_FILL = 3, 0.9  # radial samples (0.03 R) about the centre nearly all ink: a pivot
RECENTRE_FIT = 0.02  # R: median distance of the ticks' ends from their circle, at most
RECENTRE_MIN, RECENTRE_MAX = 0.01, 0.25  # R: the tick ring's centre this far off is read about
RECENTRE_HUB_MIN = 0.05  # R: ... this far off when a hub was seen
STATED_DISAGREES = "ticks do not match the stated arc"  # the scale read (ticks, numerals) is not the stated arc:
# no other ring or dial is then tried (a search for one agreeing with a wrong statement found one 2 % off)
SCALE_REASONS = ("no dial found", "no tick ring found", "fewer than 6 ticks visible", "ticks too irregular",
                 "arc ends not clear", "dial centre unclear", "several pointers, value pointer ambiguous",
                 "only a red pointer, value pointer ambiguous")  # fmt: skip
# ... a dial found from its ticks' lines (no rim; a pivot off the rim's centre) is tried on these
ELLIPSE_RETRY = (*SCALE_REASONS, "pointer tip not visible")  # ... and its ticks' nearly round ellipse on these
SAME_RING = 0.1  # of its radius: a ring found from the ticks this close to the first dial's is that one
RING_MIN, RING_MAX = 0.45, 1.3  # radii (of R) where the tick ring may lie: the circle found may be a
# bezel's inner edge (ticks inside it) or a plate's arc line or numeral ring (ticks outside it)
PIVOT_RETRY = ("several pointers, value pointer ambiguous", "only a red pointer, value pointer ambiguous",
               "no pointer found")  # fmt: skip
# ... the pointers are looked for again about a hub off the centre on these
RING_RETRY = ("ticks too irregular", "arc ends not clear", "fewer than 6 ticks visible")
# ... on these the next ring of marks is read (the first may be the numerals': a short scale's ticks
# are no more "ticky" than a ring of numerals' strokes)
RING_SKIP = 0.05  # R: the next ring lies this far clear of the band read first
TIP_COVER = 12  # angle bins (6 deg): a cover over the needle's tip reaches this far beyond it either
# side (a wide blade crossing the ring looks like a cover of its own)
RAY_COVER = 12  # angle bins (6 deg) either side of a pointer crossing the ring that it may hide a tick in
# (at most half a coarse scale's pitch)
NEXT_TIP_RUN = 0.95  # share of hub-to-ticks the needle covers on the next ring read (its tip at the ticks)
NEXT_RING_MAX = 1.0  # R: the next ring read lies inside the dial's circle (its rim, or its ticks' circle)
NEXT_COVER_MAX = 180.0  # deg: ... and less than half of it is covered
WIDE_RING_FIT = 0.05  # R: the ring read on the face's wider median: its ticks' ends this near a circle, at most


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


def read_dial(image: np.ndarray, spec: DialSpec, min_contrast: float = 20.0, noise_k: float = 4.0) -> DialReading:
    """Read ``image`` (H, W, 3 uint8 RGB) of a dial described by ``spec``."""
    ev: dict[str, float] = {}

    def abstain(reason: str) -> DialReading:
        return DialReading(None, None, spec.unit, reason, ev)

    rgb = np.ascontiguousarray(image, dtype=np.uint8)
    scale = min(1.0, WORK_PX / max(rgb.shape[:2]))
    if scale < 1.0:
        rgb = np.asarray(cv2.resize(rgb, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA), np.uint8)
    dial = find_dial(rgb)
    first = abstain("no dial found") if dial is None else _read_about(rgb, dial, spec, ev, min_contrast, noise_k, scale)
    if first.value is not None or first.reason not in SCALE_REASONS:
        return first
    # no rim, or a rim that is not the scale's (a printed dial on a plate): the dial from its ticks
    # (radial marks whose lines meet at the pivot), read again; the first reason stands otherwise
    found = dial_from_ticks(rgb)
    if found is None or (dial is not None and _same_ring(dial, ev, found[0], scale)):
        return first  # the same ring again: nothing new to read
    alt, flat = found
    ev_alt: dict[str, float] = {"from_ticks": 1.0}
    got = _read_about(rgb, alt, spec, ev_alt, min_contrast, noise_k, scale)
    # on this second look a lone red pointer beside another ray (a needle's base, its blade hidden)
    # is not taken for the needle
    if ev_alt.get("pointer_red", 0.0) >= 1.0:
        return first
    if got.value is None and got.reason in ELLIPSE_RETRY and flat is not None:
        # the ticks read about their circle give no scale, or no needle reaching it: a plate turned
        # a little (its ticks' ellipse nearly round) bends their gaps, and the circle through a
        # short scale's ticks (180 deg) drifts along its axis, off the pivot; read about that ellipse
        ev_flat: dict[str, float] = {"from_ticks": 1.0, "ticks_ellipse": 1.0}
        again = _read_about(rgb, flat, spec, ev_flat, min_contrast, noise_k, scale)
        if again.value is not None and ev_flat.get("pointer_red", 0.0) < 1.0:
            return again
    if got.value is None:  # no rim found at all: the dial found from its ticks says why it is not read
        return got if dial is None else first
    return got


def _read_about(
    rgb: np.ndarray, dial: Dial, spec: DialSpec, ev: dict[str, float], min_contrast: float, noise_k: float,
    scale: float, wide_ink: bool = False,
) -> DialReading:  # fmt: skip
    dial0 = dial
    got = _read(dial, spec, ev, min_contrast, noise_k, scale, wide_ink=wide_ink)
    if isinstance(got, tuple):  # no hub seen: the tick ring's centre is the dial's, read again about it
        ev.update(recentred_x=got[0], recentred_y=got[1])
        dial = recentred(rgb, dial, got)
        got = _read(dial, spec, ev, min_contrast, noise_k, scale, recentre=False, wide_ink=wide_ink)
    if isinstance(got, tuple):
        return DialReading(None, None, spec.unit, "dial centre unclear", ev)
    if got.value is None and got.reason in RING_RETRY and "tick_r_in" in ev:
        # the ring read may be the numerals' (a ring of narrow strokes as "ticky" as a short scale's
        # ticks, printed inside them): the next ring of marks outside that one is read in turn; the
        # first reason stands unless it gives a value
        ev_next = dict(ev, next_ring=1.0)
        beyond = ev["tick_r_out"] + RING_SKIP
        nxt = _read(dial, spec, ev_next, min_contrast, noise_k, scale, recentre=False, beyond=beyond, wide_ink=wide_ink)
        # its needle must reach that ring (a needle short of it reached the first ring only), the
        # ring must lie on the dial's face, inside its rim (beyond it: a bezel's or an object's edges,
        # read as ticks: a wrong value), and most of it must be seen
        reached = ev_next.get("pointer_run", 0.0) >= NEXT_TIP_RUN
        on_face = ev_next.get("tick_r_out", 2.0) <= NEXT_RING_MAX
        seen = ev_next.get("ring_covered_deg", 0.0) < NEXT_COVER_MAX
        if isinstance(nxt, DialReading) and nxt.value is not None and reached and on_face and seen:
            return nxt
    if got.value is None and got.reason in RING_RETRY and "tick_r_in" in ev and not wide_ink:
        # dense ticks blurred together fill most of the ink's window (0.15 R): its median is the
        # ticks' own colour, and only their edges are ink; against the face's median over the wider
        # window the ticks are ink again. That reading is taken only with a value, a needle reaching
        # its ring, and the ticks' ends on a circle (an object's edges over the ring, or a view not
        # undone, are ink there too, on no circle: a wrong value)
        ev_w = {k: v for k, v in ev.items() if k == "from_ticks"} | {"wide_ring": 1.0}
        alt = _read_about(rgb, dial0, spec, ev_w, min_contrast, noise_k, scale, wide_ink=True)
        got_ev = alt.evidence
        reached = got_ev.get("pointer_run", 0.0) >= NEXT_TIP_RUN
        if alt.value is not None and reached and got_ev.get("ring_fit", 1.0) <= WIDE_RING_FIT:
            ev.clear()
            ev.update(got_ev)
            return alt
    return got


def _read(
    dial: Dial, spec: DialSpec, ev: dict[str, float], min_contrast: float, noise_k: float, scale: float,
    recentre: bool = True, beyond: float | None = None, wide_ink: bool = False,
) -> DialReading | tuple[float, float]:  # fmt: skip
    """The reading of a found dial, or (no hub seen, ``recentre``) the tick ring's centre to read about."""

    def abstain(reason: str) -> DialReading:
        return DialReading(None, None, spec.unit, reason, ev)

    ev["radius_px"] = dial.px_scale * CANON / scale
    polar_rgb = polar(dial.canon)  # (N_ANG, N_RAD, 3)
    face_rgb = np.median(polar_rgb[:, 25:85].reshape(-1, 3), axis=0)
    # ink: RGB distance from the face around it (its median over 0.15 R), so a shadow's edge or a
    # glare's slope across the dial is face, not ink
    local = cv2.medianBlur(np.clip(dial.canon, 0, 255).astype(np.uint8), 31).astype(np.float32)
    ink = np.sqrt(((polar_rgb - polar(local)) ** 2).sum(axis=2)) / math.sqrt(3.0)
    # outside the picture nothing is seen: no ink there (the warp's replicated border would draw
    # long false marks and pointers), and the tick ring there counts as covered
    unseen = polar(dial.seen) < SEEN_MIN if dial.seen is not None else np.zeros(ink.shape, bool)
    ink[unseen] = 0.0
    noise = _noise(dial.canon)
    bound = max(min_contrast, noise_k * noise)
    ev.update(noise=noise, bound=bound, face_grey=float(face_rgb.mean()))
    # a blade wide at its hub is its own local median there: against the face's median over a
    # wider window it is ink again
    canon_u8 = np.clip(dial.canon, 0, 255).astype(np.uint8)
    wide_canon = _coarse_median(canon_u8, BLADE_MEDIAN_PX)
    wide_local = polar(wide_canon)
    ink_wide = np.sqrt(((polar_rgb - wide_local) ** 2).sum(axis=2)) / math.sqrt(3.0)
    ink_wide[unseen] = 0.0
    # --- tick ring
    ring_ink = ink_wide if wide_ink else ink  # (dense ticks blurred together: see ``_read_about``)
    hp = ring_ink - smooth_ang(ring_ink, 31)  # narrow marks along the ring stand out of their surroundings
    energy = np.clip(hp, 0, None)
    marked = (hp > bound).mean(axis=0)
    ring = energy.mean(axis=0) * (marked > 0.02)
    radii = np.arange(N_RAD) / 100.0
    ring[(radii < RING_MIN) | (radii > RING_MAX)] = 0.0
    if beyond is not None:  # a ring read already (and failed): the next one out (a ring inside it may
        ring[radii <= beyond] = 0.0  # be a hand's fingers or the numerals, read as ticks: a wrong value)
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
    ticks = peaks(prof, bound * 0.5, 3)
    fit = ring_centre(hp, ticks, lo_j, hi_j, bound)
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
    ink_ptr = np.maximum(ink, ink_wide)
    inner = ink_ptr[:, j0:j1]
    thin_ink = thin(inner, polar_rgb[:, j0:j1], radii[j0:j1], bound)  # ink with the face beside it
    wide = smooth_ang(thin_ink, 3) > 0.3  # a pointer 1-2 bins wide
    # (N_ANG,) fraction of [r0, r1] covered from r0 outward, its gaps bridged only over ink
    run = run_from_hub(wide, smooth_ang((inner > bound).astype(np.float32), 3) > 0)
    cand = [k for k in peaks(run, MIN_RAY, 16) if run[k] >= MIN_RAY]  # every ray from the hub, short ones too
    # a pointer crossing the ring is no tick (a tick under it is left out: a hidden tick is allowed);
    # a stub barely out of the hub (a needle's tail) is no pointer and crosses no tick
    crossing = [k for k in cand if run[k] >= STUB_RUN]
    ticks = [t for t in ticks if all(min(abs(t - k), N_ANG - abs(t - k)) > 4 for k in crossing)]
    # where the tick ring is covered by something that is not the face (an occluder, a shattered patch)
    ring_rgb = np.median(polar_rgb[:, lo_j : hi_j + 1], axis=1)
    hidden = np.sqrt(((ring_rgb - face_rgb) ** 2).sum(axis=1) / 3.0) > bound
    hidden &= ~zone(polar_rgb[:, lo_j : hi_j + 1], face_rgb, bound)
    differs = smooth_ang(hidden.astype(np.float32), 5) > 0.5
    out_of_view = unseen[:, lo_j : hi_j + 1].any(axis=1)
    hidden = covers(differs, ticks) | out_of_view
    ev["ring_covered_deg"] = float(hidden.sum()) * 360.0 / N_ANG
    # the arc is read from the ticks as if not stated; a stated arc then checks it (``scale.agrees``)
    plain = replace(spec, arc_start_deg=None, arc_end_deg=None)
    marks = ticks
    ticks, ang, strength, lengths = _ticks_beside(marks, hidden, prof, hp, lo_j, hi_j, bound)
    got_arc = arc(ang, strength, plain, hidden, lengths)
    if got_arc == "arc ends not clear":
        # an occluder's own edges (a hand's fingers, a box's corners) are marks over the stretch it
        # hides, a few where the scale's pitch puts many: that stretch is a cover too, read again
        sparse = covers(differs, marks, sparse=True) | out_of_view
        # not over more than half the ring: the face's colour is then what is in doubt (a plate
        # under uneven light, the bare half of a 180 deg scale's ring shaded, read 6 % off)
        if (sparse != hidden).any() and int(sparse.sum()) <= N_ANG // 2:
            seen_ticks = _ticks_beside(marks, sparse, prof, hp, lo_j, hi_j, bound)
            again = arc(*seen_ticks[1:3], plain, sparse, seen_ticks[3])
            if not isinstance(again, str):
                ev.update(sparse_cover=1.0, ring_covered_deg=float(sparse.sum()) * 360.0 / N_ANG)
                got_arc, hidden, (ticks, ang, strength, lengths) = again, sparse, seen_ticks
    long_rays = [k for k in cand if run[k] >= TIP_RUN]
    if got_arc == "arc ends not clear" and long_rays:
        # an end tick under a pointer crossing the ring (a drag pointer left at the scale's end):
        # the ring under each pointer counts as covered, the arc read again
        under = hidden.copy()
        for k in long_rays:
            under[np.arange(k - RAY_COVER, k + RAY_COVER + 1) % N_ANG] = True
        again = arc(ang, strength, plain, under, lengths)
        if not isinstance(again, str):
            ev["end_under_pointer"] = 1.0
            got_arc = again
    if isinstance(got_arc, str) and stated(spec) is not None:
        # the ends in doubt: the stated ends may be where the ticks stop
        as_stated = arc(ang, strength, spec, hidden, lengths)
        if not isinstance(as_stated, str):
            ev["arc_as_stated"] = 1.0
            got_arc = as_stated
    if isinstance(got_arc, str):  # the ends in doubt: the printed numerals may state the scale
        by_labels = scale_from_labels(
            read_labels(dial.canon, (float(r_in), float(r_out)), bound=bound, seen=dial.seen, local=local,
                        radius=CANON, px_scale=dial.px_scale), plain)  # fmt: skip
        if isinstance(by_labels, str):
            return abstain(got_arc)
        ev["arc_from_numerals"] = 1.0
        got_arc = by_labels
    table = got_arc if isinstance(got_arc, TickScale) else None
    start, sweep = (got_arc.start, got_arc.sweep) if isinstance(got_arc, TickScale) else got_arc
    # start: angle of lo; sweep: positive deg in the value's direction
    ev.update(arc_start_deg=start, sweep_deg=sweep, arc_from_ticks=float(table is not None))
    if not agrees(got_arc, spec):  # the scale seen is not the stated arc: a statement or a reading wrong
        return abstain(STATED_DISAGREES)
    raw_px = [ray_pixels(polar_rgb[:, j0:j1], inner, k, bound) for k in cand]
    # a ray whose pixels are the face's own colour is no mark on it (ink only against the wider
    # median, which a large hub cap darkens about itself)
    face_like = [len(p) > 0 and _dist(np.median(p, axis=0), face_rgb) <= bound for p in raw_px]
    ev["face_rays"] = float(sum(face_like))
    raw = [k for k, f in zip(cand, face_like, strict=True) if not f]
    raw_px = [p for p, f in zip(raw_px, face_like, strict=True) if not f]
    cand = pointers(raw, run, raw_px, [ray_pixels(polar_rgb[:, j0:j1], inner, k, bound, root=True) for k in raw])
    # a pointer on a pivot: a hub seen, a disc of ink at the (tick ring's) centre, or its own tail
    # past the centre (a drag pointer, a thin line from under the needle's hub, has none of them)
    pivoted = (
        dial.hub
        or float((ink_ptr[:, :PIVOT_SAMPLES] > bound).mean()) >= PIVOT_FILL
        or (len(cand) == 1 and has_tail(raw.index(cand[0]), raw, run, raw_px))
    )
    ev["pointers"] = float(len(cand))
    if len(cand) == 1 and is_red(raw_px[raw.index(cand[0])]):
        ev["pointer_red"] = 1.0 if beside(raw.index(cand[0]), raw, raw_px) else 0.5
    got = value_pointer(cand, run, [raw_px[raw.index(k)] for k in cand], pivoted, spec.drag_pointer)
    first_why = ""
    if isinstance(got, str) and got in PIVOT_RETRY:
        # the needle on a pivot off the scale's centre (raised above the face, seen at an angle):
        # its rays are no rays about the centre; about its own hub they are, and where its line
        # meets the tick ring is the reading
        # (failing there too, the first reason stands: a dial found from its ticks may follow)
        off_hub = off_pivot(dial, local, wide_canon, bound, r_in, spec.drag_pointer)
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
        if unseen[k, : lo_j + 1].any():  # its line leaves the picture short of the ticks: its tip unseen
            return abstain("pointer tip not visible")
        # it points into a cover over the ring (wider than a blade: beyond it either side), short
        # of the ring: its tip under the cover
        if run[k] < 1.0 and hidden[[(k - TIP_COVER) % N_ANG, k, (k + TIP_COVER) % N_ANG]].all():
            return abstain("pointer tip not visible")
        deg = refine(ink, k, r0, r1, bound)
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


def _ticks_beside(
    marks: list[int], hidden: np.ndarray, prof: np.ndarray, hp: np.ndarray, lo_j: int, hi_j: int, bound: float
) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    """The ticks clear of the covers (a mark at the edge of a covered stretch is that cover's edge,
    not a tick), with their angles, strengths and lengths."""
    near_cover = smooth_ang(hidden.astype(np.float32), 9) > 0
    ticks = [t for t in marks if not near_cover[t]]
    ang = angle_of_bin(np.array(ticks, float))
    strength = prof[np.array(ticks, int)] if ticks else np.zeros(0)
    return ticks, ang, strength, tick_lengths(hp, ticks, lo_j, hi_j, bound)


def _same_ring(dial: Dial, ev: dict[str, float], alt: Dial, scale: float) -> bool:
    """The dial found from the ticks has the ring the first one was read on (its centre and radius
    within ``SAME_RING`` of its radius)."""
    assert dial.ell is not None and alt.ell is not None
    r_alt = alt.ell[1][0] / 2.0
    r_first = ev["tick_r_out"] * ev["radius_px"] * scale if "tick_r_out" in ev else max(dial.ell[1]) / 2.0
    off = math.hypot(dial.ell[0][0] - alt.ell[0][0], dial.ell[0][1] - alt.ell[0][1])
    return off <= SAME_RING * r_alt and abs(r_first - r_alt) <= SAME_RING * r_alt


def _dist(a: np.ndarray, b: np.ndarray) -> float:
    """RGB distance (per channel, root mean square) of two colours."""
    return float(np.sqrt(((np.asarray(a, float) - np.asarray(b, float)) ** 2).sum() / 3.0))


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
