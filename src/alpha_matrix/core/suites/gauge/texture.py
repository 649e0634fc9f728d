"""Degradations that live on the glass or the light over the face, applied in texture space.

Each effect is one function of a face point, used twice: to paint the texture the simulator
shows, and by the readable rule to know what is left of the ink at that point. One formula for
both, so the rule's view of the face is the face as drawn.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from alpha_matrix.core.suites.gauge.conditions import Conditions
from alpha_matrix.core.suites.gauge.faces import FACES, TEXTURE_PX, draw_face

FOG_WHITE = 240.0
SHATTER_GREY = 165.0  # crazed glass: a grey that hides the ink and is darker than clean glass
SHADOW_SOFTNESS = 40.0  # px over which the shadow edge ramps


def shadow_gain(c: Conditions, u: np.ndarray | float, v: np.ndarray | float) -> np.ndarray:
    """Multiplicative light left at (u, v): 1 on the lit side, 1 - depth on the dark side."""
    direction, pos, depth = c.shadow
    a = math.radians(direction)
    along = (np.asarray(u, float) - 256) * math.cos(a) - (np.asarray(v, float) - 256) * math.sin(a)
    ramp = np.clip((along - pos) / SHADOW_SOFTNESS + 0.5, 0.0, 1.0)  # 0 lit ... 1 dark
    return np.asarray(1.0 - depth * ramp)


def glare_add(c: Conditions, u: np.ndarray | float, v: np.ndarray | float) -> np.ndarray:
    """Additive glare (texture DN) at (u, v): a Gaussian highlight on the glass."""
    gu, gv, sigma, amp = c.glare
    r2 = (np.asarray(u, float) - gu) ** 2 + (np.asarray(v, float) - gv) ** 2
    return np.asarray(amp * np.exp(-r2 / (2 * sigma * sigma)))


def shattered(c: Conditions, u: np.ndarray | float, v: np.ndarray | float) -> np.ndarray:
    """Whether (u, v) is inside the shattered (opaque, crazed) patch of a cracked glass."""
    cu, cv, radius, _ = c.crack
    return np.asarray(np.hypot(np.asarray(u, float) - cu, np.asarray(v, float) - cv) <= radius)


def degraded_texture(c: Conditions, seed: int) -> np.ndarray:
    """The face of ``c`` with its texture-space degradations (RGB uint8). ``seed`` draws the crack lines."""
    face = FACES[c.face]
    img = draw_face(face, c.value, c.needle_len).astype(np.float32)
    vv, uu = np.mgrid[0:TEXTURE_PX, 0:TEXTURE_PX].astype(np.float32)
    if c.fog > 0:
        blurred = cv2.GaussianBlur(img, (0, 0), 1.0 + 4.0 * c.fog)
        img = (1 - c.fog) * blurred + c.fog * FOG_WHITE
    if c.crack[2] > 0:
        rng = np.random.default_rng(seed)
        cu, cv_, radius, lines = c.crack
        inside = shattered(c, uu, vv)
        frost = cv2.GaussianBlur(img, (0, 0), 6.0) * 0.2 + SHATTER_GREY * 0.8
        img = np.where(inside[..., None], frost, img)
        for _ in range(int(lines) + int(radius // 8)):
            a = rng.uniform(0, 2 * math.pi)
            r0 = rng.uniform(0, radius)
            length = rng.uniform(radius, radius + 140)
            p0 = (int(cu + r0 * math.cos(a)), int(cv_ + r0 * math.sin(a)))
            p1 = (int(cu + length * math.cos(a)), int(cv_ + length * math.sin(a)))
            cv2.line(img, p0, p1, (255.0, 255.0, 255.0), 2, cv2.LINE_AA)
    if c.shadow[2] > 0:
        img = img * shadow_gain(c, uu, vv)[..., None]
    if c.glare[3] > 0:  # a reflection on the glass: not shadowed
        img = img + glare_add(c, uu, vv)[..., None]
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)
