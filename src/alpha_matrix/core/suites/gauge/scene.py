"""The gauge panel in PyBullet, seen by the project's RGB camera (TinyRenderer) from a view.

``GaugeScene`` owns its DIRECT client (never the global one) and a temporary texture directory;
close it (or use it as a context manager). Each ``render`` rebuilds the small scene of one item:
the textured panel (a quad mesh with explicit UVs: a ``GEOM_BOX`` smears the
texture across faces), and the occluder bodies. The camera is ``core.sim.camera.Camera`` with the
view of the item; what the camera does after the lens (motion blur, a coarser sensor, noise) is
applied to its image here.

The scene also answers the geometric questions of the readable rule for the same view: where a
face point lands in the image (``camera_model.project``) and whether something stands between
the camera and it (a ray test against the occluders' collision shapes).
"""

from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import cv2
import numpy as np
import pybullet as p

from alpha_matrix.core.seeds import rng as seeded_rng
from alpha_matrix.core.sim.camera import Camera, CameraConfig, Lighting
from alpha_matrix.core.sim.camera_model import project
from alpha_matrix.core.suites.gauge.conditions import Conditions, Occluder
from alpha_matrix.core.suites.gauge.faces import TEXTURE_PX
from alpha_matrix.core.suites.gauge.texture import degraded_texture

PANEL_CENTER = np.array([0.0, 0.0, 1.2])
PANEL_NORMAL = np.array([1.0, 0.0, 0.0])
PANEL_SIZE = 0.24  # m, the square texture's side
WALL_DN = (56.0, 56.0, 61.0)  # the dark wall, filled in where no body is hit (a wall body doubles render time)
FOV_DEG = 40.0
LIGHT_AMBIENT_SHARE = 0.6  # of Conditions.light; the rest is diffuse, light along the panel normal


def face_to_world(uv: np.ndarray) -> np.ndarray:
    """Texture px (N, 2) -> world points (N, 3) on the panel (u -> +y, v -> -z)."""
    uv = np.atleast_2d(np.asarray(uv, float))
    y = (uv[:, 0] / TEXTURE_PX - 0.5) * PANEL_SIZE
    z = (0.5 - uv[:, 1] / TEXTURE_PX) * PANEL_SIZE
    return PANEL_CENTER + np.stack([np.zeros_like(y), y, z], axis=1)


def camera_config(c: Conditions) -> CameraConfig:
    """The camera of one item: off-axis by ``view_deg`` toward ``view_dir_deg``, at ``distance``."""
    t, f = math.radians(c.view_deg), math.radians(c.view_dir_deg)
    direction = np.array([math.cos(t), math.sin(t) * math.cos(f), math.sin(t) * math.sin(f)])
    target = PANEL_CENTER + np.array([0.0, c.aim[0], c.aim[1]])
    eye = target + c.distance * direction
    w, h = c.size
    return CameraConfig(
        width=w, height=h, fov_deg=FOV_DEG, near=0.02, far=5.0,
        eye=tuple(eye), target=tuple(target), up=(0.0, 0.0, 1.0),
    )  # fmt: skip


def lighting(c: Conditions) -> Lighting:
    """TinyRenderer gives texture x (ambient + diffuse x cos): with light along the normal, x ``light``."""
    amb = LIGHT_AMBIENT_SHARE * c.light
    return Lighting(
        direction=tuple(PANEL_NORMAL), color=(1.0, 1.0, 1.0), ambient=amb, diffuse=c.light - amb, specular=0.0
    )


@dataclass(frozen=True, eq=False)
class Shot:
    """One rendered item: the image the reader gets, and the camera it came from."""

    image: np.ndarray  # (H, W, 3) uint8 RGB, after blur, sensor size and noise
    camera: Camera


