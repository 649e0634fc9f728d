"""A second gauge family, drawn flat with OpenCV, written without looking at the suite's renderer.

Why: the dial reader was developed against one drawing routine (the PyBullet suite). A reader
tuned to that routine's fonts, ticks, needle and light would score well on its own set and fail
on any other gauge. This module draws gauges its own way (faces, scales, needles, plates,
clutter, perspective, degradations), so the benchmark can show whether the reader generalises
(``benchmarks/bench_gauge_reader.py --family b``).

Every item comes from ``default_rng(derive_seed("gauge-family-b", seed, index, attempt))``
(sha256, never ``hash()``). The label is decided from the drawing plan, before any pixel is
drawn: readable when every point of the needle's tip region is in frame, uncovered and keeps a
contrast >= ``CONTRAST_MIN`` after everything laid over it, at least ``MIN_LABELS`` numerals do
too, and 2 % of the span moves the tip by >= 1 px of the sensor. Even indices aim readable, odd
unreadable; a plan whose verdict misses the aim is redrawn with the next attempt.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from alpha_matrix.core.seeds import derive_seed

STYLES = ("bezel_light", "bezel_dark", "plate_light", "plate_dark", "bare_light", "bare_dark")
READABLE_DEGRADATIONS = (
    "none",
    "mild_blur",
    "dim",
    "uneven_light",
    "glare_off_needle",
    "jpeg",
    "noise",
    "low_resolution",
)
UNREADABLE_DEGRADATIONS = ("occluded_needle", "glare_on_tip", "heavy_blur", "very_dark", "fog", "cropped")
SWEEPS = (180.0, 240.0, 270.0, 300.0)
# (lo, hi, unit, major step, minor intervals per major)
RANGES = (
    (0.0, 10.0, "bar", 2.0, 4),
    (-1.0, 3.0, "bar", 1.0, 5),
    (0.0, 160.0, "°C", 20.0, 4),
    (0.0, 600.0, "kPa", 100.0, 5),
    (0.0, 60.0, "psi", 10.0, 5),
    (0.0, 250.0, "bar", 50.0, 5),
)
NEEDLES = ("line", "line_tail", "taper", "taper_tail")
CONTRAST_MIN = 30.0  # 8-bit levels, as the suite's rule; sensor noise stays <= 10 so SNR >= 3 at the bound
MIN_LABELS = 2
MAX_ATTEMPTS = 40
SS = 2  # supersampling of the dial layer (smooth text and ticks)
Rgb = tuple[int, int, int]
LIGHT = {
    "face": [(250, 250, 246), (240, 236, 222), (226, 229, 232), (246, 240, 212)],
    "ink": [(12, 12, 12), (20, 26, 62), (45, 42, 40)],
    "needle": [(18, 18, 18), (200, 28, 28), (24, 30, 84), (140, 18, 18)],
}
DARK = {
    "face": [(18, 18, 20), (14, 24, 46), (38, 38, 40), (30, 20, 18)],
    "ink": [(246, 246, 240), (236, 230, 196), (218, 224, 236)],
    "needle": [(246, 246, 246), (252, 140, 24), (250, 222, 60), (236, 64, 40)],
}


@dataclass(frozen=True, eq=False)
class FamilyBItem:
    index: int
    image: np.ndarray  # H x W x 3 uint8 RGB
    lo: float
    hi: float
    unit: str
    clockwise: bool
    value: float  # what the needle shows
    readable: bool
    reason: str  # why not, "" when readable
    degradation: str
    style: str
    detail: str  # the drawn features, for a person reading a table or an image
    drag: bool = False  # a red drag pointer drawn beside the needle (what a technician sees on the gauge)


@dataclass
class _Plan:
    """Everything one image is drawn from; dial geometry is in dial units (R = 1, y down)."""

    w: int
    h: int
    r_px: float
    style: str
    degradation: str
    lo: float
    hi: float
    unit: str
    step: float
    sub: int
    sweep: float
    clockwise: bool
    value: float
    face: Rgb
    ink: Rgb
    needle: Rgb
    metal: Rgb
    rf: float  # face radius
    ro: float  # outer radius of the tick ring
    r_num: float  # radius of the numerals' centres
    text_h: float
    font: int
    needle_kind: str
    half_w: float  # needle half width at its base
    tail: float
    hub: float  # hub cap radius, 0 = a bare pivot
    drag: float | None  # value of the red drag pointer
    band: bool  # a red zone at the top of the scale
    arc_line: bool
    corner: float  # plate corner radius
    tilt: float
    tilt_dir: float
    roll: float
    hom: np.ndarray  # dial units -> image px
    light: float
    shade: tuple[float, float, float]  # (direction rad, centre px along it, darkest gain)
    glare: tuple[float, float, float, float]  # (u, v, sigma, amplitude) in dial units, amplitude 0 = none
    fog: float
    occluder: np.ndarray | None  # polygon in image px
    occ_color: Rgb
    blur: float  # Gaussian sigma, image px
    sensor: int  # short side of the sensor, 0 = the image itself
    noise: float
    jpeg: int  # quality, 0 = none
    paint_seed: int

    @property
    def span(self) -> float:
        return self.hi - self.lo

    def theta(self, v: float) -> float:
        """Needle angle for value ``v`` (radians, counter-clockwise from +x, y up)."""
        f = (v - self.lo) / self.span
        a0 = 90.0 + self.sweep / 2 if self.clockwise else 90.0 - self.sweep / 2
        return math.radians(a0 - f * self.sweep if self.clockwise else a0 + f * self.sweep)

    @property
    def r_tip(self) -> float:
        return self.ro - 0.03

    def tip_region(self, v: float | None = None) -> np.ndarray:
        th = self.theta(self.value if v is None else v)
        r = np.linspace(0.8, 1.0, 5) * self.r_tip
        return np.stack([r * math.cos(th), -r * math.sin(th)], axis=1)

    def majors(self) -> list[tuple[float, str, np.ndarray]]:
        n = round(self.span / self.step)
        out = []
        for j in range(n + 1):
            v = self.lo + j * self.step
            th = self.theta(v)
            out.append((v, f"{v:g}", np.array([self.r_num * math.cos(th), -self.r_num * math.sin(th)])))
        return out


def _map(hom: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64).reshape(-1, 1, 2), hom).reshape(-1, 2)


def _homography(r_px: float, tilt: float, tilt_dir: float, roll: float, cx: float, cy: float) -> np.ndarray:
    """Dial units -> image px: a roll in the dial's plane, a tilt out of it, a pinhole at 4 R."""
    rz = cv2.Rodrigues(np.array([0.0, 0.0, math.radians(roll)]))[0]
    d = math.radians(tilt_dir)
    rt = cv2.Rodrigues(np.array([math.cos(d), math.sin(d), 0.0]) * math.radians(tilt))[0]
    m = rt @ rz
    zc = 4.0 * r_px
    hp = np.array([[zc * m[0, 0], zc * m[0, 1], 0], [zc * m[1, 0], zc * m[1, 1], 0], [m[2, 0], m[2, 1], zc]])
    return np.array([[1, 0, cx], [0, 1, cy], [0, 0, 1.0]]) @ hp @ np.diag([r_px, r_px, 1.0])


