"""Find the gauge panel in an image and the homography from the image to the face's texture.

The panel is the large bright, colourless region against a darker background. Its outline is
made convex (an occluder biting into an edge leaves a dent, not a corner) and reduced to four
sides: the smallest quadrilateral on four of the simplified hull's edges, so a corner hidden by a
hand is still recovered from the two sides that meet there (the hull's cut across the hand is
left out, however long). The camera keeps the panel upright
(roll 0, tilt <= 50 deg), so the corners are ordered by their bearing from the centroid.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from alpha_matrix.core.suites.gauge.faces import TEXTURE_PX

MIN_PANEL_PX = 300  # area: below this there is nothing to read
MAX_CHROMA = 0.22  # (max - min) / max of a panel pixel: the panel is grey, hands and objects are not
MIN_FILL = 0.6  # area inside the outline (dents and all) / quad area
HOLD_PX = 1.0  # the hull's corners lie within this of the quadrilateral found on its sides


@dataclass(frozen=True, eq=False)
class Panel:
    corners: np.ndarray  # (4, 2) image px: top-left, top-right, bottom-right, bottom-left
    to_face: np.ndarray  # (3, 3) homography image -> texture px
    to_image: np.ndarray  # (3, 3) its inverse

    def image_points(self, uv: np.ndarray) -> np.ndarray:
        pts = cv2.perspectiveTransform(np.asarray(uv, np.float64).reshape(-1, 1, 2), self.to_image)
        return np.asarray(pts.reshape(-1, 2))


def find_panel(rgb: np.ndarray) -> Panel | str:
    """The panel, or why not (a reason for the reader's abstention)."""
    r, g, b = cv2.split(np.ascontiguousarray(rgb, dtype=np.uint8))
    hi, lo = cv2.max(cv2.max(r, g), b), cv2.min(cv2.min(r, g), b)
    grey = mean_grey(rgb)
    border = np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])
    hist = np.cumsum(cv2.calcHist([grey.astype(np.uint8)], [0], None, [256], [0, 256]).ravel())
    bg, top = float(np.median(border)), float(np.searchsorted(hist, 0.97 * hist[-1]))
    noise = 1.4826 * float(np.median(np.abs(np.diff(border)))) / math.sqrt(2.0)
    # Bright against the background (the wall, read on the image border), by hysteresis: pixels a
    # third of the way to the bright level seed the panel, which grows over every connected pixel
    # clearly above the wall, so a shadowed part of the panel stays panel (Otsu would split it).
    neutral = cv2.subtract(hi, lo).astype(np.float32) <= MAX_CHROMA * hi.astype(np.float32)
    strong = (grey > bg + 0.33 * (top - bg)) & neutral
    weak = ((grey > bg + max(0.12 * (top - bg), 5.0 * noise)) & neutral).astype(np.uint8)
    weak = np.asarray(cv2.morphologyEx(weak, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), np.uint8)
    n, labels = cv2.connectedComponents(weak, connectivity=8)
    keep = np.zeros(n, bool)
    keep[np.unique(labels[strong & (weak > 0)])] = True
    keep[0] = False
    mask = keep[labels].astype(np.uint8)
    # Close the dial's dark rim (it splits the panel into a ring and a disc) and the ink.
    k = max(5, int(round(0.014 * max(grey.shape)))) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # The largest outer outline, holes and all.
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return "no gauge panel found"
    outline = max(contours, key=cv2.contourArea)
    if cv2.contourArea(outline) < MIN_PANEL_PX:
        return "no gauge panel found"
    hull = cv2.convexHull(outline)
    corners = _quad(hull)
    if corners is None:
        return "panel outline is not a quadrilateral"
    area = cv2.contourArea(corners.astype(np.float32))
    if area <= 0 or cv2.contourArea(outline) / area < MIN_FILL:
        return "panel outline is not a quadrilateral"
    s = float(TEXTURE_PX)
    face = np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float64)
    to_face = cv2.getPerspectiveTransform(corners.astype(np.float32), face.astype(np.float32))
    return Panel(corners, to_face, np.linalg.inv(to_face))


def mean_grey(rgb: np.ndarray) -> np.ndarray:
    """The mean of the three channels as float32 (the reader's brightness), computed by OpenCV."""
    out = cv2.transform(np.ascontiguousarray(rgb).astype(np.float32), np.full((1, 3), 1.0 / 3.0, np.float32))
    return np.asarray(out)


def _quad(hull: np.ndarray) -> np.ndarray | None:
    """The smallest quadrilateral on four of the simplified hull's sides (in hull order). Each
    side's line bounds the hull, so every such quadrilateral holds it; a corner hidden by a hand
    leaves a cut side across it, and leaving the cut out (the two sides meeting there extended)
    gives the smallest: the panel's own. The four longest sides would keep a long cut."""
    perimeter = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.01 * perimeter, True).reshape(-1, 2).astype(np.float64)
    if len(poly) < 4:
        return None
    edges = [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]
    best: tuple[float, np.ndarray] | None = None
    for chosen in itertools.combinations(edges, 4):  # combinations keep hull order
        quad = _corners(list(chosen))
        if quad is None or not _holds(quad, poly):  # lines crossing behind the hull: no enclosing quad
            continue
        area = cv2.contourArea(quad.astype(np.float32))
        if best is None or area < best[0]:
            best = (area, quad)
    return None if best is None else best[1]


def _holds(quad: np.ndarray, pts: np.ndarray) -> bool:
    q = quad.astype(np.float32).reshape(-1, 1, 2)
    return all(cv2.pointPolygonTest(q, (float(x), float(y)), True) >= -HOLD_PX for x, y in pts)


def _corners(chosen: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray | None:
    corners = []
    for k in range(4):
        pt = _intersect(chosen[k - 1], chosen[k])
        if pt is None:
            return None
        corners.append(pt)
    quad = np.array(corners)
    centre = quad.mean(axis=0)
    bearing = [math.atan2(y - centre[1], x - centre[0]) for x, y in quad]
    quad = quad[np.argsort(bearing)]  # from -pi: top-left, top-right, bottom-right, bottom-left
    if not cv2.isContourConvex(quad.astype(np.float32)):
        return None
    return quad


def _intersect(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> np.ndarray | None:
    d1, d2 = a[1] - a[0], b[1] - b[0]
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-9:
        return None
    t = ((b[0][0] - a[0][0]) * d2[1] - (b[0][1] - a[0][1]) * d2[0]) / den
    return a[0] + t * d1
