"""Finding the dial in the image and rectifying it: the rim's ellipse (Hough circles, elliptic
edge contours), the hub (or, none seen, where the ticks' lines meet), the homography that makes the dial a circle of ``CANON`` px (the
centre's polar as the vanishing line), the dial found again from its ticks' lines (no rim), and
the dial rectified again about another centre."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from alpha_matrix.core.suites.gauge.dial.common import CANON, OUT

HUB_DISC = 0.04  # radius (of R) of the filled disc looked for as the pointer's pivot
HUB_WIDE = (0.035, 0.12)  # R: radii of the widest disc of ink taken for a hub cap on a second look
HUB_INK = 0.5  # ink over this share of the strongest near the middle makes up the hub
HUB_CLOSE = 7  # px: holes this small in a hub (a highlight) are closed on a second look
HUB_AROUND = (1.4, 2.0)  # radii (of the disc's) of the annulus where the face must show around a large hub
HUB_AROUND_INK = 0.5  # ... at most this share of it ink (a blade's base and its tail cross it)
HUB_RIDGE, HUB_SPREAD = 0.9, 0.02  # the widest disc's centres (over this share of its radius) lie within this (R)
# a dial found from its ticks' lines (no rim; a pivot off the rim's centre):
VOTE_SHORT = 0.12  # an edge (Canny) this long (of the picture's side), at most: a mark's, it votes for the pivot
VOTE_STRAIGHT = 0.12  # ... or one on no straight run of edge this long (of the picture's short side)
VOTE_MAX_PX = 6000  # at most this many of them (a random sample)
VOTE_CELL = 2  # px: the vote's grid
VOTE_MIN_PX = 4  # px: an edge votes along its line from this far (its own neighbourhood is no centre)
VOTE_SECTORS = 8  # directions a vote comes from: a centre met from many is a ring's, not a line's
ELL_SECTORS = 72  # sectors of angle about the pivot in which the ticks' outer ends are taken
ELL_MIN_SECTORS = 24  # sectors with a tick, at least, for the ticks' ellipse
ELL_MIN_RATIO = 0.5  # its minor axis over its major, at least
ELL_ROUND = 0.8  # ... and below this (a view turned about 37 deg and more), or the circle is kept
ELL_ROUND_AGAIN = 0.97  # ... below this on a second look, when the circle gave no scale (a plate turned
# 15-35 deg: its ticks' gaps swing 8-10 deg about a 9 deg pitch on the circle, too irregular to read)
ELL_CENTRE_OFF = 0.15  # its centre this far (of its radius) from the pivot, at most
PIVOT_TICKS_MIN, PIVOT_TICKS_OFF = 60, 0.2  # no hub seen: edges meeting at the pivot, its offset (R)
PIVOT_TICKS_TOL = 0.02  # R: an edge's line passing this near a point meets there
RADIAL_EDGE = 0.9  # |cos| of an edge's direction to the radius: an edge along it (a tick's side)

Ellipse = tuple[Sequence[float], Sequence[float], float]  # cv2.fitEllipse: centre, axes, angle


@dataclass(frozen=True)
class Dial:
    """A dial found and rectified: its canonical view, and how it was found."""

    canon: np.ndarray  # rectified RGB float32 (2C+1, 2C+1, 3), dial centred, radius CANON
    px_scale: float  # image px per canonical px (the smaller axis of the ellipse)
    hub: bool = False  # a filled disc of ink (a pointer's pivot) was seen at the centre
    seen: np.ndarray | None = None  # canonical px inside the picture (1.0), outside it (0.0)
    ell: Ellipse | None = None  # the dial's rim in the (work-size) image
    g: np.ndarray | None = None  # homography image -> canonical px


def find_dial(rgb: np.ndarray) -> Dial | None:
    """The dial as the largest well-supported ellipse in the image, rectified about its hub (else
    about the ellipse's centre); None when no ellipse is."""
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
    else:
        # no hub seen: the pivot is where the ticks' lines meet (their sides lie on radii, and a
        # line stays a line in any view), not the ellipse's own centre
        pivot = _ticks_pivot(rgb, ell)
        if pivot is not None:
            g_final = _to_canon(ell, np.array(pivot))
            canon = _warp(rgb, g_final)
    return _make_dial(rgb, ell, g_final, canon, hub is not None)


def _ticks_pivot(rgb: np.ndarray, ell: Ellipse) -> tuple[float, float] | None:
    """Where the lines of the marks' edges inside the rim meet, when clearly: the point within
    ``PIVOT_TICKS_OFF`` of its radius from the ellipse's centre that most of them pass (a vote, as
    the ellipse's centre is off the pivot in a view at an angle), refined by least squares; met by
    ``PIVOT_TICKS_MIN`` edges at least."""
    got = _mark_edges(rgb)
    if got is None:
        return None
    xs, ys, tx, ty = got
    (ex, ey), (d0, d1), _ = ell
    rad = max(d0, d1) / 2.0
    dist = np.hypot(xs - ex, ys - ey)
    ring = (dist > 0.4 * rad) & (dist < 1.1 * rad)
    xs, ys, tx, ty = xs[ring], ys[ring], tx[ring], ty[ring]
    if len(xs) < PIVOT_TICKS_MIN:
        return None
    step = max(1.0, 0.01 * rad)
    grid = np.arange(-PIVOT_TICKS_OFF * rad, PIVOT_TICKS_OFF * rad + step, step)
    mx, my = np.meshgrid(ex + grid, ey + grid)
    gx, gy = mx.ravel(), my.ravel()
    tol = max(1.5, PIVOT_TICKS_TOL * rad)
    score = np.zeros(len(gx))
    for i in range(0, len(gx), 256):
        miss = np.abs((xs[None] - gx[i : i + 256, None]) * ty[None] - (ys[None] - gy[i : i + 256, None]) * tx[None])
        score[i : i + 256] = (miss < tol).sum(axis=1)
    best = int(np.argmax(score))
    cx, cy, n = _lines_meet(xs, ys, tx, ty, float(gx[best]), float(gy[best]), rad, tols=(PIVOT_TICKS_TOL,))
    # the most lines meet at the search's edge: the pivot may lie farther (the ellipse is not the
    # dial's: a plate's edge, a printed arc), where it was not looked for
    edge = max(abs(gx[best] - ex), abs(gy[best] - ey)) >= PIVOT_TICKS_OFF * rad - step
    if n < PIVOT_TICKS_MIN or edge or math.hypot(cx - ex, cy - ey) > PIVOT_TICKS_OFF * rad:
        return None
    return cx, cy


def _mark_edges(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The edge pixels of short marks (ticks, numerals' strokes), not of long straight runs (a
    plate's, a pipe's, the needle's side): positions and unit directions along the edge."""
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
    return xs, ys, tx, ty


def _lines_meet(
    xs: np.ndarray, ys: np.ndarray, tx: np.ndarray, ty: np.ndarray, cx: float, cy: float, rad: float,
    tols: tuple[float, ...] = (0.1, 0.06, 0.04),
) -> tuple[float, float, int]:  # fmt: skip
    """The point nearest (least squares) to the lines of the marks' edges near ``(cx, cy)``, the
    ring of radius ``rad`` about it, with how many edges agreed."""
    n = 0
    for tol in tols:
        dx, dy = xs - cx, ys - cy
        dist = np.hypot(dx, dy) + 1e-6
        miss = np.abs(dx * ty - dy * tx)  # the edge's line passes this far from the centre
        on = (miss < max(2.0, tol * rad)) & (dist > 0.4 * rad) & (dist < 1.2 * rad)
        if on.sum() < 30:
            break
        n = int(on.sum())
        t2 = np.stack([tx[on], ty[on]], axis=1)
        proj = np.eye(2)[None] - t2[:, :, None] * t2[:, None, :]
        pts = np.stack([xs[on], ys[on]], axis=1).astype(float)
        cx, cy = (float(v) for v in np.linalg.solve(proj.sum(axis=0), np.einsum("nij,nj->i", proj, pts)))
    return cx, cy, n


def dial_from_ticks(rgb: np.ndarray) -> tuple[Dial, Dial | None] | None:
    """The dial as the circle of its ticks, for a dial with no rim of its own (printed on a plate):
    the edges of a radial mark lie on lines through the pivot, so the pivot is where the short
    edges' lines meet from most directions (long edges, a plate's, a pipe's or the needle's, do
    not vote); the ring's radius is where those edges, radial about that point, are densest.
    Rectified about the ellipse of the ticks' outer ends when it is clearly flat. Returned with
    the dial for a second look: that ellipse's when it is nearly round (the circle kept), else None."""
    got = _mark_edges(rgb)
    if got is None:
        return None
    xs, ys, tx, ty = got
    h, w = rgb.shape[:2]
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
    cx, cy, _ = _lines_meet(xs, ys, tx, ty, cx, cy, rad)
    flat = _ticks_ellipse(xs, ys, tx, ty, (cx, cy), rad)
    if flat is not None and min(flat[1]) < ELL_ROUND * max(flat[1]):  # clearly flat: the view is turned
        return _about(rgb, flat, (cx, cy)), None
    circle = _about(rgb, ((cx, cy), (2 * rad, 2 * rad), 0.0), (cx, cy))
    return circle, None if flat is None else _about(rgb, flat, (cx, cy))


def _about(rgb: np.ndarray, ell: Ellipse, pivot: tuple[float, float]) -> Dial:
    """The dial rectified about ``ell`` with its centre's image at ``pivot`` (no hub seen)."""
    g = _to_canon(ell, np.array(pivot))
    return _make_dial(rgb, ell, g, _warp(rgb, g), False)


def _ticks_ellipse(
    xs: np.ndarray, ys: np.ndarray, tx: np.ndarray, ty: np.ndarray, centre: tuple[float, float], rad: float
) -> Ellipse | None:
    """The ellipse through the ticks' outer ends (a circle of ticks seen at an angle): per sector of
    angle about the pivot, the farthest edge lying along a radius (a tick's side); sectors with none
    near the ring (the scale's gap, a label there) left out, the fit's outliers dropped once. None
    when too few sectors hold a tick or the fit is no dial's (far off the pivot, too flat, too far
    from the ring's radius)."""
    dx, dy = xs - centre[0], ys - centre[1]
    dist = np.hypot(dx, dy) + 1e-6
    along = np.abs(tx * dx + ty * dy) / dist >= RADIAL_EDGE  # the edge runs along the radius
    on = along & (dist > 0.4 * rad) & (dist < 1.3 * rad)
    sector = (np.floor((np.arctan2(dy, dx) + math.pi) / (2 * math.pi) * ELL_SECTORS).astype(int)) % ELL_SECTORS
    outer = []
    for k in range(ELL_SECTORS):
        m = on & (sector == k)
        if m.sum() >= 2:
            i = int(np.argmax(np.where(m, dist, -1.0)))
            outer.append((dist[i], xs[i], ys[i]))
    if len(outer) < ELL_MIN_SECTORS:
        return None
    d = np.array([o[0] for o in outer])
    pts = np.array([[o[1], o[2]] for o in outer], np.float32)[d >= 0.8 * np.median(d)]
    if len(pts) < ELL_MIN_SECTORS:
        return None
    ell = cv2.fitEllipse(pts)
    res = _ell_residual(pts.astype(float), ell)
    keep = res <= max(2.0, 3.0 * float(np.median(res)))
    if keep.sum() < ELL_MIN_SECTORS:
        return None
    (ex, ey), (a0, a1), ang = cv2.fitEllipse(pts[keep])
    mean_r = (a0 + a1) / 4.0
    if min(a0, a1) < ELL_MIN_RATIO * max(a0, a1) or not 0.6 * rad <= mean_r <= 1.4 * rad:
        return None
    if min(a0, a1) >= ELL_ROUND_AGAIN * max(a0, a1):  # near enough a circle: the circle is the dial, no second look
        return None
    if math.hypot(ex - centre[0], ey - centre[1]) > ELL_CENTRE_OFF * mean_r:
        return None
    return (float(ex), float(ey)), (float(a0), float(a1)), float(ang)


def _make_dial(rgb: np.ndarray, ell: Ellipse, g: np.ndarray, canon: np.ndarray, hub: bool) -> Dial:
    frame = np.ones(rgb.shape[:2], np.float32)
    seen = cv2.warpPerspective(frame, g, (2 * OUT + 1, 2 * OUT + 1), flags=cv2.INTER_LINEAR, borderValue=0.0)
    (_, _), (d0, d1), _ = ell
    return Dial(canon, min(d0, d1) / 2.0 / CANON, hub, np.asarray(seen), ell, g)


def recentred(rgb: np.ndarray, dial: Dial, xy: tuple[float, float]) -> Dial:
    """The dial rectified again about the canonical point ``xy`` (R units, y up) as its centre."""
    assert dial.ell is not None and dial.g is not None
    px = np.array([[OUT + xy[0] * CANON, OUT - xy[1] * CANON]])
    centre_img = _apply(np.linalg.inv(dial.g), px)[0]
    g = _to_canon(dial.ell, centre_img)
    return _make_dial(rgb, dial.ell, g, _warp(rgb, g), dial.hub)


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
    got = disc(on, HUB_DISC)
    if isinstance(got, tuple):
        return got[0] + c - w, got[1] + c - w
    if got != "empty":
        # a blade wide at its base fills the small disc all along it, a highlight leaves a hole
        # in the cap: the cap is then the widest disc of ink (holes closed), with face around it
        wide = widest_disc(on)
        if wide is not None:
            return wide[0] + c - w, wide[1] + c - w
    return None


def widest_disc(on: np.ndarray) -> tuple[float, float] | None:
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


def disc(on: np.ndarray, frac: float) -> tuple[float, float] | str:
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
