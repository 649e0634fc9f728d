"""A fixed RGB-D camera over the cell: TinyRenderer images, metric depth, a real sensor's noise.

Placement (why overhead): the notes' camera (1.6, 0, 2.8) looking back over the robot sees
only a cone behind the robot and loses the person's legs and feet behind the table and arm,
so its distance estimate is biased *farther* (the unsafe direction) by up to ~0.3 m. A
wide-angle depth camera on the ceiling above the robot (like an overhead safety camera) looks
down on the floor around the base from every side: the part of a person nearest the robot
faces the camera and nothing stands between them. Default: 5 m up, 0.5 m behind the base,
100 deg vertical field of view (a wide-FOV ToF sensor's range).

Simulated depth is exact and ignores lighting (the depth buffer is byte-identical under any
light), so this module adds a seeded sensor model: per-pixel Gaussian noise growing with the
square of range (ToF/structured-light behaviour), isolated dropouts, and dropout patches
(specular / absorbing surfaces, multipath). Lighting changes the RGB image only; a lighting
sweep says nothing about a depth-only detector, and the metrics should not pretend it does.

Cost: depth comes from the camera's own render-only scene (``camera_depth.DepthScene``: the
floor and table rendered once, the moving bodies each frame, the Panda drawn with its
simplified meshes), about 9x cheaper a frame, noise included, than rendering the world; the
colour image is rendered from the world itself, and only when asked for (``render(...,
rgb=True)``). Measured by ``benchmarks/bench_camera.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pybullet as p

from alpha_matrix.core.sim.camera_depth import DepthScene, View
from alpha_matrix.core.sim.camera_model import CELL_CAMERA, CameraInfo, DepthNoise, add_depth_noise, metric_depth

Vec3 = tuple[float, float, float]
STATIC_BODIES = ("plane", "table")  # bodies of the world that never move: rendered once per camera


def static_bodies(body_names: Mapping[int, str]) -> tuple[int, ...]:
    """The ids of the world's static bodies (``World.body_names``), for ``Camera``."""
    return tuple(body for body, name in body_names.items() if name in STATIC_BODIES)


@dataclass(frozen=True)
class Lighting:
    """RGB lighting of one frame (TinyRenderer parameters)."""

    direction: Vec3 = (0.5, -0.3, 1.0)
    color: Vec3 = (1.0, 1.0, 1.0)
    ambient: float = 0.6
    diffuse: float = 0.35
    specular: float = 0.05


LIGHTING: dict[str, Lighting] = {
    "default": Lighting(),
    "dim": Lighting(color=(0.45, 0.45, 0.5), ambient=0.25, diffuse=0.3),
    "bright": Lighting(direction=(0.0, 0.0, 1.0), ambient=0.85, diffuse=0.5, specular=0.2),
    "side": Lighting(direction=(1.0, 0.2, 0.15), ambient=0.3, diffuse=0.8),
    "warm": Lighting(color=(1.0, 0.8, 0.55), ambient=0.5, diffuse=0.45),
}


@dataclass(frozen=True)
class CameraConfig:
    width: int = 320
    height: int = 240
    fov_deg: float = 100.0  # vertical
    near: float = 0.1
    far: float = 10.0
    eye: Vec3 = CELL_CAMERA.eye  # the mount: one source of truth (camera_model.CELL_CAMERA)
    target: Vec3 = CELL_CAMERA.target
    up: Vec3 = CELL_CAMERA.up  # image top points to +x; the image width spans y
    render_every: int = CELL_CAMERA.frame_every  # physics steps per frame: 10 Hz at 240 Hz
    noise: DepthNoise = DepthNoise()


@dataclass(frozen=True, eq=False)
class Frame:
    step: int
    rgb: np.ndarray | None  # (H, W, 3) uint8; None unless asked for
    depth: np.ndarray  # (H, W) float32, metres along the optical axis, 0 = no return
    info: CameraInfo


def matrices(cfg: CameraConfig) -> tuple[list[float], list[float]]:
    """PyBullet view and projection matrices (column-major lists) for ``cfg``."""
    view = p.computeViewMatrix(cfg.eye, cfg.target, cfg.up)
    proj = p.computeProjectionMatrixFOV(cfg.fov_deg, cfg.width / cfg.height, cfg.near, cfg.far)
    return list(view), list(proj)