class GaugeScene:
    """One DIRECT client for rendering gauge items; reused item after item."""

    def __init__(self) -> None:
        self._cid = p.connect(p.DIRECT)
        self._tmp = tempfile.TemporaryDirectory(prefix="gauge-tex-")
        self._occluders: list[int] = []
        self._panel = -1
        self._textures = 0

    def close(self) -> None:
        if self._cid >= 0:
            p.disconnect(self._cid)
            self._cid = -1
        self._tmp.cleanup()

    def __enter__(self) -> GaugeScene:
        return self

    def __exit__(self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    # ------------------------------------------------------------------ building
    def build(self, c: Conditions, seed: int) -> Camera:
        """Rebuild the scene of ``c``: panel with its degraded texture, occluders."""
        k = {"physicsClientId": self._cid}
        p.resetSimulation(**k)
        h = PANEL_SIZE / 2
        quad = p.createVisualShape(
            p.GEOM_MESH,
            vertices=[[0, -h, h], [0, h, h], [0, h, -h], [0, -h, -h]],
            indices=[0, 2, 1, 0, 3, 2],
            uvs=[[0, 1], [1, 1], [1, 0], [0, 0]],  # PyBullet's texture v runs bottom-up
            normals=[list(PANEL_NORMAL)] * 4,
            **k,
        )
        col = p.createCollisionShape(p.GEOM_BOX, halfExtents=[0.001, h, h], **k)
        self._panel = p.createMultiBody(0, col, quad, list(PANEL_CENTER), **k)
        self._textures += 1  # a new name each time: PyBullet caches a texture by its file name
        png = Path(self._tmp.name) / f"face{self._textures}.png"
        cv2.imwrite(str(png), cv2.cvtColor(degraded_texture(c, seed), cv2.COLOR_RGB2BGR))
        tex = p.loadTexture(str(png), **k)
        p.changeVisualShape(self._panel, -1, textureUniqueId=tex, rgbaColor=[1, 1, 1, 1], **k)
        camera = Camera(self._cid, camera_config(c))
        self._occluders = self._add_occluder(c.occluder, np.array(camera.config.eye)) if c.occluder else []
        return camera

    def _add_occluder(self, occ: Occluder, eye: np.ndarray) -> list[int]:
        """Boxes (an object; a palm and fingers) standing ``offset`` in front of the panel on the
        camera's ray to the face point they cover."""
        k = {"physicsClientId": self._cid}
        target = face_to_world(np.array([[occ.u, occ.v]]))[0]
        ray = eye - target
        centre = target + ray * (occ.offset / float(ray @ PANEL_NORMAL))
        roll = math.radians(occ.roll_deg)
        orn = p.getQuaternionFromEuler([roll, 0.0, 0.0])
        s = occ.size
        if occ.kind == "object":
            parts = [((0.0, 0.0), (0.02, s / 2, s * 0.4))]
        else:  # palm, four fingers above it, a thumb to the side (in the panel plane, before roll)
            parts = [((0.0, 0.0), (0.012, s * 0.45, s * 0.5))]
            parts += [((-s * 0.34 + i * s * 0.23, s * 0.5 + s * 0.38), (0.009, s * 0.09, s * 0.38)) for i in range(4)]
            parts += [((s * 0.6, -s * 0.05), (0.009, s * 0.3, s * 0.09))]
        ids = []
        for (dy, dz), he in parts:
            off = _rot_x(roll, dy, dz)
            vis = p.createVisualShape(p.GEOM_BOX, halfExtents=list(he), rgbaColor=[*occ.color, 1.0], **k)
            col = p.createCollisionShape(p.GEOM_BOX, halfExtents=list(he), **k)
            ids.append(p.createMultiBody(0, col, vis, list(centre + off), orn, **k))
        return ids

    # ------------------------------------------------------------------ images
    def render(self, c: Conditions, seed: int) -> Shot:
        """The image of ``c`` as the reader gets it."""
        camera = self.build(c, seed)
        frame = camera.render_world(lighting(c))
        assert frame.rgb is not None
        rgb = frame.rgb.astype(np.float32)
        rgb[frame.depth >= camera.config.far * 0.999] = np.array(WALL_DN) * c.light  # the wall behind the panel
        length, deg = c.blur
        if length > 1.0:
            rgb = motion_blur(rgb, length, deg)
        if c.downscale > 1:
            w, h = c.size
            rgb = cv2.resize(rgb, (w // c.downscale, h // c.downscale), interpolation=cv2.INTER_AREA).astype(np.float32)
        noise = seeded_rng("gauge-noise", seed).normal(0.0, c.noise, rgb.shape).astype(np.float32)
        return Shot(np.clip(rgb + noise + 0.5, 0, 255).astype(np.uint8), camera)

    # ------------------------------------------------------------------ geometry for the rule
    def occluded(self, camera: Camera, uv: np.ndarray) -> np.ndarray:
        """Per face point: whether an occluder stands between the camera and it (ray test)."""
        if not self._occluders:
            return np.zeros(len(uv), bool)
        ends = face_to_world(uv) + PANEL_NORMAL * 0.002
        starts = np.repeat(np.array([camera.config.eye]), len(ends), axis=0)
        hits = p.rayTestBatch(starts.tolist(), ends.tolist(), physicsClientId=self._cid)
        return np.array([h[0] in self._occluders for h in hits])


def image_points(camera: Camera, uv: np.ndarray, downscale: int = 1) -> np.ndarray:
    """Face points (N, 2) -> pixel positions (N, 2) in the final image (after a coarser sensor)."""
    uvz = project(camera.info, face_to_world(uv))
    return (uvz[:, :2] + 0.5) / downscale - 0.5


def motion_blur(rgb: np.ndarray, length: float, deg: float) -> np.ndarray:
    """A linear motion blur of ``length`` px along image direction ``deg`` (from +x, y down)."""
    n = int(math.ceil(length)) | 1
    kernel = np.zeros((n, n), np.float32)
    c = n // 2
    a = math.radians(deg)
    for t in np.linspace(-length / 2, length / 2, 4 * n):
        kernel[int(round(c + t * math.sin(a))), int(round(c + t * math.cos(a)))] += 1.0
    return cv2.filter2D(rgb, -1, kernel / kernel.sum(), borderType=cv2.BORDER_REPLICATE)


def _rot_x(roll: float, dy: float, dz: float) -> np.ndarray:
    return np.array([0.0, dy * math.cos(roll) - dz * math.sin(roll), dy * math.sin(roll) + dz * math.cos(roll)])
