"""The canonical view's frame and the polar samples of it that the tick ring and the pointers
are both read from: a module of its own so that ``dial.scale`` and ``dial.pointers`` share them
without importing each other."""

from __future__ import annotations

import cv2
import numpy as np

CANON = 200  # rectified dial radius, px
N_ANG = 720  # 0.5 deg bins
N_RAD = 140  # radial samples, 0 .. 1.4 R (a plate's ticks may lie outside the circle found)
OUT = CANON + CANON // 2  # canonical image half-size
SEEN_MIN = 0.99  # share of a canonical px's neighbourhood inside the picture for it to count as seen


def polar(canon: np.ndarray, at: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """(N_ANG, N_RAD, 3): angle bin i = i/2 deg counter-clockwise from 3 o'clock, radius j/100 R,
    about the centre (or ``at`` px right and down of it)."""
    c = (canon.shape[1] - 1) / 2.0
    a = np.radians(np.arange(N_ANG) * 360.0 / N_ANG)[:, None]
    r = (np.arange(N_RAD) / 100.0 * CANON)[None, :]
    mx = (c + at[0] + r * np.cos(a)).astype(np.float32)
    my = (c + at[1] - r * np.sin(a)).astype(np.float32)
    return np.asarray(cv2.remap(canon, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


def angle_of_bin(k: np.ndarray | float) -> np.ndarray:
    return np.asarray(k, float) * 360.0 / N_ANG


def smooth_ang(x: np.ndarray, n: int) -> np.ndarray:
    """Circular moving average along the angle axis (axis 0)."""
    x = np.asarray(x, np.float32)
    pad = n // 2
    ext = np.concatenate([x[-pad:], x, x[:pad]], axis=0) if pad else x
    k = np.ones(n, np.float32) / n
    if x.ndim == 1:
        return np.convolve(ext, k, mode="valid")
    return np.asarray(cv2.filter2D(ext, -1, k[:, None], borderType=cv2.BORDER_CONSTANT)[pad : pad + len(x)])


def peaks(prof: np.ndarray, floor: float, min_sep: int) -> list[int]:
    """Circular local maxima above ``floor``, at least ``min_sep`` bins apart (strongest first kept)."""
    n = len(prof)
    left, right = np.roll(prof, 1), np.roll(prof, -1)
    idx = np.nonzero((prof >= left) & (prof > right) & (prof > floor))[0]
    kept: list[int] = []
    for i in idx[np.argsort(-prof[idx])]:
        if all(min(abs(int(i) - k), n - abs(int(i) - k)) >= min_sep for k in kept):
            kept.append(int(i))
    return sorted(kept)


def chroma(p: np.ndarray) -> float:
    """Median relative channel spread of the pointer's own pixels (brightness-free: dim light keeps it)."""
    if not len(p):
        return 0.0
    return float(np.median((p.max(axis=1) - p.min(axis=1)) / (p.max(axis=1) + 10.0)))
