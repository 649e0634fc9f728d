"""The classical gauge reader: read the value, or abstain with a reason.

Settings (evidence bounds): settings.ReaderSettings, the gauge_reader node's parameters.

``read_gauge(image, face)`` gets the camera image and the face it is pointed at (the layout an
inspection route knows: span, unit, where the ticks are), never the item, its label or its value.

1. Panel and homography (``panel.py``); the face is rectified to texture coordinates.
2. Calibration from the face's tick layout: every labelled tick is looked for near where the
   layout puts it; the ones found (a dark mark with paper either side) fix the small rotation
   (dial) or the height-to-value line (sight glass) left by the homography. Fewer than
   ``min_ticks`` (3) found: abstain -- the reader could only trust the panel outline, and that is
   not a reading (with two, one tick misfound under blur goes unchecked).
3. The indicator. Dial: the darkest ray of the needle's range between hub and labels, refined,
   then its tip region must show a thin dark mark with paper both sides (an occluder, glare, a
   shattered patch, fog or a broken needle leaves no such mark). Sight glass: the strongest
   glass-to-liquid step along the tube, with liquid colour below it from wall to wall of the tube
   and the panel seen beside it on both sides (an object as blue as the liquid, or its corner
   over the glass, has an edge that looks like a surface).
4. Resolution: 2 % of the span must move the indicator by a pixel of the image.

Every threshold is relative to the noise the reader measures in the image itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from alpha_matrix.core.suites.gauge.faces import MAJOR_IN, TEXTURE_PX, TICK_OUT, TIP_REGION, GaugeFace
from alpha_matrix.core.suites.gauge.panel import Panel, find_panel, mean_grey
from alpha_matrix.core.suites.gauge.settings import ReaderSettings

LEFT_PANEL = (
    0.3  # the panel left of the tube (ticks and all), under the surface, at least this bright over the clear glass
)


@dataclass(frozen=True)
class Reading:
    value: float | None
    uncertainty: float | None  # 1 sigma, in the face's unit
    unit: str
    reason: str = ""  # why it abstained; "" when it read
    evidence: dict[str, float] = field(default_factory=dict)

    @property
    def abstained(self) -> bool:
        return self.value is None


def read_gauge(image: np.ndarray, face: GaugeFace, settings: ReaderSettings | None = None) -> Reading:
    """Read ``image`` (H, W, 3 uint8 RGB) of ``face``."""
    s = settings or ReaderSettings()
    panel = find_panel(image)
    if isinstance(panel, str):
        return Reading(None, None, face.unit, panel)
    flat = cv2.warpPerspective(image, panel.to_face, (TEXTURE_PX, TEXTURE_PX), flags=cv2.INTER_LINEAR)
    rect = flat.astype(np.float32)
    grey = mean_grey(flat)
    noise = _noise(image, panel)
    bound = max(s.min_contrast, s.noise_k * noise)
    evidence = {"noise": noise, "bound": bound}
    if face.kind == "dial":
        return _read_dial(grey, face, panel, s, bound, evidence)
    return _read_column(rect, grey, face, panel, s, bound, evidence)


def _abstain(face: GaugeFace, reason: str, evidence: dict[str, float]) -> Reading:
    return Reading(None, None, face.unit, reason, evidence)


def _noise(image: np.ndarray, panel: Panel) -> float:
    """Sensor noise sigma (8-bit levels): robust spread of a second difference inside the panel."""
    x0, y0 = np.floor(panel.corners.min(axis=0)).astype(int).clip(0)
    x1, y1 = np.ceil(panel.corners.max(axis=0)).astype(int) + 1
    grey = mean_grey(image[y0:y1, x0:x1])
    mask = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(mask, (panel.corners - [x0, y0]).round().astype(np.int32), 1)
    mask = np.asarray(cv2.erode(mask, np.ones((5, 5), np.uint8)), np.uint8)
    if grey.shape[0] < 3 or grey.shape[1] < 3:
        return 0.0
    lap = grey[1:-1, 1:-1] * 2 - grey[1:-1, :-2] - grey[1:-1, 2:]
    vals = lap[mask[1:-1, 1:-1] > 0]
    if vals.size < 50:
        return 0.0
    return float(1.4826 * np.median(np.abs(vals - np.median(vals))) / math.sqrt(6.0))


def _sample(grey: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``grey`` at texture points (..., 2)."""
    flat = np.asarray(pts, np.float32).reshape(-1, 2)
    out = cv2.remap(grey, flat[:, 0].reshape(-1, 1), flat[:, 1].reshape(-1, 1), cv2.INTER_LINEAR, borderValue=0.0)
    return np.asarray(out.reshape(np.asarray(pts).shape[:-1]))


