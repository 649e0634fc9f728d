"""The scale from the tick ring: the ticks' centre, lengths and pitch, the covers and coloured
zones over the ring, and the arc (a standard sweep, or one read from where the ticks stop: major
period, round steps; or one end seen and the other under a cover, counted in ticks), with the
ticks to read between. A lone mark off the ticks' lattice from both its neighbours, which are
whole pitches apart without it (a needle's edge between the ticks it hides), is no tick; nor is a
mark no longer than a minor tick just beyond an end of the scale with a tick missing between (an
object's edge in the scale's gap)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from alpha_matrix.core.suites.gauge.dial.common import N_ANG, angle_of_bin, chroma

# A 90 deg scale is not among them: read from its ticks it is every larger scale's top quarter
# (the rest of a 270 deg scale's ticks lost, its top 90 deg were read as the whole, 21 % of the span
# off); its numerals (``dial.numerals``) or its face file (``DialSpec.arc_start_deg``, ``arc_end_deg``)
# state its arc.
STANDARD_SWEEPS = (180.0, 240.0, 270.0, 300.0)
SWEEP_TOL = 5.0  # deg: a found arc within this (and 0.4 pitch) of a standard sweep is taken as that sweep
CENTRE_TOL = 6.0  # deg: the scale's middle off 12 o'clock (the image's vertical leans in a perspective view)
RECENTRE_TICKS = 10  # ticks needed to find the dial's centre from the tick ring
RECENTRE_MARGIN = 12  # radial samples beyond the ring's band where a tick's end may lie
ZONE_FACE_SHARE = 0.3  # quantile of the ring's radii, per angle, that must still show the face in a coloured zone
SHADOW_TICKS = 0.5  # share of the ticks its width holds (at the ticks' median pitch) a hidden stretch
# shows when it is a shadow or fog over them; fewer: a cover (an occluder's edges are a few marks)
ZONE_CHROMA = 0.5  # a coloured zone's chroma, at least (a red band; skin and shadows are less)
ARC_MIN, ARC_MAX = 170.0, 315.0  # deg: sweeps an arc read from where its ticks stop may have
MIN_CLEAR_DEG = 12.0  # deg of face, clear of any cover, beyond each end of an arc read from its ticks
END_MIN_LEN = 0.5  # an end tick of an arc read from its ticks is at least this share of the median tick long
END_MAJOR = 0.8  # an end tick is at least this share of the median major's length
END_PLACE = 0.25  # pitch: a tick's place this near a cover is under it (an end read under a cover)
OFF_LATTICE = 0.3  # pitch: a mark this far off where its neighbours put it (a step between marks this far
# from a whole number of pitches) is off the ticks' lattice
MAX_MINORS = 10  # ticks per major interval, at most
MAJOR_SEP = 1.15  # a major mark's length over the median of the marks around it
LOCAL_TICKS = 5  # marks either side that set that median
MAJOR_HIT, MAJOR_FALSE = 0.7, 0.15  # share of a major period's marks that stand out; of the others
STRAY_STEP = 1.25  # pitches: a short mark at an end of the scale this far from the next is off the scale
LONE_GAP = 3.0  # pitches: a mark with no other this near on either side is no tick of the scale
ROUND_STEPS = (1.0, 2.0, 2.5, 5.0, 10.0)  # mantissas of a scale's value per major interval
STATED_ROLL_PITCH = 0.45  # pitch: a stated arc's end this far from the ticks' (or ``CENTRE_TOL`` deg) is theirs


class _Spec(Protocol):
    """What ``arc`` needs of ``dial.DialSpec``."""

    @property
    def clockwise(self) -> bool: ...
    @property
    def arc_start_deg(self) -> float | None: ...
    @property
    def arc_end_deg(self) -> float | None: ...
    @property
    def span(self) -> float: ...


@dataclass(frozen=True)
class TickScale:
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


def zone(band: np.ndarray, face: np.ndarray, bound: float) -> np.ndarray:
    """Per angle: a coloured zone painted along part of the tick ring (a red band by the scale's
    end), not a cover: strongly coloured where it differs from the face, and the face still shows
    over part of the ring's radii there (a hand or a rod covers them all)."""
    dist = np.sqrt(((band - face) ** 2).sum(axis=2) / 3.0)  # (N_ANG, radii)
    some_face = np.quantile(dist, ZONE_FACE_SHARE, axis=1) <= bound
    off = dist > bound
    out = np.zeros(len(band), bool)
    for i in np.nonzero(some_face & off.any(axis=1))[0]:
        out[i] = chroma(band[i][off[i]]) >= ZONE_CHROMA
    return out


