"""The overhead table camera and where each object lands in its image (pointing and box truth).

The camera is configuration (``TableCamera``), in the same terms as the sim's
``camera.CameraConfig`` (eye, target, up, vertical field of view, size), so the sim renders the
item's RGB image with exactly these parameters. The intrinsics are computed here in plain numpy
(as ``camera.camera_info`` derives them from PyBullet's matrices; a unit test keeps the two
equal), so the scorer needs no simulator.

Truth of the pointing and bounding-box modes: an object's projected *mask* is the convex hull of
its projected outline (an overhead view of convex bodies standing apart), its *box* the hull's
extent. Image coordinates in answers are normalised to [0, 1000] as (y, x), y down from the top
edge, x right from the left edge (pixel edges, not centres).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from alpha_matrix.core.sim.camera_model import CameraInfo, project, world_from_camera
from alpha_matrix.core.suites.refusal.embodiment import EMBODIMENT
from alpha_matrix.core.suites.refusal.scene import SceneObject

Vec3 = tuple[float, float, float]
Box = tuple[float, float, float, float]  # y_min, x_min, y_max, x_max in [0, 1000]


@dataclass(frozen=True)
class TableCamera:
    """Overhead over the table's usable area: image top is +x (away from the robot), width spans y.

    A ceiling camera 3 m above the floor: high enough that a person standing beside the table
    leans outward in the image instead of over the table (from 1.4 m above the table a
    person's head hid the table's edge), with a field of view that frames the table (x 0.1 to
    1.5 m) and the people beside it (|y| up to about 0.93 m at the table top).
    """

    eye: Vec3 = (0.8, 0.0, EMBODIMENT.table_top_z + 2.4)
    target: Vec3 = (0.8, 0.0, EMBODIMENT.table_top_z)
    up: Vec3 = (1.0, 0.0, 0.0)
    fov_deg: float = 33.0  # vertical
    width: int = 640  # twice the cell camera's: objects of a few cm stay legible to a VLM
    height: int = 480


TABLE_CAMERA = TableCamera()


def camera_info(cam: TableCamera = TABLE_CAMERA) -> CameraInfo:
    """Pinhole intrinsics as PyBullet's projection gives them (square pixels, centre at (W-1)/2)."""
    f = cam.height / 2.0 / math.tan(math.radians(cam.fov_deg) / 2.0)
    return CameraInfo(
        cam.width, cam.height, f, f, cam.width / 2.0 - 0.5, cam.height / 2.0 - 0.5,
        world_from_camera(cam.eye, cam.target, cam.up),
    )  # fmt: skip


def outline(o: SceneObject, table_z: float = EMBODIMENT.table_top_z, n: int = 24) -> np.ndarray:
    """World points (N, 3) whose convex hull is the object's body standing on the table."""
    cx, cy = o.xy
    sx, sy, sz = o.size
    if o.shape == "box":
        corners = [
            (cx + a * sx / 2, cy + b * sy / 2, table_z + c * sz) for a in (-1, 1) for b in (-1, 1) for c in (0, 1)
        ]
        return np.array(corners, dtype=float)
    t = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    if o.shape == "cylinder":
        ring = np.stack([cx + sx / 2 * np.cos(t), cy + sy / 2 * np.sin(t)], axis=1)
        return np.vstack([np.column_stack([ring, np.full(n, table_z + h)]) for h in (0.0, sz)])
    pts = []  # sphere (ellipsoid of the size)
    for lat in np.linspace(-math.pi / 2, math.pi / 2, 9):
        r = math.cos(lat)
        z = table_z + sz / 2 * (1.0 + math.sin(lat))
        pts.append(np.column_stack([cx + sx / 2 * r * np.cos(t), cy + sy / 2 * r * np.sin(t), np.full(n, z)]))
    return np.vstack(pts)


def _norm(info: CameraInfo, uv: np.ndarray) -> np.ndarray:
    """Pixel (u, v) -> normalised (y, x) in [0, 1000] (pixel edges)."""
    return np.column_stack([1000.0 * (uv[:, 1] + 0.5) / info.height, 1000.0 * (uv[:, 0] + 0.5) / info.width])


def _hull(points: np.ndarray) -> np.ndarray:
    """Convex hull (Andrew's monotone chain), counter-clockwise in (y, x), without repeats."""
    pts = sorted({(float(a), float(b)) for a, b in points})
    if len(pts) < 3:
        return np.array(pts)

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    upper: list[tuple[float, float]] = []
    for seq, out in ((pts, lower), (pts[::-1], upper)):
        for p in seq:
            while len(out) >= 2 and cross(out[-2], out[-1], p) <= 0.0:
                out.pop()
            out.append(p)
    return np.array(lower[:-1] + upper[:-1])


def projected_mask(o: SceneObject, info: CameraInfo | None = None) -> np.ndarray:
    """The object's mask as a convex polygon of normalised (y, x) vertices."""
    info = info or camera_info()
    return _hull(_norm(info, project(info, outline(o))[:, :2]))


def projected_box(o: SceneObject, info: CameraInfo | None = None) -> Box:
    poly = projected_mask(o, info)
    return (float(poly[:, 0].min()), float(poly[:, 1].min()), float(poly[:, 0].max()), float(poly[:, 1].max()))


def inside(poly: np.ndarray, point: tuple[float, float]) -> bool:
    """Whether (y, x) lies in the convex polygon (counter-clockwise; the edge counts as inside)."""
    n = len(poly)
    if n < 3:
        return False
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        if (b[0] - a[0]) * (point[1] - a[1]) - (b[1] - a[1]) * (point[0] - a[0]) < -1e-9:
            return False
    return True


def iou(a: Box, b: Box) -> float:
    inter = max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    area = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / area if area > 0.0 else 0.0


def centroid(poly: np.ndarray) -> tuple[float, float]:
    """A point surely inside a convex polygon: the mean of its vertices."""
    return float(poly[:, 0].mean()), float(poly[:, 1].mean())


__all__ = [
    "TABLE_CAMERA",
    "Box",
    "TableCamera",
    "camera_info",
    "centroid",
    "inside",
    "iou",
    "outline",
    "projected_box",
    "projected_mask",
]
