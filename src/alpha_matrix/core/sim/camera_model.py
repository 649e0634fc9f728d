"""The camera model without a simulator: intrinsics, projection, back-projection, noise.

Pure numpy, no pybullet, so the depth-only detector (and a real sensor's driver) can use it
without being able to reach simulator state.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CellCamera:
    """The cell's installed camera as configuration: its mount (calibrated extrinsics) and rate.

    One source of truth shared by the camera (``camera.CameraConfig`` defaults, the simulated
    sensor) and every consumer that needs the mount, e.g. the proximity detector node, which
    takes the intrinsics from ``sensor_msgs/CameraInfo`` and the extrinsics from here, as a
    real calibrated camera's consumer would from its calibration file.
    """

    eye: tuple[float, float, float] = (-0.4, 0.0, 5.0)
    target: tuple[float, float, float] = (-0.4, 0.0, 0.0)
    up: tuple[float, float, float] = (1.0, 0.0, 0.0)  # image top points to +x; the image width spans y
    frame_every: int = 24  # physics steps per frame: 10 Hz at 240 Hz, frames at every multiple
    optical_frame: str = "camera_optical"

    def quaternion(self) -> tuple[float, float, float, float]:
        """The mount's orientation as a calibration gives it: the optical frame's [x, y, z, w] in the world."""
        return quaternion_from_matrix(world_from_camera(self.eye, self.target, self.up)[:3, :3])


CELL_CAMERA = CellCamera()


def world_from_camera(eye: Sequence[float], target: Sequence[float], up: Sequence[float]) -> np.ndarray:
    """Pure look-at: the optical frame (x right, y down, z forward) of a camera at ``eye`` looking
    at ``target`` with ``up`` toward the image top, as a (4, 4) world-from-camera transform."""
    e = np.asarray(eye, dtype=float)
    f = np.asarray(target, dtype=float) - e
    f /= np.linalg.norm(f)
    s = np.cross(f, np.asarray(up, dtype=float))
    s /= np.linalg.norm(s)
    u = np.cross(s, f)
    out = np.eye(4)
    out[:3, 0], out[:3, 1], out[:3, 2], out[:3, 3] = s, -u, f, e
    return out


def pose_from_quaternion(position: Sequence[float], quaternion: Sequence[float]) -> np.ndarray:
    """A calibrated mount (position, quaternion [x, y, z, w] of the optical frame in the world, as
    ``tf2_echo world <optical frame>`` prints it) as a (4, 4) world-from-camera transform.

    s = 2 / |q|^2 rather than normalising first: a quaternion of 1/sqrt(2) components then gives
    exact 0 and +-1 entries, so the default mount equals the look-at's matrix bit for bit."""
    x, y, z, w = (float(v) for v in quaternion)
    s = 2.0 / (x * x + y * y + z * z + w * w)
    out = np.eye(4)
    out[:3, :3] = [
        [1.0 - s * (y * y + z * z), s * (x * y - z * w), s * (x * z + y * w)],
        [s * (x * y + z * w), 1.0 - s * (x * x + z * z), s * (y * z - x * w)],
        [s * (x * z - y * w), s * (y * z + x * w), 1.0 - s * (x * x + y * y)],
    ]
    out[:3, 3] = [float(v) for v in position]
    return out


def quaternion_from_matrix(r: np.ndarray) -> tuple[float, float, float, float]:
    """A rotation matrix's unit quaternion [x, y, z, w], w >= 0 (Shepperd: from its largest
    diagonal term). The others are (sum or difference) * c / t with c = sqrt(t) / 2, not / 4c:
    an axis-aligned mount then gets equal components (1/sqrt(2) twice, not ...476 and ...475),
    which ``pose_from_quaternion`` turns back into exact 0 and +-1."""
    m = np.asarray(r, dtype=float)
    t = [1.0 + m[0, 0] + m[1, 1] + m[2, 2]] + [1.0 + 2.0 * m[i, i] - float(np.trace(m)) for i in range(3)]
    b = int(np.argmax(t))
    c = 0.5 * math.sqrt(t[b])
    f = c / t[b]
    if b == 0:
        q = [(m[2, 1] - m[1, 2]) * f, (m[0, 2] - m[2, 0]) * f, (m[1, 0] - m[0, 1]) * f, c]
    else:
        i = b - 1
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [0.0, 0.0, 0.0, (m[k, j] - m[j, k]) * f]
        q[i], q[j], q[k] = c, (m[j, i] + m[i, j]) * f, (m[k, i] + m[i, k]) * f
    if q[3] < 0.0:
        q = [-v for v in q]
    return (float(q[0]) + 0.0, float(q[1]) + 0.0, float(q[2]) + 0.0, float(q[3]) + 0.0)  # no -0.0 in a YAML default


