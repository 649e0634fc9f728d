"""What one gauge image shows and how it is degraded: plain data, drawn from a seeded stream.

``Conditions`` is the generator's whole truth about an item (the value the needle or level
shows, the view, the light, every degradation). ``draw_conditions`` draws it from one seed for a
face, a degradation type and the class the set wants; the readable rule (``rule.py``), not this
module, says which class the drawn item is, and the set keeps a draw only when they agree.

Severities are drawn from two ranges with a gap between them (mild for a readable item, severe
for an unreadable one), so that the shipped labels are not decided by a hair at the rule's bound.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from alpha_matrix.core.suites.gauge.faces import NEEDLE_LEN, GaugeFace, tip_points

DEGRADATIONS = (
    "dim",
    "uneven_light",
    "glare",
    "occlusion_object",
    "occlusion_hand",
    "cracked_glass",
    "fogged_glass",
    "missing_tip",
    "motion_blur",
    "low_resolution",
)
MAX_VIEW_DEG = 50.0
DISTANCE_M = (0.45, 0.9)


@dataclass(frozen=True)
class Occluder:
    kind: str  # "object" | "hand"
    u: float  # face point it covers (texture px), seen straight on
    v: float
    size: float  # m
    offset: float  # m in front of the panel
    roll_deg: float
    color: tuple[float, float, float]


@dataclass(frozen=True)
class Conditions:
    """One item. Texture-space effects are in texture px; image-space effects in output px."""

    face: str
    value: float
    view_deg: float = 0.0  # off-axis angle of the camera, 0 = straight on
    view_dir_deg: float = 0.0  # direction of that tilt around the panel normal
    distance: float = 0.6  # m
    aim: tuple[float, float] = (0.0, 0.0)  # aim point offset on the panel, m
    light: float = 0.95  # ambient + diffuse at the panel (TinyRenderer scale, 1 = texture as drawn)
    shadow: tuple[float, float, float] = (0.0, 0.0, 0.0)  # (direction deg, position px, depth 0..1)
    glare: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 0.0)  # (u, v, sigma px, amplitude DN)
    fog: float = 0.0  # share of fog white mixed in, 0..1
    crack: tuple[float, float, float, int] = (0.0, 0.0, 0.0, 0)  # (u, v, shattered radius px, lines)
    needle_len: float = NEEDLE_LEN  # fraction of the dial radius
    occluder: Occluder | None = None
    blur: tuple[float, float] = (0.0, 0.0)  # motion blur (length px at full size, direction deg)
    downscale: int = 1  # the sensor has 1/downscale the pixels per side
    noise: float = 3.0  # sensor noise sigma, DN
    size: tuple[int, int] = (640, 480)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Conditions:
        d = dict(d)
        occ = d.pop("occluder", None)
        tuples = {k: tuple(v) for k, v in d.items() if isinstance(v, list)}
        occluder = Occluder(**{**occ, "color": tuple(occ["color"])}) if occ else None
        return cls(**{**d, **tuples, "occluder": occluder})


@dataclass(frozen=True)
class Draw:
    """What to draw: a face, a degradation type, the wanted class."""

    face: GaugeFace
    degradation: str
    readable: bool
    extras: dict[str, Any] = field(default_factory=dict)


def _tip_mid(face: GaugeFace, value: float) -> tuple[float, float]:
    pts = tip_points(face, value)
    return pts[len(pts) // 2]


def _away(face: GaugeFace, value: float, rng: np.random.Generator, clear: float) -> tuple[float, float]:
    """A face point at least ``clear`` px from every tip point (rejection sampling)."""
    tips = np.array(tip_points(face, value))
    for _ in range(200):
        uv = rng.uniform(70, 442, size=2)
        if np.min(np.hypot(*(tips - uv).T)) >= clear:
            return float(uv[0]), float(uv[1])
    return 60.0, 60.0


def draw_conditions(face: GaugeFace, degradation: str, readable: bool, rng: np.random.Generator) -> Conditions:
    """One item's conditions from ``rng``: a random view and value, then one degradation."""
    margin = 0.04 * face.span
    value = float(rng.uniform(face.lo + margin, face.hi - margin))
    base = Conditions(
        face=face.name,
        value=round(value, 4),
        view_deg=float(rng.uniform(0.0, MAX_VIEW_DEG)),
        view_dir_deg=float(rng.uniform(0.0, 360.0)),
        distance=float(rng.uniform(*DISTANCE_M)),
        aim=(float(rng.uniform(-0.03, 0.03)), float(rng.uniform(-0.03, 0.03))),
        light=float(rng.uniform(0.75, 1.0)),
    )
    d, r = degradation, readable
    tu, tv = _tip_mid(face, value)
    if d == "dim":
        return _with(base, light=float(rng.uniform(0.3, 0.5) if r else rng.uniform(0.04, 0.09)))
    if d == "uneven_light":
        direction = float(rng.uniform(0, 360))
        depth = float(rng.uniform(0.3, 0.6) if r else rng.uniform(0.93, 0.98))
        # The dark side of the gradient: away from the tip when readable, over it when not.
        a = math.radians(direction)
        along = (tu - 256) * math.cos(a) - (tv - 256) * math.sin(a)
        pos = along + (float(rng.uniform(40, 90)) if r else -float(rng.uniform(60, 120)))
        return _with(base, shadow=(direction, pos, depth))
    if d == "glare":
        sigma = float(rng.uniform(20, 45))
        amp = float(rng.uniform(260, 420))
        gu, gv = _away(face, value, rng, 3.2 * sigma) if r else (tu + rng.normal(0, 5), tv + rng.normal(0, 5))
        return _with(base, glare=(float(gu), float(gv), sigma if r else sigma * 1.6, amp))
    if d in ("occlusion_object", "occlusion_hand"):
        kind = "object" if d == "occlusion_object" else "hand"
        size = float(rng.uniform(0.05, 0.08))
        ou, ov = _away(face, value, rng, 150.0) if r else (tu, tv)
        color = (0.85, 0.64, 0.52) if kind == "hand" else tuple(float(c) for c in rng.uniform(0.1, 0.6, size=3))
        occ = Occluder(kind, ou, ov, size, float(rng.uniform(0.03, 0.08)), float(rng.uniform(-40, 40)), color)  # type: ignore[arg-type]
        return _with(base, occluder=occ)
    if d == "cracked_glass":
        lines = int(rng.integers(3, 7))
        if r:
            cu, cv = _away(face, value, rng, 90.0)
            return _with(base, crack=(cu, cv, float(rng.uniform(10, 25)), lines))
        return _with(
            base, crack=(tu + float(rng.normal(0, 6)), tv + float(rng.normal(0, 6)), float(rng.uniform(75, 100)), lines)
        )
    if d == "fogged_glass":
        return _with(base, fog=float(rng.uniform(0.2, 0.55) if r else rng.uniform(0.93, 0.97)))
    if d == "missing_tip":
        # A chipped needle keeps its tip region; a broken one ends short of it.
        tip_in, tip_out = face.tip_region  # TIP_REGION, or beyond the numerals on a face with them under it
        if r:
            return _with(base, needle_len=float(rng.uniform(tip_out + 0.03, NEEDLE_LEN)))
        return _with(base, needle_len=float(rng.uniform(0.2, tip_in - 0.15)))
    if d == "motion_blur":
        return _with(base, blur=(float(rng.uniform(2, 5) if r else rng.uniform(35, 60)), float(rng.uniform(0, 180))))
    if d == "low_resolution":
        return _with(base, downscale=int(rng.integers(2, 4) if r else rng.integers(12, 17)))
    raise ValueError(f"unknown degradation {d!r}")


def _with(c: Conditions, **kw: Any) -> Conditions:
    return Conditions(**{**c.__dict__, **kw})