def _pick(rng: np.random.Generator, options: list[Rgb]) -> Rgb:
    return options[int(rng.integers(len(options)))]


def _plan(seed: int, index: int, attempt: int) -> _Plan:
    """Draw the plan: style and degradation from the index (so every kind is met), the rest from the rng."""
    rng = np.random.default_rng(derive_seed("gauge-family-b", seed, index, attempt))
    k = index // 2
    style = STYLES[(k + k // 6) % len(STYLES)]
    if index % 2:
        degradation = UNREADABLE_DEGRADATIONS[k % len(UNREADABLE_DEGRADATIONS)]
    else:
        degradation = "none" if k % 2 == 0 else READABLE_DEGRADATIONS[1 + (k // 2) % 7]
    plate, polarity = style.split("_")
    pal = LIGHT if polarity == "light" else DARK
    w = int(rng.integers(240, 401))
    h = int(np.clip(round(w * rng.uniform(0.8, 1.2)), 240, 400))
    r_px = float(rng.uniform(0.34, 0.45) * min(w, h)) * (0.86 if plate == "plate" else 1.0)
    lo, hi, unit, step, sub = RANGES[int(rng.integers(len(RANGES)))]
    span = hi - lo
    rf = {"bezel": 0.86, "plate": 0.95, "bare": 0.97}[plate]
    inside = bool(rng.random() < 0.5)  # numerals inside or outside the tick ring
    ro = (0.93 if inside else 0.72) * rf
    text_h = float(rng.uniform(0.085, 0.105))
    needle = _pick(rng, pal["needle"])
    drag = None  # offset of the red drag pointer from the value
    if needle[0] - needle[2] < 120 and rng.random() < 0.35:  # no red pointer beside a red needle
        drag = float(rng.choice([-1, 1]) * rng.uniform(0.1, 0.35) * span)
    kind = NEEDLES[int(rng.integers(len(NEEDLES)))]
    p = _Plan(
        w=w,
        h=h,
        r_px=r_px,
        style=style,
        degradation=degradation,
        lo=lo,
        hi=hi,
        unit=unit,
        step=step,
        sub=sub,
        sweep=float(SWEEPS[int(rng.integers(len(SWEEPS)))]),
        clockwise=bool(rng.random() < 0.75),
        value=round(float(rng.uniform(lo + 0.03 * span, hi - 0.03 * span)), 4),
        face=_pick(rng, pal["face"]),
        ink=_pick(rng, pal["ink"]),
        needle=needle,
        metal=_pick(rng, [(170, 172, 176), (120, 122, 126), (196, 170, 110), (60, 60, 64)]),
        rf=rf,
        ro=ro,
        r_num=ro - 0.12 * rf - 0.11 if inside else ro + 0.05 + 0.09,
        text_h=text_h,
        font=int(rng.choice([cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX])),
        needle_kind=kind,
        half_w=float(rng.uniform(0.012, 0.02) if kind.startswith("line") else rng.uniform(0.035, 0.06)),
        tail=float(rng.uniform(0.15, 0.28)) if kind.endswith("tail") else 0.0,
        hub=float(rng.uniform(0.06, 0.11)) if rng.random() < 0.7 else 0.0,
        drag=None,
        band=inside and bool(rng.random() < 0.35),
        arc_line=bool(rng.random() < 0.5),
        corner=float(rng.uniform(0.0, 0.3)),
        tilt=float(rng.uniform(0.0, 25.0)),
        tilt_dir=float(rng.uniform(0.0, 360.0)),
        roll=float(rng.uniform(-6.0, 6.0)),
        hom=np.eye(3),
        light=float(rng.uniform(0.85, 1.0)),
        shade=(0.0, 0.0, 1.0),
        glare=(0.0, 0.0, 1.0, 0.0),
        fog=0.0,
        occluder=None,
        occ_color=(0, 0, 0),
        blur=0.0,
        sensor=0,
        noise=2.0,
        jpeg=0,
        paint_seed=int(rng.integers(2**62)),
    )
    if drag is not None:
        p.drag = float(np.clip(p.value + drag, lo, hi))
        if abs(p.drag - p.value) < 0.08 * span:
            p.drag = None
    _place(p, rng)
    _degrade(p, rng)
    return p


def _place(p: _Plan, rng: np.random.Generator) -> None:
    """Put the dial in the frame whole, or (``cropped``) with its tip region beyond an edge."""
    h0 = _homography(p.r_px, p.tilt, p.tilt_dir, p.roll, 0.0, 0.0)
    if p.style.startswith("plate"):
        outline = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
    else:
        a = np.linspace(0, 2 * np.pi, 48, endpoint=False)
        outline = np.stack([np.cos(a), np.sin(a)], axis=1)
    box = _map(h0, outline)
    lo_xy, hi_xy = box.min(axis=0), box.max(axis=0)
    size = np.array([p.w, p.h], np.float64)
    centre = np.empty(2)
    for i in range(2):
        a_, b_ = -lo_xy[i] + 2, size[i] - hi_xy[i] - 2
        centre[i] = rng.uniform(a_, b_) if a_ < b_ else (size[i] - lo_xy[i] - hi_xy[i]) / 2
    if p.degradation == "cropped":
        tips = _map(h0, p.tip_region())
        axis = int(np.argmax(np.abs(tips[-1])))
        margin = 0.15 * p.r_px + 0.03 * min(p.w, p.h)  # the ticks beside the value go too
        if tips[-1, axis] > 0:
            centre[axis] = size[axis] + margin - tips[:, axis].min() + rng.uniform(0, 0.05) * size[axis]
        else:
            centre[axis] = -margin - tips[:, axis].max() - rng.uniform(0, 0.05) * size[axis]
    p.hom = _homography(p.r_px, p.tilt, p.tilt_dir, p.roll, float(centre[0]), float(centre[1]))


def _needle_dist(p: _Plan, uv: np.ndarray) -> float:
    """Distance (dial units) from ``uv`` to the needle, tail to tip."""
    th = p.theta(p.value)
    d = np.array([math.cos(th), -math.sin(th)])
    t = float(np.clip(uv @ d, -p.tail, p.r_tip))
    return float(np.linalg.norm(uv - t * d))


def _degrade(p: _Plan, rng: np.random.Generator) -> None:
    d, short = p.degradation, min(p.w, p.h)
    if d == "mild_blur":
        p.blur = float(rng.uniform(0.7, 1.5))
    elif d == "dim":
        p.light = float(rng.uniform(0.3, 0.5))
    elif d == "very_dark":
        p.light = float(rng.uniform(0.008, 0.025))
    elif d == "uneven_light":
        p.shade = (
            float(rng.uniform(0, 2 * np.pi)),
            float(rng.uniform(-0.2, 0.2) * short),
            float(rng.uniform(0.3, 0.45)),
        )
    elif d == "glare_off_needle":
        sigma = float(rng.uniform(0.08, 0.14))
        for _ in range(200):
            r, a = rng.uniform(0.15, 0.8) * p.rf, rng.uniform(0, 2 * np.pi)
            uv = np.array([r * math.cos(a), r * math.sin(a)])
            if _needle_dist(p, uv) >= 3.2 * sigma + p.half_w:
                p.glare = (float(uv[0]), float(uv[1]), sigma, float(rng.uniform(1.3, 2.2)))
                break
    elif d == "glare_on_tip":
        uv = p.tip_region()[1] + rng.normal(0, 0.02, 2)
        p.glare = (float(uv[0]), float(uv[1]), float(rng.uniform(0.2, 0.28)), float(rng.uniform(3.0, 6.0)))
    elif d == "fog":
        p.fog = float(rng.uniform(0.955, 0.98))
    elif d == "heavy_blur":
        p.blur = float(rng.uniform(0.15, 0.22) * p.r_px)
    elif d == "jpeg":
        p.jpeg = int(rng.integers(8, 26))
    elif d == "noise":
        p.noise = float(rng.uniform(6.0, 10.0))
    elif d == "low_resolution":
        p.sensor = int(rng.integers(120, 161))
    elif d == "occluded_needle":
        c = _map(p.hom, p.tip_region()[1:2])[0] + rng.normal(0, 0.03 * p.r_px, 2)
        ang = int(rng.integers(0, 180))
        if rng.random() < 0.5:  # a hand-like blob
            axes = (int(rng.uniform(0.3, 0.42) * p.r_px), int(rng.uniform(0.2, 0.28) * p.r_px))
            p.occluder = np.asarray(cv2.ellipse2Poly((int(c[0]), int(c[1])), axes, ang, 0, 360, 8), np.float64)
            p.occ_color = _pick(rng, [(214, 170, 140), (188, 140, 110), (120, 84, 60)])
        else:  # a tool or strap across the dial
            box = (
                (float(c[0]), float(c[1])),
                (float(rng.uniform(1.4, 2.4) * p.r_px), float(rng.uniform(0.3, 0.45) * p.r_px)),
                float(ang),
            )
            p.occluder = cv2.boxPoints(box).astype(np.float64)
            p.occ_color = _pick(rng, [(40, 40, 44), (200, 160, 20), (30, 70, 150), (150, 150, 150)])


def _gain(p: _Plan, xy: np.ndarray) -> np.ndarray:
    """Light reaching image points ``xy`` (N x 2): the ambient level times the uneven shade."""
    a, c, g = p.shade
    t = (xy[..., 0] - p.w / 2) * math.cos(a) + (xy[..., 1] - p.h / 2) * math.sin(a) - c
    return p.light * (g + (1 - g) * np.clip(0.5 + t / (0.6 * min(p.w, p.h)), 0, 1))


def _glare(p: _Plan, uv: np.ndarray) -> np.ndarray:
    gu, gv, s, amp = p.glare
    return np.clip(amp * np.exp(-((uv[..., 0] - gu) ** 2 + (uv[..., 1] - gv) ** 2) / (2 * s * s)), 0, 1)


def _lum(c: Rgb) -> float:
    return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]


def _seen(p: _Plan, uv: np.ndarray, ink: Rgb, width_px: float) -> np.ndarray:
    """Contrast (8-bit levels) of marks of colour ``ink`` at dial points ``uv``; 0 where hidden or out of frame."""
    xy = _map(p.hom, uv)
    k, sigma = _sharpness(p)
    blur = math.erf(width_px / (2 * math.sqrt(2) * sigma)) if sigma > 0 else 1.0
    c = abs(_lum(ink) - _lum(p.face)) * (1 - _glare(p, uv)) * (1 - p.fog) * _gain(p, xy) * blur
    inside = (xy[:, 0] >= 1) & (xy[:, 0] <= p.w - 2) & (xy[:, 1] >= 1) & (xy[:, 1] <= p.h - 2)
    if p.occluder is not None:
        poly = p.occluder.astype(np.float32)
        inside &= np.array([cv2.pointPolygonTest(poly, (float(x), float(y)), True) < -2 for x, y in xy])
    return np.where(inside, c, 0.0)


def _sharpness(p: _Plan) -> tuple[float, float]:
    """(image px per sensor px, Gaussian sigma of the whole blur in image px)."""
    k = min(p.w, p.h) / p.sensor if p.sensor else 1.0
    return k, math.hypot(p.blur, 0.5 * k if p.sensor else 0.0)


def _verdict(p: _Plan) -> str:
    """The readable rule on the plan: "" when readable, else the first failing clause."""
    k, sigma = _sharpness(p)
    text_px = p.text_h * p.r_px * math.cos(math.radians(p.tilt))
    if text_px / k < 4.0 or sigma > 0.35 * text_px:  # a numeral must stay legible, not only dark enough
        return "numerals too small or blurred"
    tip_w = 2 * (p.half_w if p.needle_kind.startswith("line") else 0.3 * p.half_w) * p.r_px
    if np.any(_seen(p, p.tip_region(), p.needle, tip_w) < CONTRAST_MIN):
        return "needle tip not seen"
    labels = np.array([uv for _, _, uv in p.majors()])
    if np.sum(_seen(p, labels, p.ink, max(1.0, 0.012 * p.r_px)) >= CONTRAST_MIN) < MIN_LABELS:
        return f"fewer than {MIN_LABELS} numerals seen"
    a, b = _map(p.hom, np.vstack([p.tip_region()[-1:], p.tip_region(p.value + 0.02 * p.span)[-1:]]))
    if np.linalg.norm(a - b) / k < 1.0:
        return "resolution too low"
    return ""


def _draw_dial(p: _Plan) -> tuple[np.ndarray, np.ndarray]:
    """The dial layer, premultiplied RGB and alpha (float, 1x), with the glare and fog on its glass."""
    size = 2 * math.ceil(p.r_px) + 6
    n, s, c = size * SS, p.r_px * SS, size * SS / 2

    def pt(u: float, v: float) -> tuple[int, int]:
        return round((c + u * s) * 16), round((c + v * s) * 16)

    def polar(r: float, th: float) -> tuple[int, int]:
        return pt(r * math.cos(th), -r * math.sin(th))

    def px(x: float) -> int:
        return max(1, round(x * s))

    img = np.zeros((n, n, 3), np.uint8)
    mask = np.zeros((n, n), np.uint8)
    aa = cv2.LINE_AA
    plate = p.style.split("_")[0]
    if plate == "plate":
        a = np.linspace(0, np.pi / 2, 8)
        r, q = p.corner, 1 - p.corner
        arcs = [
            np.stack([sx * (q + r * np.cos(a)), sy * (q + r * np.sin(a))], 1)
            for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1))
        ]
        arcs[1], arcs[3] = arcs[1][::-1], arcs[3][::-1]
        poly = np.array([pt(u, v) for u, v in np.vstack(arcs)], np.int32)
        cv2.fillPoly(mask, [poly], 255, aa, 4)
        cv2.fillPoly(img, [poly], p.face, aa, 4)
        cv2.polylines(img, [poly], True, tuple(int(0.6 * x) for x in p.face), px(0.015), aa, 4)
        for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
            cv2.circle(img, pt(0.86 * sx, 0.86 * sy), round(0.04 * s * 16), p.metal, -1, aa, 4)
            cv2.line(
                img, pt(0.86 * sx - 0.03, 0.86 * sy), pt(0.86 * sx + 0.03, 0.86 * sy), (40, 40, 40), px(0.01), aa, 4
            )
    else:
        cv2.circle(mask, pt(0, 0), round(s * 16), 255, -1, aa, 4)
        if plate == "bezel":
            yy, xx = np.mgrid[0:n, 0:n]
            ramp = 0.7 + 0.5 * np.clip(0.5 - ((xx - c) + (yy - c)) / (2.8 * s), 0, 1)
            img[:] = np.clip(np.array(p.metal)[None, None] * ramp[..., None], 0, 255).astype(np.uint8)
            cv2.circle(img, pt(0, 0), round(p.rf * 1.04 * s * 16), tuple(int(0.5 * x) for x in p.metal), -1, aa, 4)
        cv2.circle(img, pt(0, 0), round(p.rf * s * 16), p.face, -1, aa, 4)
    ink = p.ink
    t0, t1 = math.degrees(p.theta(p.lo)), math.degrees(p.theta(p.hi))
    if p.band:
        tb = math.degrees(p.theta(p.lo + 0.8 * p.span))
        rb = p.ro + 0.025 * p.rf
        cv2.ellipse(img, pt(0, 0), (round(rb * s * 16),) * 2, 0, -tb, -t1, (215, 35, 35), px(0.035 * p.rf), aa, 4)
    if p.arc_line:
        cv2.ellipse(img, pt(0, 0), (round(p.ro * s * 16),) * 2, 0, -t0, -t1, ink, px(0.008), aa, 4)
    n_ticks = round(p.span / p.step) * p.sub
    for j in range(n_ticks + 1):
        th = p.theta(p.lo + j * p.step / p.sub)
        major, mid = j % p.sub == 0, p.sub % 2 == 0 and j % p.sub == p.sub // 2
        length = (0.13 if major else 0.1 if mid else 0.065) * p.rf
        cv2.line(img, polar(p.ro - length, th), polar(p.ro, th), ink, px(0.02 if major else 0.009), aa, 4)
    scale = p.text_h * s / cv2.getTextSize("0", p.font, 1.0, 1)[0][1]
    thick = max(1, round(scale * 1.6))
    for _, text, uv in p.majors():
        (tw, th_), _ = cv2.getTextSize(text, p.font, scale, thick)
        x, y = c + uv[0] * s, c + uv[1] * s
        cv2.putText(img, text, (round(x - tw / 2), round(y + th_ / 2)), p.font, scale, ink, thick, aa)
    unit = p.unit.replace("°", "")
    (tw, th_), _ = cv2.getTextSize(unit, p.font, 0.8 * scale, thick)
    ux, uy = c - tw / 2, c + (0.4 if p.sweep > 200 else 0.3) * p.rf * s
    cv2.putText(img, unit, (round(ux), round(uy)), p.font, 0.8 * scale, ink, thick, aa)
    if "°" in p.unit:
        cv2.circle(
            img, (round((ux - 0.25 * th_) * 16), round((uy - th_) * 16)), round(0.2 * th_ * 16), ink, thick, aa, 4
        )
    if p.drag is not None:
        _needle(img, pt, p, p.theta(p.drag), "taper", 0.025, 0.0, (220, 30, 30), s)
    _needle(img, pt, p, p.theta(p.value), p.needle_kind, p.half_w, p.tail, p.needle, s)
    if p.hub > 0:
        cv2.circle(img, pt(0, 0), round(p.hub * s * 16), p.metal, -1, aa, 4)
        cv2.circle(img, pt(0, 0), round(p.hub * s * 16), (30, 30, 30), px(0.008), aa, 4)
        cv2.circle(img, pt(-0.3 * p.hub, -0.3 * p.hub), round(0.3 * p.hub * s * 16), (235, 235, 235), -1, aa, 4)
    else:
        cv2.circle(img, pt(0, 0), round(max(p.half_w * 1.6, 0.03) * s * 16), p.needle, -1, aa, 4)
    small = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32)
    alpha = cv2.resize(mask, (size, size), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    yy, xx = np.mgrid[0:size, 0:size]
    uv = np.stack([(xx - size / 2) / p.r_px, (yy - size / 2) / p.r_px], axis=-1)
    glass = (np.hypot(uv[..., 0], uv[..., 1]) <= p.rf) if plate != "plate" else np.ones(uv.shape[:2], bool)
    g = _glare(p, uv) * glass
    small = small * (1 - g[..., None]) + 255 * g[..., None]
    if p.fog:  # a fogged glass scatters as well as veils
        small = np.where(glass[..., None], cv2.GaussianBlur(small, (0, 0), 0.04 * p.r_px), small)
        f = p.fog * glass[..., None]
        small = small * (1 - f) + 228 * f
    return small * alpha[..., None], alpha


def _needle(
    img: np.ndarray,
    pt: Callable[..., tuple[int, int]],
    p: _Plan,
    th: float,
    kind: str,
    half_w: float,
    tail: float,
    color: Rgb,
    s: float,
) -> None:
    """A pointer at angle ``th``: a line or a tapered blade, with or without a tail."""
    d, n = np.array([math.cos(th), -math.sin(th)]), np.array([math.sin(th), math.cos(th)])
    tip, back = d * p.r_tip, -d * tail
    if kind.startswith("line"):
        cv2.line(img, pt(*back), pt(*tip), color, max(1, round(2 * half_w * s)), cv2.LINE_AA, 4)
        return
    pts = [tip + n * 0.004, n * half_w]
    pts += [back + n * 0.6 * half_w, back - n * 0.6 * half_w] if tail else []
    pts += [-n * half_w, tip - n * 0.004]
    cv2.fillPoly(img, [np.array([pt(*q) for q in pts], np.int32)], color, cv2.LINE_AA, 4)


def _background(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Clutter behind the gauge: a gradient, maybe a pipe, a few boxes, low-frequency grime."""
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, 2 * np.pi)
    t = (xx * math.cos(a) + yy * math.sin(a)) / (w + h) + 0.5
    c1, c2 = rng.uniform(30, 220, 3), rng.uniform(30, 220, 3)
    img = (c1 + (c2 - c1) * np.clip(t, 0, 1)[..., None]).astype(np.float32)
    for _ in range(int(rng.integers(0, 6))):
        x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
        x1, y1 = x0 + int(rng.integers(20, w // 2)), y0 + int(rng.integers(20, h // 2))
        cv2.rectangle(img, (x0, y0), (x1, y1), tuple(float(v) for v in rng.uniform(20, 235, 3)), -1)
    if rng.random() < 0.6:
        b = rng.uniform(0, np.pi)
        dist = (xx - rng.uniform(0, w)) * math.sin(b) - (yy - rng.uniform(0, h)) * math.cos(b)
        half = rng.uniform(0.08, 0.16) * min(w, h)
        on = np.abs(dist) < half
        color = rng.choice(np.array([[150, 152, 156], [170, 60, 40], [40, 110, 60], [200, 170, 40]], np.float32))
        shade = 0.45 + 0.65 * np.cos(np.clip(dist / half, -1, 1) * 1.3)
        img[on] = (color[None] * shade[on][:, None]).astype(np.float32)
    grime = cv2.resize(rng.normal(0, 12, (6, 6)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    return img + grime[..., None]


def _render(p: _Plan) -> np.ndarray:
    rng = np.random.default_rng(p.paint_seed)
    img = _background(rng, p.w, p.h)
    layer, alpha = _draw_dial(p)
    size = layer.shape[0]
    to_layer = np.array([[p.r_px, 0, size / 2], [0, p.r_px, size / 2], [0, 0, 1.0]])
    hl = p.hom @ np.linalg.inv(to_layer)
    warped = cv2.warpPerspective(layer, hl, (p.w, p.h), flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, hl, (p.w, p.h), flags=cv2.INTER_LINEAR)
    drop = cv2.GaussianBlur(np.roll(a, (4, 3), axis=(0, 1)), (0, 0), 4)  # the gauge's shadow on the wall
    img = img * (1 - 0.4 * drop[..., None]) * (1 - a[..., None]) + warped
    if p.occluder is not None:
        occ = np.zeros((p.h, p.w), np.float32)
        poly = np.round(p.occluder * 16).astype(np.int32)
        cv2.fillPoly(occ, [poly], 1.0, cv2.LINE_AA, 4)
        shadow = cv2.GaussianBlur(np.roll(occ, (8, 6), axis=(0, 1)), (0, 0), 6)
        img *= 1 - 0.5 * shadow[..., None]
        tone = 0.8 + 0.3 * cv2.GaussianBlur(occ, (0, 0), 0.1 * p.r_px)
        img = img * (1 - occ[..., None]) + (np.array(p.occ_color) * tone[..., None]) * occ[..., None]
    yy, xx = np.mgrid[0 : p.h, 0 : p.w].astype(np.float32)
    img *= _gain(p, np.stack([xx, yy], axis=-1))[..., None]
    if p.blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), p.blur)
    if p.sensor:
        k = p.sensor / min(p.w, p.h)
        img = cv2.resize(img, (round(p.w * k), round(p.h * k)), interpolation=cv2.INTER_AREA)
        img = cv2.resize(img, (p.w, p.h), interpolation=cv2.INTER_LINEAR)
    img = np.clip(img + rng.normal(0, p.noise, img.shape), 0, 255).astype(np.uint8)
    if p.jpeg:
        ok, buf = cv2.imencode(".jpg", img[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, p.jpeg])
        img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR))[..., ::-1]
    return np.ascontiguousarray(img)


def make_item(seed: int, index: int) -> FamilyBItem:
    """Item ``index`` of the family for ``seed``: aims readable on even indices, unreadable on odd."""
    aim = index % 2 == 0
    for attempt in range(MAX_ATTEMPTS):
        p = _plan(seed, index, attempt)
        reason = _verdict(p)
        if (reason == "") == aim:
            break
    detail = (
        f"sweep {p.sweep:.0f} {'cw' if p.clockwise else 'ccw'}, {p.lo:g}-{p.hi:g} {p.unit}, needle {p.needle_kind}"
        f"{'+hub' if p.hub else ''}, numerals {'inside' if p.r_num < p.ro else 'outside'}"
        f"{', drag pointer' if p.drag is not None else ''}, tilt {p.tilt:.0f} deg, {p.w}x{p.h}"
    )
    return FamilyBItem(
        index=index,
        image=_render(p),
        lo=p.lo,
        hi=p.hi,
        unit=p.unit,
        clockwise=p.clockwise,
        value=p.value,
        readable=reason == "",
        reason=reason,
        degradation=p.degradation,
        style=p.style,
        detail=detail,
        drag=p.drag is not None,
    )


def build_family_b(seed: int, n: int) -> list[FamilyBItem]:
    """``n`` items, deterministic for ``seed``."""
    return [make_item(seed, i) for i in range(n)]