def _polar(face: GaugeFace, deg: np.ndarray, frac: np.ndarray) -> np.ndarray:
    """Texture points for every (angle, radius fraction) pair: shape (len(deg), len(frac), 2)."""
    a = np.radians(np.asarray(deg, float))[:, None]
    r = np.asarray(frac, float)[None, :] * face.radius
    return np.stack([face.center[0] + r * np.cos(a), face.center[1] - r * np.sin(a)], axis=-1)


def _ridge(grey: np.ndarray, face: GaugeFace, deg: np.ndarray, frac: np.ndarray, side_px: float) -> np.ndarray:
    """(len(deg), len(frac)) darkness of a radial mark: the darker of the two sides ``side_px``
    away minus the centre. A thin dark mark on paper scores its contrast; a broad dark patch
    (an occluder, a shadow edge), glare or bare paper scores about zero."""
    centre = _sample(grey, _polar(face, deg, frac))
    off = np.degrees(side_px / (np.asarray(frac, float) * face.radius))
    sides = []
    for sign in (-1.0, 1.0):
        a = np.radians(np.asarray(deg, float)[:, None] + sign * off[None, :])
        r = np.asarray(frac, float)[None, :] * face.radius
        sides.append(_sample(grey, np.stack([face.center[0] + r * np.cos(a), face.center[1] - r * np.sin(a)], axis=-1)))
    return np.asarray(np.minimum(*sides) - centre)


# ---------------------------------------------------------------------------------------- dial
def _read_dial(
    grey: np.ndarray, face: GaugeFace, panel: Panel, s: ReaderSettings, bound: float, ev: dict[str, float]
) -> Reading:
    # Calibration: labelled ticks, searched within +-2 deg of the layout's angle.
    minor_deg = face.sweep_deg * face.minor / face.span
    tick_r = np.linspace(MAJOR_IN + 0.02, TICK_OUT - 0.02, 5)
    offsets = []
    for v in face.majors():
        nominal = face.angle(v)
        search = nominal + np.arange(-2.0, 2.01, 0.25)
        centre = _sample(grey, _polar(face, search, tick_r)).mean(axis=1)
        k = int(np.argmin(centre))
        sides = _sample(grey, _polar(face, search[k] + np.array([-0.5, 0.5]) * minor_deg, tick_r)).mean(axis=1)
        if min(sides) - centre[k] >= bound:
            offsets.append(search[k] - nominal)
    ev["ticks_seen"] = float(len(offsets))
    if len(offsets) < s.min_ticks:
        return _abstain(face, f"fewer than {s.min_ticks} labelled ticks visible", ev)
    rotation = float(np.median(offsets))
    # The needle: the strongest thin dark ray between hub and labels over the needle's range.
    angles = np.arange(face.start_deg - face.sweep_deg - 3.0, face.start_deg + 3.0, 0.25)
    dark = _ridge(grey, face, angles, np.linspace(0.2, 0.48, 10), 10.0).mean(axis=1)
    k = int(np.argmax(dark))
    peak = float(dark[k])
    far = np.abs(angles - angles[k]) > 12.0
    ev["needle_contrast"], ev["needle_second"] = peak, float(dark[far].max()) if far.any() else 0.0
    if peak < bound:
        return _abstain(face, "needle not found", ev)
    if ev["needle_second"] > s.ambiguity * peak:
        return _abstain(face, "needle ambiguous", ev)
    win = slice(max(k - 8, 0), k + 9)
    w = np.clip(dark[win] - 0.5 * peak, 0.0, None)
    deg = float((angles[win] * w).sum() / w.sum())
    # The tip region must show the needle as a thin dark mark (allowing +-1 deg of aim).
    tip = _ridge(grey, face, deg + np.arange(-1.0, 1.01, 0.5), np.linspace(*TIP_REGION, 8), 12.0).max(axis=0)
    ev["tip_share"] = float(np.mean(tip >= bound))
    if ev["tip_share"] < s.tip_share:
        return _abstain(face, "needle tip not visible", ev)
    deg_true = deg - rotation
    # Resolution and uncertainty, in image pixels along the tip's path.
    step = 0.02 * face.sweep_deg
    q = panel.image_points(np.array([face.polar(deg, TIP_REGION[1]), face.polar(deg - step, TIP_REGION[1])]))
    px = float(np.hypot(*(q[1] - q[0])))
    ev["px_per_2pct"] = px
    if px < s.min_px_per_2pct:
        return _abstain(face, "resolution too low", ev)
    spread = float(np.std(offsets)) if len(offsets) > 1 else step
    sigma_deg = math.hypot(step / px * 0.5, spread, 0.25)
    value = face.value_of_angle(deg_true)
    if not face.lo - 0.03 * face.span <= value <= face.hi + 0.03 * face.span:
        return _abstain(face, "needle outside the scale", ev)
    return Reading(value, sigma_deg * face.span / face.sweep_deg, face.unit, "", ev)