def covers(hidden: np.ndarray, ticks: list[int], sparse: bool = False) -> np.ndarray:
    """The stretches of ``hidden`` (per angle bin) 6 deg and wider that show no ticks inside
    (a shadow or fog over the ring leaves its ticks seen: no cover); ``sparse``, also those that
    show far fewer marks than the ticks' pitch puts there (an occluder hides the ticks, and its
    own edges, a hand's fingers, a box's corners, are only a few marks)."""
    out = np.zeros_like(hidden)
    if hidden.all() or not hidden.any():
        return out
    shift = int(np.argmin(hidden))  # start the walk on a bin that is not hidden
    h = np.roll(hidden, -shift)
    t = np.array(sorted((k - shift) % N_ANG for k in ticks), int)
    # the ticks' pitch (bins): the median step between neighbouring marks
    pitch = float(np.median(np.diff(np.concatenate([t, t[:1] + N_ANG])))) if len(t) >= 2 else float(N_ANG)
    few = SHADOW_TICKS / pitch if sparse else 0.0  # marks per bin a stretch must show to be no cover
    i = 0
    while i < N_ANG:
        if not h[i]:
            i += 1
            continue
        j = i
        while j < N_ANG and h[j]:
            j += 1
        inside = int(((t > i + 4) & (t < j - 5)).sum())
        if j - i >= 12 and (inside < 2 or inside < few * (j - i - 9)):
            out[(np.arange(i, j) + shift) % N_ANG] = True
        i = j
    return out


