"""Human-proximity detector from depth alone: frame in, distance estimate out.

It sees what a real depth camera would give it: a depth image, the camera's intrinsics and
pose, an empty-scene reference it captured itself, and the cell's static geometry. It never
takes the world, the human or any ground truth (``test_proximity`` enforces this by making
every pybullet call raise during ``detect``), so the same class runs unchanged on a real
sensor and inside the ROS node.

Recipe, adapted to the overhead camera:
foreground = pixels markedly nearer than the reference (threshold scaled with the sensor's
noise at that range); back-projected to the world; points in the robot/table exclusion volume,
near the floor or above head height dropped; open 3x3 to remove speckle, dilate to group the
body's separate limbs; connected components; keep blobs the size and height of a person.
Distance = nearest raw foreground point of a kept blob to the robot base axis (horizontal),
so thin limbs removed by the opening (a reaching arm) still count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from alpha_matrix.core.sim.camera_model import CameraInfo, DepthNoise, backproject

Box = tuple[tuple[float, float], tuple[float, float], tuple[float, float]]


@dataclass(frozen=True)
class DetectorConfig:
    """Static cell geometry and detection thresholds (never anything from the simulator)."""

    base_xy: tuple[float, float] = (0.1, 0.0)  # robot base axis
    # Table footprint at every height (the arm only works above it) ...
    exclusion_boxes: tuple[Box, ...] = (((-0.17, 1.37), (-0.52, 0.52), (-1.0, 3.0)),)
    # ... and a cylinder around the base for links overhanging the table edge.
    exclusion_radius: float = 0.25
    floor_z: float = 0.10  # drop points lower than this (floor noise, shadows)
    max_z: float = 2.4  # drop points higher than this (ceiling fixtures)
    min_diff: float = 0.06  # m nearer than the reference, at least ...
    k_sigma: float = 4.0  # ... and this many sensor sigmas at that range
    noise: DepthNoise = DepthNoise()  # the sensor's datasheet noise model
    group_px: int = 5  # dilation kernel to join limbs into one body
    min_pixels: int = 12
    min_top_z: float = 0.8  # a person's highest point is at least this high (crouching ~1.2 m)
    min_area_m2: float = 0.03  # footprint seen by the camera
    full_area_m2: float = 0.12  # an adult's footprint from above: confidence 1
    detection_range: float = 4.0  # report people within this distance of the base axis
    reference_frames: int = 5


@dataclass(frozen=True)
class Detection:
    """One frame's answer. ``distance`` is inf when nothing is detected."""

    detected: bool
    distance: float
    confidence: float
    blob_count: int
    nearest: tuple[float, float, float] | None = None  # world point that set the distance


class ProximityDetector:
    """Depth-only person detector with a self-captured empty-scene reference."""

    def __init__(self, info: CameraInfo, config: DetectorConfig | None = None) -> None:
        self.info = info
        self.config = config or DetectorConfig()
        self.reference: np.ndarray | None = None
        self._kernel_open = np.ones((3, 3), np.uint8)
        self._kernel_group = np.ones((self.config.group_px, self.config.group_px), np.uint8)

    def calibrate(self, frames: Sequence[np.ndarray]) -> None:
        """Empty-scene reference: per-pixel median of valid returns over ``frames``."""
        stack = np.stack([np.where(f > 0.0, f, np.nan) for f in frames]).astype(np.float64)
        with np.errstate(all="ignore"):
            ref = np.nanmedian(stack, axis=0) if np.isfinite(stack).any() else np.zeros(stack.shape[1:])
        self.reference = np.nan_to_num(ref, nan=0.0).astype(np.float32)

    def foreground(self, depth: np.ndarray) -> np.ndarray:
        """Pixels markedly nearer than the reference, beyond the sensor's noise at that range."""
        if self.reference is None:
            raise RuntimeError("calibrate() the detector with empty-scene frames first")
        cfg, ref = self.config, self.reference
        valid = (depth > 0.0) & (ref > 0.0)
        thr = np.maximum(cfg.min_diff, cfg.k_sigma * cfg.noise.sigma(ref))
        return valid & (ref - depth > thr)

    def detect(self, depth: np.ndarray) -> Detection:
        """Frame in, estimate out: nearest person's horizontal distance to the base axis."""
        cfg, info = self.config, self.info
        fg = self.foreground(depth)
        pts, idx = backproject(depth, info, fg)
        keep = (pts[:, 2] >= cfg.floor_z) & (pts[:, 2] <= cfg.max_z) & ~self._excluded(pts)
        flat_mask = np.zeros(depth.size, np.uint8)
        flat_mask[idx[keep]] = 1
        mask = flat_mask.reshape(depth.shape)
        core = cv2.morphologyEx(mask, cv2.MORPH_OPEN, self._kernel_open)
        # Group the raw pixels, so thin limbs the opening removes still join their body; blobs
        # are then judged on their opened core, so speckle alone never makes a person.
        grouped = cv2.dilate(mask, self._kernel_group)
        n_labels, labels = cv2.connectedComponents(grouped, connectivity=8)
        if n_labels <= 1:
            return Detection(False, math.inf, self._clear_confidence(depth), 0)
        flat_labels = labels.reshape(-1)
        kept_idx, kept_pts = idx[keep], pts[keep]
        pt_label = flat_labels[kept_idx]
        core_flat = core.reshape(-1)[kept_idx].astype(bool)
        z_opt = depth.reshape(-1)[kept_idx].astype(np.float64)
        px_area = (z_opt / info.fx) * (z_opt / info.fy)
        best: tuple[float, float, np.ndarray] | None = None
        blobs = 0
        for lab in range(1, n_labels):
            sel = pt_label == lab
            body = sel & core_flat
            if int(body.sum()) < cfg.min_pixels:
                continue
            area = float(px_area[body].sum())
            if area < cfg.min_area_m2 or float(kept_pts[body, 2].max()) < cfg.min_top_z:
                continue
            blobs += 1
            horiz = np.hypot(kept_pts[sel, 0] - cfg.base_xy[0], kept_pts[sel, 1] - cfg.base_xy[1])
            i = int(np.argmin(horiz))
            if best is None or horiz[i] < best[0]:
                best = (float(horiz[i]), area, kept_pts[sel][i])
        if best is None or best[0] > cfg.detection_range:
            return Detection(False, math.inf, self._clear_confidence(depth), blobs)
        conf = min(1.0, best[1] / cfg.full_area_m2)
        x, y, z = (float(v) for v in best[2])
        return Detection(True, best[0], conf, blobs, (x, y, z))

    def _excluded(self, pts: np.ndarray) -> np.ndarray:
        cfg = self.config
        out = np.hypot(pts[:, 0] - cfg.base_xy[0], pts[:, 1] - cfg.base_xy[1]) < cfg.exclusion_radius
        for (x0, x1), (y0, y1), (z0, z1) in cfg.exclusion_boxes:
            inside = (pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1)
            out |= inside & (pts[:, 2] >= z0) & (pts[:, 2] <= z1)
        return out

    def _clear_confidence(self, depth: np.ndarray) -> float:
        """Confidence that the view is clear: the share of pixels that returned a depth."""
        return float(np.count_nonzero(depth > 0.0)) / depth.size