def camera_info(cfg: CameraConfig) -> CameraInfo:
    """Intrinsics from the projection matrix, extrinsics from the inverse view matrix."""
    view, proj = matrices(cfg)
    pm = np.array(proj).reshape(4, 4).T
    vm = np.array(view).reshape(4, 4).T  # world -> OpenGL camera (x right, y up, z backward)
    fx = pm[0, 0] * cfg.width / 2.0
    fy = pm[1, 1] * cfg.height / 2.0
    gl_to_optical = np.diag([1.0, -1.0, -1.0, 1.0])
    world_from_cam = np.linalg.inv(vm) @ gl_to_optical
    return CameraInfo(cfg.width, cfg.height, fx, fy, cfg.width / 2.0 - 0.5, cfg.height / 2.0 - 0.5, world_from_cam)


class Camera:
    """The fixed camera over one PyBullet client: depth from its own scene, colour from the world.

    The ``static`` bodies (``static_bodies(world.body_names)``) must never move while the camera
    lives: they are rendered into the depth background once. Close the camera (it owns a render
    client).
    """

    def __init__(self, client_id: int, config: CameraConfig | None = None, static: Iterable[int] = ()) -> None:
        self.config = cfg = config or CameraConfig()
        self.client_id = client_id
        self.view, self.proj = matrices(cfg)
        self.info = camera_info(cfg)
        self._mirror_view = View(
            cfg.width, cfg.height, tuple(self.view), tuple(self.proj), self.info, cfg.near, cfg.far
        )
        self._static = tuple(static)
        self._depth_scene: DepthScene | None = None

    @property
    def depth_scene(self) -> DepthScene:
        """The render-only mirror, built at the first depth frame (a still shot never needs it)."""
        if self._depth_scene is None:
            self._depth_scene = DepthScene(self.client_id, self._mirror_view, self._static)
        return self._depth_scene

    def due(self, step: int) -> bool:
        """Whether ``step`` is a frame step (every ``render_every`` physics steps)."""
        return step % self.config.render_every == 0

    def render(
        self, step: int, rng: np.random.Generator | None, lighting: Lighting = LIGHTING["default"], rgb: bool = False
    ) -> Frame:
        """Metric depth (``rng`` None gives the exact, noise-free depth) and, with ``rgb``, colour."""
        cfg = self.config
        depth = metric_depth(self.depth_scene.depth_buffer(), cfg.near, cfg.far)
        if rng is not None:
            depth = add_depth_noise(depth, cfg.noise, rng)
        return Frame(step, self.render_rgb(lighting) if rgb else None, depth, self.info)

    def render_rgb(self, lighting: Lighting = LIGHTING["default"]) -> np.ndarray:
        """The colour image of the world itself (visual meshes, lighting): (H, W, 3) uint8."""
        frame = self.render_world(lighting)
        assert frame.rgb is not None
        return frame.rgb

    def render_world(self, lighting: Lighting = LIGHTING["default"]) -> Frame:
        """Colour (H, W, 3) uint8 and exact metric depth of the world itself in one render, at
        step 0: a still shot of a scene built for one image (a gauge panel, a refusal item), where
        building the mirror would cost more than it saves."""
        cfg = self.config
        img = p.getCameraImage(
            cfg.width,
            cfg.height,
            self.view,
            self.proj,
            lightDirection=list(lighting.direction),
            lightColor=list(lighting.color),
            lightAmbientCoeff=lighting.ambient,
            lightDiffuseCoeff=lighting.diffuse,
            lightSpecularCoeff=lighting.specular,
            shadow=0,
            renderer=p.ER_TINY_RENDERER,
            flags=p.ER_NO_SEGMENTATION_MASK,
            physicsClientId=self.client_id,
        )
        rgb = np.asarray(img[2], dtype=np.uint8).reshape(cfg.height, cfg.width, 4)[:, :, :3].copy()
        depth = metric_depth(np.asarray(img[3], dtype=np.float32).reshape(cfg.height, cfg.width), cfg.near, cfg.far)
        return Frame(0, rgb, depth, self.info)

    def close(self) -> None:
        if self._depth_scene is not None:
            self._depth_scene.close()