def ring_centre(
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
            a = math.radians(float(angle_of_bin(t)))
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


def tick_lengths(hp: np.ndarray, ticks: list[int], j_in: int, j_out: int, bound: float) -> np.ndarray:
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


def arc(
    ang: np.ndarray,
    strength: np.ndarray,
    spec: _Spec,
    hidden: np.ndarray | None = None,
    length: np.ndarray | None = None,
) -> tuple[float, float] | TickScale | str:
    """The scale from the tick angles: the arc with the ticks to read between; (angle of lo, sweep)
    where no ticks span it (a stated arc, an end under a cover given by the other and a standard
    sweep); or why not. ``hidden``: per angle bin, whether the tick ring there is covered by
    something that is not the face."""
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
        got = _arc_from_gap(a, ln, gaps, g, spec, hidden)
        if not isinstance(got, str):
            return got
        first_why = first_why or got
    # a lone mark far from any other (a label's or a sticker's stroke in the scale's gap) splits
    # that gap: without it, read again; the first reason stands otherwise
    small = gaps < 0.5 * gaps.max()
    if small.any():
        pitch = _pitch(gaps[small])
        lone = (gaps >= LONE_GAP * pitch) & (np.roll(gaps, 1) >= LONE_GAP * pitch)
        if lone.any() and len(a) - int(lone.sum()) >= 6:
            got = arc(a[~lone], w[~lone], spec, hidden, ln[~lone])
            if not isinstance(got, str):
                return got
        # a mark no longer than a minor tick beyond an end of the scale, off its lattice or a tick
        # missing between them (an object's or a thumb's edge in the scale's gap), is no end of it
        # (a scale ends on a major tick): without it, read again, as a standard sweep seen whole only
        # (no cover asked to hide an end: marks that may be no scale's read no further)
        stray = _stray_ends(gaps, g_big, ln, pitch)
        if stray.any() and len(a) - int(stray.sum()) >= 6:
            got = arc(a[~stray], w[~stray], spec, None, ln[~stray])
            if not isinstance(got, str):
                return got
    return first_why


def _stray_ends(gaps: np.ndarray, g: int, ln: np.ndarray, pitch: float) -> np.ndarray:
    """The marks either side of the scale's gap ``g`` (after mark ``g``) that stand out of the
    marks' median length no more than a major tick does (``MAJOR_SEP``) and lie more than
    ``STRAY_STEP`` pitches from their neighbour on the scale's side."""
    n = len(gaps)
    out = np.zeros(n, bool)
    for end, step in ((g, gaps[(g - 1) % n]), ((g + 1) % n, gaps[(g + 1) % n])):
        out[end] = step >= STRAY_STEP * pitch and ln[end] < MAJOR_SEP * np.median(ln)
    return out


def _arc_from_gap(
    a: np.ndarray,
    w: np.ndarray,
    gaps: np.ndarray,
    g: int,
    spec: _Spec,
    hidden: np.ndarray | None,
) -> tuple[float, float] | TickScale | str:
    first = a[(g + 1) % len(a)]  # the scale's first tick counter-clockwise after the gap
    pitch = _pitch(gaps[gaps < 0.5 * gaps[g]]) if (gaps < 0.5 * gaps[g]).any() else 0.0
    if pitch <= 0:
        return "ticks too irregular"
    order = np.argsort((a - first) % 360.0)
    ccw = ((a - first) % 360.0)[order]
    steps = np.diff(ccw) / pitch  # consecutive ticks: whole pitches apart (a hidden tick: two)
    # a lone mark off the lattice from both its neighbours, which are whole pitches apart (a needle's
    # edge between two ticks, the tick under it hidden), is no tick: without it the count of
    # pitches between them is right (a view not undone bends a run of steps: no lone mark)
    off = np.abs(steps - np.round(steps)) >= OFF_LATTICE
    if len(steps) >= 3:
        joined = steps[:-1] + steps[1:]
        ok_out = np.concatenate([[True], ~off[:-2]]) & np.concatenate([~off[2:], [True]])
        stray = off[:-1] & off[1:] & (np.abs(joined - np.round(joined)) < OFF_LATTICE) & ok_out
        if stray.any():
            keep = np.concatenate([[True], ~stray, [True]])
            order, ccw = order[keep], ccw[keep]
            steps = np.diff(ccw) / pitch
    if np.mean(np.abs(steps - np.round(steps)) < OFF_LATTICE) < 0.8 or (np.round(steps) < 1).any():
        return "ticks too irregular"
    idx = np.concatenate([[0.0], np.cumsum(np.round(steps))])
    b, c0 = np.polyfit(idx, ccw, 1)
    fit_first = (first + c0) % 360.0
    found = float(idx.max() * b)
    if stated(spec) is not None:
        return _arc_as_stated(idx, ccw, b, first, fit_first, found, spec)
    std = min(STANDARD_SWEEPS, key=lambda x: abs(x - found))
    # the scale's middle at 12 o'clock, within half a pitch and the view's lean
    centre = (fit_first + found / 2.0) % 360.0
    tol_c = max(CENTRE_TOL, 0.45 * b)
    n_seen, longer = int(round(idx.max())), found + b
    lost_end = (
        not _round_scale(n_seen, abs(spec.span))
        and _round_scale(n_seen + 1, abs(spec.span))
        and min(abs(x - longer) for x in STANDARD_SWEEPS) < abs(std - found)
    )
    if abs(std - found) <= min(SWEEP_TOL, 0.4 * b) and _off12(centre) <= tol_c and not lost_end:
        # the ticks seen are the whole scale: read between them (a view not quite undone, a print
        # not quite even, bends the angles by a degree or more mid-scale; the ticks bend with them).
        # Not when their count divides the span into no round steps, one more would, and one pitch
        # more is nearer a standard sweep: an end tick is lost (seven intervals of a 0-160 scale's
        # eight majors: 235 deg, 5 from 240 but 1.4 from 270 with the eighth). A count one over is
        # a mark inside the scale (a needle's edge), which moves no end.
        on = _on_lattice(idx, ccw, b)
        start, sweep = _ends(centre, std, spec)
        return TickScale(start, sweep, first % 360.0, ccw[on] - ccw[0], idx[on] / idx.max())
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
            bins = _bins(np.arange(gap0, gap1 + 0.25, 0.5))
            # and that sweep's end lies under the cover (its place seen bare: the scale ends short of it)
            end = gap1 if seen_lo else gap0
            under = bool(hidden[_bins(end + np.arange(-END_PLACE * b, END_PLACE * b + 0.25, 0.5))].any())
            if len(bins) and float(hidden[bins].mean()) >= 0.7 and under:
                fits.append((mid % 360.0, sweep))
    if len(fits) == 1:
        return _ends(*fits[0], spec)
    return _arc_end_covered(idx, w[order], b, fit_first, spec, hidden, ccw - (b * idx + c0))


def stated(spec: _Spec) -> tuple[float, float] | None:
    """The stated arc, (angle of lo, sweep in the value's direction), or None when not stated."""
    s, e = spec.arc_start_deg, spec.arc_end_deg
    if s is None or e is None:
        return None
    return s % 360.0, ((s - e) if spec.clockwise else (e - s)) % 360.0


def agrees(got: tuple[float, float] | TickScale, spec: _Spec) -> bool:
    """The scale read (from the ticks, the numerals) is the stated arc: each of its ends within the
    view's roll of the stated one (``CENTRE_TOL``, or ``STATED_ROLL_PITCH`` of a coarse scale: the
    rectified dial keeps the image's vertical, which a photo's perspective may turn off the face's
    by a few degrees, and a view not quite undone bends the ends' degrees as much; the standard
    path allows as much about 12 o'clock). The statement only checks the scale: the value is read
    between the ticks seen (the stated degrees are the face's, not the rectified image's: read
    linearly from them a rolled view was off)."""
    want = stated(spec)
    if want is None:
        return True
    start, sweep = (got.start, got.sweep) if isinstance(got, TickScale) else got
    pitch = float(np.min(np.diff(got.share))) * got.sweep if isinstance(got, TickScale) else 0.0
    roll = max(CENTRE_TOL, STATED_ROLL_PITCH * pitch)
    sign = -1.0 if spec.clockwise else 1.0  # the hi end from the lo end
    return _angle_off(start, want[0]) <= roll and _angle_off(start + sign * sweep, want[0] + sign * want[1]) <= roll


def _arc_as_stated(
    idx: np.ndarray, ccw: np.ndarray, b: float, first: float, fit_first: float, found: float, spec: _Spec
) -> TickScale | str:
    """The ticks seen are the stated arc: their sweep within 0.4 pitch (and ``SWEEP_TOL``) of the
    stated one and their lo end where stated, within the view's roll (see ``agrees``); the value
    is then read between them, as on a standard sweep. Else the statement and the ticks disagree
    (an end tick lost, a statement wrong): no scale."""
    want = stated(spec)
    assert want is not None
    start, _ = _ends((fit_first + found / 2.0) % 360.0, found, spec)
    if abs(found - want[1]) > min(SWEEP_TOL, 0.4 * b):
        return "ticks do not cover the stated arc"
    if _angle_off(start, want[0]) > max(CENTRE_TOL, STATED_ROLL_PITCH * b):
        return "ticks do not cover the stated arc"
    on = _on_lattice(idx, ccw, b)
    return TickScale(start, want[1], first % 360.0, ccw[on] - ccw[0], idx[on] / idx.max())


def _angle_off(a: float, b: float) -> float:
    d = abs(a - b) % 360.0
    return min(d, 360.0 - d)


def _off12(deg: float) -> float:
    return min(abs(deg - 90.0), 360.0 - abs(deg - 90.0))


def _ends(centre: float, sweep: float, spec: _Spec) -> tuple[float, float]:
    start_ccw, end_ccw = (centre - sweep / 2.0) % 360.0, (centre + sweep / 2.0) % 360.0
    return (end_ccw, sweep) if spec.clockwise else (start_ccw, sweep)


def _arc_from_ends(
    idx: np.ndarray,
    w: np.ndarray,
    b: float,
    first: float,
    spec: _Spec,
    hidden: np.ndarray | None,
    res: np.ndarray,
    std: float | None = None,
) -> TickScale | str:
    """The arc from where its ticks stop, any sweep, anywhere on the dial (a dial turned in its
    plate, a sweep no standard one). Only when the ends are beyond doubt: both end ticks are major
    ticks (a regular lattice of stronger marks), the face beyond each end is seen clear of any
    cover for a major interval (an end under a hand or out of the picture would look like an end),
    and the range divides into a round value per major interval (one major lost at an end
    would leave 600/5 = 120 a major). The value is then read between the ticks seen either side
    of the pointer, as a technician does (a view not quite undone bends the pitch: the ends' fit
    alone would be off mid-scale)."""
    kept = _end_to_end(idx, w, b, first, res)
    if kept is None:
        return "arc ends not clear"
    first, idx, w, seen = kept
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
            bins = _bins(np.arange(lo_deg, hi_deg + 0.25, 0.5))
            if hidden[bins].any():
                return "arc ends not clear"
    start, sweep = _ends((first + found / 2.0) % 360.0, found, spec)
    return TickScale(start, sweep, first % 360.0, seen, idx / n)


def _end_to_end(
    idx: np.ndarray, w: np.ndarray, b: float, first: float, res: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray] | None:
    """The ticks from the first to the last mark of a tick's length (a mark off the ring's middle
    is a numeral's stroke), those on the lattice: the first one's angle, their indices counted from
    it, lengths and angles ccw from it; None with fewer than 6 marks."""
    keep = np.nonzero(w >= END_MIN_LEN * np.median(w))[0]
    if len(keep) < 6:
        return None
    seen = b * idx + res  # the ticks' angles, ccw from ``first``
    first, idx, w = first + seen[keep[0]], idx[keep[0] : keep[-1] + 1] - idx[keep[0]], w[keep[0] : keep[-1] + 1]
    seen = seen[keep[0] : keep[-1] + 1] - seen[keep[0]]
    good = _on_lattice(idx, seen, b)
    return first, idx[good], w[good], seen[good]


def _arc_end_covered(
    idx: np.ndarray, w: np.ndarray, b: float, first: float, spec: _Spec, hidden: np.ndarray, res: np.ndarray
) -> TickScale | str:
    """The arc with one end seen and the other under a cover (an end tick under a pointer, a
    glare, an object), counted in ticks, not degrees (a view not quite undone bends the degrees
    but not the count): the end seen is a major tick with the face clear beyond it; the ticks seen
    stop short of a whole number of major intervals by fewer ticks than a major interval holds,
    and each place where those ticks belong (at the pitch of the last ticks seen) lies under the
    cover, which does not reach a major interval farther (the count then in doubt); the range then
    divides into a round value per major interval. The end under the cover is where its tick
    belongs; the value is read between the ticks seen (an end tick lost with nothing over it, a
    scale short of a standard sweep, stays unread)."""
    kept = _end_to_end(idx, w, b, first, res)
    if kept is None:
        return "arc ends not clear"
    first, idx, w, seen = kept
    idx = idx.astype(int)
    n_seen = int(idx[-1])
    found: list[TickScale] = []
    for seen_lo in (True, False):  # the end seen: the counter-clockwise first tick, or the last
        # ticks counted from the end seen, and their angles away from it
        k_idx = idx if seen_lo else (n_seen - idx)[::-1]
        k_w, k_at = (w, seen) if seen_lo else (w[::-1], (seen[-1] - seen)[::-1])
        every = _major_period(k_idx, k_w, ends=(0,))
        if every is None:
            continue
        missing = -n_seen % every
        n = n_seen + missing
        if not missing or not _round_step(abs(spec.span) / (n // every)):
            continue
        m = min(every, len(k_at) - 1)
        pitch = float((k_at[-1] - k_at[-1 - m]) / (k_idx[-1] - k_idx[-1 - m]))
        sweep = float(k_at[-1]) + missing * pitch
        if not ARC_MIN <= sweep <= ARC_MAX or 360.0 - sweep < 2.0 * b:
            continue
        sign = 1.0 if seen_lo else -1.0  # ccw away from the end seen
        end_seen = first if seen_lo else first + float(seen[-1])
        places = end_seen + sign * (float(k_at[-1]) + pitch * np.arange(1, missing + every + 1))
        near = np.arange(-END_PLACE * pitch, END_PLACE * pitch + 0.25, 0.5)
        under = [bool(hidden[_bins(p + near)].any()) for p in places]
        # the missing ticks' places under the cover; a cover over a major interval more leaves
        # the count in doubt (the end may lie a major interval farther)
        if not all(under[:missing]) or all(under):
            continue
        # the face clear beyond the end seen for a major interval (half the scale's gap at most:
        # the other end's cover may reach across the rest)
        clear = max(min(every * b, 0.5 * (360.0 - sweep)), MIN_CLEAR_DEG)
        if hidden[_bins(end_seen - sign * np.arange(0.5 * b, clear + 0.25, 0.5))].any():
            continue
        # the end under the cover, as a tick where it belongs
        if seen_lo:
            at, share = np.append(seen, sweep), np.append(idx, n) / n
            ccw_first = first
        else:
            at, share = np.concatenate([[0.0], seen + missing * pitch]), np.concatenate([[0], idx + missing]) / n
            ccw_first = first - missing * pitch
        start, _ = _ends((ccw_first + sweep / 2.0) % 360.0, sweep, spec)
        found.append(TickScale(start, sweep, ccw_first % 360.0, at, share))
    if len(found) != 1:
        return "arc ends not clear"
    return found[0]


def _bins(deg: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(deg) * N_ANG / 360.0).astype(int) % N_ANG


def _on_lattice(idx: np.ndarray, seen: np.ndarray, b: float) -> np.ndarray:
    """The marks on the lattice their neighbours set (the ends always): one off it by
    ``OFF_LATTICE`` pitch (a needle crossing the ring beside a tick it hides, a numeral's stroke)
    is no tick to read between."""
    good = np.ones(len(seen), bool)
    if len(seen) > 2:
        exp = seen[:-2] + (seen[2:] - seen[:-2]) * (idx[1:-1] - idx[:-2]) / (idx[2:] - idx[:-2])
        good[1:-1] = np.abs(seen[1:-1] - exp) <= OFF_LATTICE * b
    return good


def _major_period(idx: np.ndarray, w: np.ndarray, ends: tuple[int, ...] = (0, -1)) -> int | None:
    """Every how many ticks a major one, counted from the scale's first tick, the end ticks
    (``ends``: both, or the one seen) major: the period whose inner marks nearly all stand out of
    the marks around them (their length over the local median) while nearly no other mark does,
    and whose end ticks stand out too or are as long as its other majors (a minor tick at an end:
    an end lost); None when none is."""
    local = np.array([np.median(w[max(0, i - LOCAL_TICKS) : i + LOCAL_TICKS + 1]) for i in range(len(w))])
    strong = w >= MAJOR_SEP * np.maximum(local, 1e-6)
    inner = np.ones(len(w), bool)
    inner[list(ends)] = False
    best: tuple[float, int] | None = None
    for every in range(2, MAX_MINORS + 1):
        on = idx % every == 0
        if (on & inner).sum() < 2 or on.all():
            continue
        hit, false = float(strong[on & inner].mean()), float(strong[~on].mean())
        long_end = w[list(ends)] >= END_MAJOR * float(np.median(w[on & inner]))
        ends_major = bool((strong[list(ends)] | long_end).all())
        if hit >= MAJOR_HIT and false <= MAJOR_FALSE and ends_major and (best is None or hit - false > best[0]):
            best = (hit - false, every)
    return None if best is None else best[1]


def _round_scale(n: int, span: float) -> bool:
    """Whether ``n`` tick intervals can be a scale of ``span``: some count of major intervals
    divides them, at most ``MAX_MINORS`` ticks to each, with a round value per major interval."""
    return any(n % m == 0 and n // m <= MAX_MINORS and _round_step(span / m) for m in range(1, n + 1))


def _round_step(step: float) -> bool:
    """A scale's value per major interval is a round number: 1, 2, 2.5 or 5 times a power of ten."""
    if step <= 0:
        return False
    mant = step / 10.0 ** math.floor(math.log10(step) + 1e-9)
    return any(abs(mant - m) < 1e-6 * m for m in ROUND_STEPS)