# --------------------------------------------------------------------------------- sight glass
def _read_column(
    rect: np.ndarray,
    grey: np.ndarray,
    face: GaugeFace,
    panel: Panel,
    s: ReaderSettings,
    bound: float,
    ev: dict[str, float],
) -> Reading:
    x0, x1 = face.tube_x
    pitch = abs(face.level_y(face.lo + face.minor) - face.level_y(face.lo))
    # Calibration: labelled ticks (only majors reach this far left), searched within +-4 px.
    xs = np.linspace(x0 - 46, x0 - 32, 6)
    found_y, found_v = [], []
    for v in face.majors():
        ys = face.level_y(v) + np.arange(-4.0, 4.01, 0.5)
        centre = _sample(grey, np.stack(np.meshgrid(xs, ys), axis=-1)).mean(axis=1)
        k = int(np.argmin(centre))
        sides = [
            _sample(grey, np.stack([xs, np.full_like(xs, ys[k] + d)], axis=-1)).mean() for d in (-pitch / 2, pitch / 2)
        ]
        if min(sides) - centre[k] >= bound:
            found_y.append(ys[k])
            found_v.append(v)
    ev["ticks_seen"] = float(len(found_y))
    if len(found_y) < s.min_ticks:
        return _abstain(face, f"fewer than {s.min_ticks} labelled ticks visible", ev)
    if len(found_y) >= 3:
        slope, icpt = np.polyfit(found_y, found_v, 1)
    else:  # two ticks: keep the layout's scale, fix the offset
        slope = face.span / (face.y_hi - face.y_lo)
        icpt = float(np.mean(np.array(found_v) - slope * np.array(found_y)))
    # The level: strongest step from bright glass (above) to dark liquid (below) along the tube.
    ys = np.arange(face.y_hi - 14, face.y_lo + 14, 1.0)
    cols = np.linspace(x0 + 8, x1 - 8, 7)
    prof = np.median(_sample(grey, np.stack(np.meshgrid(cols, ys), axis=-1)), axis=1)
    w = 12
    csum = np.concatenate([[0.0], np.cumsum(prof)])
    idx = np.arange(w, len(ys) - w)
    above = (csum[idx] - csum[idx - w]) / w
    below = (csum[idx + w] - csum[idx]) / w
    step_c = above - below
    k = int(np.argmax(step_c))
    ev["step_contrast"] = float(step_c[k])
    if step_c[k] < bound:
        return _abstain(face, "level not found", ev)
    others = step_c[np.abs(idx - idx[k]) > 2 * w]
    if others.size and others.max() > s.ambiguity * step_c[k]:
        return _abstain(face, "level ambiguous", ev)
    y = float(ys[idx[k]])
    # Glare on the surface hides it; the reader cannot tell a bright patch from empty glass.
    band = np.stack(np.meshgrid(cols, y + np.arange(-15.0, 15.1, 1.5)), axis=-1)
    ev["saturated"] = float(np.mean(_sample(rect.max(axis=2), band) >= 250.0))
    if ev["saturated"] > 0.05:
        return _abstain(face, "glare over the level", ev)
    # Above the step must look like the clean glass higher up (not frosted glass, not an occluder).
    i = idx[k]
    glass = prof[: max(i - w, 0)]
    beside = _sample(
        grey, np.stack(np.meshgrid(np.linspace(x1 + 14, x1 + 36, 5), y + np.arange(-12.0, 12.1, 3.0)), axis=-1)
    )
    ev["beside"] = float(np.min(beside.mean(axis=1)))
    panel_ref = float(
        np.percentile(_sample(grey, np.stack(np.meshgrid(np.linspace(x1 + 14, x1 + 150, 12), ys[::4]), axis=-1)), 75)
    )
    ev["glass_ref"] = max(float(np.percentile(glass, 75)) if glass.size >= 8 else 0.0, panel_ref)
    ev["above"] = float(above[k])
    if ev["above"] < 0.85 * ev["glass_ref"]:
        return _abstain(face, "glass above the level not clear", ev)
    # Below must be the liquid's colour, and the panel beside the surface seen (no occluder).
    under = np.stack(np.meshgrid(cols, y + np.arange(3.0, 12.0)), axis=-1)
    r_, g_, b_ = (float(np.median(_sample(np.ascontiguousarray(rect[:, :, j]), under))) for j in range(3))
    ev["liquid_blue"] = min((b_ - r_) / 0.48, (b_ - g_) / 0.38) / step_c[k]  # 1 = the liquid's own colour
    if ev["liquid_blue"] < 0.6:
        return _abstain(face, "no liquid below the level", ev)
    # ... from wall to wall of the tube (an object's corner over the glass is narrower)
    walls = _sample(grey, np.stack(np.meshgrid(np.array([x0 + 5.0, x1 - 5.0]), y + np.arange(4.0, 13.0)), axis=-1))
    ev["wall_below"] = float(np.median(walls, axis=0).max())
    if ev["wall_below"] - float(below[k]) > 0.5 * step_c[k]:
        return _abstain(face, "no liquid below the level", ev)
    # ... on both sides of the tube, under the surface too (an object as dark as the liquid over
    # the tube and its left side has an edge that looks like a surface)
    left = _sample(grey, np.stack(np.meshgrid(np.linspace(x0 - 48, x0 - 8, 9), y + np.arange(3.0, 15.0)), axis=-1))
    ev["left_below"] = float(np.median(left))
    if ev["beside"] - float(below[k]) < bound or ev["beside"] < 0.8 * panel_ref:
        return _abstain(face, "level surroundings hidden", ev)
    if ev["left_below"] < LEFT_PANEL * ev["glass_ref"]:
        return _abstain(face, "level surroundings hidden", ev)
    q = panel.image_points(np.array([[x0, y], [x0, y + 0.02 * (face.y_hi - face.y_lo)]]))
    px = float(np.hypot(*(q[1] - q[0])))
    ev["px_per_2pct"] = px
    if px < s.min_px_per_2pct:
        return _abstain(face, "resolution too low", ev)
    value = float(slope * y + icpt)
    resid = np.array(found_v) - (slope * np.array(found_y) + icpt)
    sigma = math.hypot(
        float(np.std(resid)), abs(slope) * 0.5 * 0.02 * abs(face.y_hi - face.y_lo) / px, abs(slope) * 1.0
    )
    if not face.lo - 0.03 * face.span <= value <= face.hi + 0.03 * face.span:
        return _abstain(face, "level outside the scale", ev)
    return Reading(value, sigma, face.unit, "", ev)
