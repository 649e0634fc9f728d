"""The readable rule's figures for one item, from the generator's geometry (not from the image).

Per face point: whether an occluder hides it (a ray test in the item's scene) and what contrast
its mark keeps. Contrast model, in order along the light path (the texture formulas are those of
``texture.py``, the light factor is TinyRenderer's, checked by a unit test against a render):

  ink and background levels (the face's own: dark on light or light on dark; none beyond a broken
  needle's end; none for a labelled tick under a drag pointer) -> fogged (mixed with fog white) -> 0 inside a shattered patch ->
  x shadow gain -> + glare, clipped at 255 -> |difference| x light ->
  x min(1, mark width / motion blur across the mark) -> x min(1, mark width in sensor px).
"""

from __future__ import annotations

import math

import numpy as np

from alpha_matrix.core.sim.camera import Camera
from alpha_matrix.core.suites.gauge.conditions import Conditions
from alpha_matrix.core.suites.gauge.faces import (
    DRAG_HALF_WIDTH,
    FACES,
    GLASS_EMPTY,
    INK,
    LIQUID,
    NEEDLE_HALF_WIDTH,
    PANEL_GREY,
    GaugeFace,
    drag_segment,
    label_points,
    tip_points,
)
from alpha_matrix.core.suites.gauge.rule import Point, Visibility
from alpha_matrix.core.suites.gauge.scene import GaugeScene, image_points
from alpha_matrix.core.suites.gauge.texture import FOG_WHITE, glare_add, shadow_gain, shattered

DIAL_PAPER = 250.0  # the shipped dials' paper (GaugeFace.paper's default)
MAJOR_TICK_PX = 5.0  # texture px
STEP_PX = 24.0  # the liquid surface: liquid and glass within +-12 px of it


def _levels(face: GaugeFace, what: str) -> tuple[float, float, float]:
    """(background, ink, mark width px) of the indicator or of a labelled tick."""
    if face.kind == "dial":  # the face's own paper and ink: light on dark is as much contrast as dark on light
        return (float(face.paper), float(face.ink), NEEDLE_HALF_WIDTH * 1.25 if what == "tip" else MAJOR_TICK_PX)
    if what == "tip":
        return (float(np.mean(GLASS_EMPTY)), float(np.mean(LIQUID)), STEP_PX)
    return (float(PANEL_GREY), float(INK), 4.0)


def _scale(camera: Camera, uv: np.ndarray) -> np.ndarray:
    """Full-size image px per texture px at each face point (square root of the area ratio)."""
    out = []
    for u, v in uv:
        q = image_points(camera, np.array([[u, v], [u + 1, v], [u, v + 1]]))
        du, dv = q[1] - q[0], q[2] - q[0]
        out.append(math.sqrt(abs(du[0] * dv[1] - du[1] * dv[0])))
    return np.array(out)


def contrast(c: Conditions, uv: np.ndarray, bg: float, ink: float, width: np.ndarray, across_blur: float) -> np.ndarray:
    """The contrast model above for marks of ``width`` (image px at full size) at face points ``uv``."""
    u, v = uv[:, 0], uv[:, 1]
    hi = (1 - c.fog) * bg + c.fog * FOG_WHITE
    lo = (1 - c.fog) * ink + c.fog * FOG_WHITE
    g = shadow_gain(c, u, v)
    a = glare_add(c, u, v)
    diff = np.abs(np.minimum(255.0, hi * g + a) - np.minimum(255.0, lo * g + a))
    diff = np.where(shattered(c, u, v), 0.0, diff) * c.light
    blur = np.minimum(1.0, width / across_blur) if across_blur > 1.0 else 1.0
    return np.asarray(diff * blur * np.minimum(1.0, width / c.downscale))


def visibility(scene: GaugeScene, camera: Camera, c: Conditions) -> Visibility:
    """The rule's figures for ``c`` in the scene ``scene`` has built for it (``scene.build``)."""
    face = FACES[c.face]
    tips = np.array(tip_points(face, c.value))
    labels = np.array(label_points(face))
    length, blur_deg = c.blur

    # Blur across a mark: a dial's needle and ticks run radially (image y is down, like texture
    # v, hence the sum of angles); the liquid surface and a sight glass's ticks are horizontal.
    def across(mark_deg: float) -> float:
        return length * abs(math.sin(math.radians(blur_deg + mark_deg)))

    dial = face.kind == "dial"
    bg, ink, width = _levels(face, "tip")
    tip_c = contrast(c, tips, bg, ink, width * _scale(camera, tips), across(face.angle(c.value) if dial else 0.0))
    if dial:  # a broken needle has no ink beyond its length
        reach = np.hypot(*(tips - np.array(face.center)).T) / face.radius
        tip_c = np.where(reach <= c.needle_len + 1e-9, tip_c, 0.0)
    bg, ink, width = _levels(face, "label")
    lab_width = width * _scale(camera, labels)
    lab_c = np.array(
        [
            contrast(c, labels[i : i + 1], bg, ink, lab_width[i : i + 1], across(face.angle(v) if dial else 0.0))[0]
            for i, v in enumerate(face.majors())
        ]
    )
    if dial and face.drag:  # a labelled tick under the drag pointer is not seen (red over the mark)
        lab_c = np.where(under_drag(face, c.value, labels), 0.0, lab_c)
    tip_occ, lab_occ = scene.occluded(camera, tips), scene.occluded(camera, labels)
    return Visibility(
        tip=tuple(Point(0.0 if o else float(x), bool(o)) for x, o in zip(tip_c, tip_occ, strict=True)),
        labels=tuple(Point(0.0 if o else float(x), bool(o)) for x, o in zip(lab_c, lab_occ, strict=True)),
        px_per_2pct=_resolution(camera, face, c),
    )


def _resolution(camera: Camera, face: GaugeFace, c: Conditions) -> float:
    step = 0.02 * face.span
    v0 = c.value if c.value + step <= face.hi else c.value - step
    a = np.array(tip_points(face, v0))
    b = np.array(tip_points(face, v0 + step))
    q = image_points(camera, np.vstack([a[-1:], b[-1:]]), c.downscale)
    return float(np.hypot(*(q[1] - q[0])))


def under_drag(face: GaugeFace, value: float, uv: np.ndarray) -> np.ndarray:
    """Per face point: whether the drag pointer (shown beside ``value``) covers a major tick's mark there."""
    (x0, y0), (x1, y1) = drag_segment(face, value)
    a, d = np.array([x0, y0]), np.array([x1 - x0, y1 - y0])
    t = np.clip(((uv - a) @ d) / float(d @ d), 0.0, 1.0)
    dist = np.hypot(*(uv - (a + t[:, None] * d)).T)
    return np.asarray(dist <= DRAG_HALF_WIDTH + MAJOR_TICK_PX / 2 + 1.0)