@dataclass(frozen=True)
class DepthNoise:
    """Sensor model: sigma(z) = sigma0 + k * z^2; dropouts (depth 0 = no return)."""

    sigma0: float = 0.002  # m
    k: float = 0.001  # 1/m
    dropout: float = 0.01  # share of isolated invalid pixels
    patches: float = 2.0  # mean number of invalid patches per frame (Poisson)
    patch_radius_px: tuple[int, int] = (3, 10)

    def sigma(self, z: np.ndarray) -> np.ndarray:
        return self.sigma0 + self.k * np.square(z)


@dataclass(frozen=True, eq=False)
class CameraInfo:
    """Pinhole intrinsics and pose, enough to back-project depth into the world frame.

    ``world_from_camera`` maps points of the optical frame (x right, y down, z forward, as
    ROS ``sensor_msgs/CameraInfo``) to the world frame.
    """

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    world_from_camera: np.ndarray  # (4, 4)


def metric_depth(buffer: np.ndarray, near: float, far: float) -> np.ndarray:
    """OpenGL depth buffer in [0, 1] -> metres along the optical axis."""
    d = buffer.astype(np.float64)
    return (far * near / (far - (far - near) * d)).astype(np.float32)


def project(info: CameraInfo, points: np.ndarray) -> np.ndarray:
    """World points (N, 3) -> pixel (u, v, z) rows; z <= 0 is behind the camera."""
    cam_from_world = np.linalg.inv(info.world_from_camera)
    pc = (cam_from_world[:3, :3] @ np.asarray(points, dtype=float).T).T + cam_from_world[:3, 3]
    z = pc[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        u = info.fx * pc[:, 0] / z + info.cx
        v = info.fy * pc[:, 1] / z + info.cy
    return np.stack([u, v, z], axis=1)


def in_view(info: CameraInfo, points: np.ndarray, far: float) -> np.ndarray:
    """Whether each world point lands inside the image and the depth range."""
    uvz = project(info, points)
    u, v, z = uvz[:, 0], uvz[:, 1], uvz[:, 2]
    return (z > 0.0) & (z < far) & (u >= -0.5) & (u <= info.width - 0.5) & (v >= -0.5) & (v <= info.height - 0.5)


def add_depth_noise(depth: np.ndarray, noise: DepthNoise, rng: np.random.Generator) -> np.ndarray:
    """Pure: seeded range noise, isolated dropouts and dropout patches (0 = no return)."""
    h, w = depth.shape
    out = depth + rng.standard_normal(depth.shape).astype(np.float32) * noise.sigma(depth).astype(np.float32)
    out[rng.random(depth.shape) < noise.dropout] = 0.0
    lo, hi = noise.patch_radius_px
    for _ in range(int(rng.poisson(noise.patches))):
        cu, cv = rng.uniform(0, w), rng.uniform(0, h)
        ru, rv = rng.uniform(lo, hi, size=2)
        # The ellipse's bounding box only: the same test on the same pixels as over the whole image.
        u0, u1 = max(0, math.floor(cu - ru)), min(w, math.ceil(cu + ru) + 1)
        v0, v1 = max(0, math.floor(cv - rv)), min(h, math.ceil(cv + rv) + 1)
        vv, uu = np.mgrid[v0:v1, u0:u1]
        out[v0:v1, u0:u1][np.square((uu - cu) / ru) + np.square((vv - cv) / rv) <= 1.0] = 0.0
    return np.maximum(out, 0.0).astype(np.float32)


def backproject(depth: np.ndarray, info: CameraInfo, mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pixels (optionally only ``mask``) -> (world points (N, 3), flat pixel indices (N,))."""
    idx = np.flatnonzero(mask if mask is not None else depth > 0.0)
    z = depth.reshape(-1)[idx].astype(np.float64)
    v, u = np.divmod(idx, info.width)
    pc = np.stack([(u - info.cx) * z / info.fx, (v - info.cy) * z / info.fy, z], axis=1)
    r, t = info.world_from_camera[:3, :3], info.world_from_camera[:3, 3]
    return pc @ r.T + t, idx
