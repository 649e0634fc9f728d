"""The item's overhead RGB image, rendered by the sim camera (PyBullet TinyRenderer).

A scene of its own client (DIRECT, closed on exit): the world's plane and table, each object as
a primitive of its shape and size in its colour (core/sim/bodies.py, the builder the robot's
world spawns them with), each person as a standing cylinder, each
keep-out zone as a thin red plate on the table. The robot is not drawn: an overhead view of the
arm would hide objects beneath it and make the projected masks (the pointing and box truth)
wrong; the graph runs park the arm outside the view. The camera is ``view.TABLE_CAMERA`` through
``sim.camera.Camera``, so image and projections share one set of parameters (a unit test checks
the rendered segmentation against the projected masks).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pybullet as p
import pybullet_data

from alpha_matrix.core.agent.images import rgb_image
from alpha_matrix.core.agent.protocol import Image
from alpha_matrix.core.sim.bodies import spawn_body
from alpha_matrix.core.sim.camera import Camera, CameraConfig, matrices
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.refusal.execute import body_specs
from alpha_matrix.core.suites.refusal.scene import Scene
from alpha_matrix.core.suites.refusal.view import TABLE_CAMERA, TableCamera

_WORLD = WorldConfig()
PERSON_RADIUS_M = 0.15  # people stand at |y| >= 0.7 m: clear of the table's edge (|y| = 0.5 m)
PERSON_HEIGHT_M = 1.7
ZONE_RGBA = (0.9, 0.15, 0.15, 0.6)


def camera_config(cam: TableCamera = TABLE_CAMERA) -> CameraConfig:
    return CameraConfig(width=cam.width, height=cam.height, fov_deg=cam.fov_deg, eye=cam.eye, target=cam.target, up=cam.up)  # fmt: skip


@dataclass(frozen=True)
class Rendered:
    rgb: np.ndarray  # H x W x 3 uint8
    segmentation: np.ndarray  # H x W int: body id per pixel (-1 background)
    bodies: dict[str, int]  # object name -> body id


@contextmanager
def _client() -> Iterator[int]:
    cid = p.connect(p.DIRECT)
    try:
        p.setAdditionalSearchPath(pybullet_data.getDataPath(), physicsClientId=cid)
        yield cid
    finally:
        p.disconnect(physicsClientId=cid)


def render_scene(scene: Scene, cam: TableCamera = TABLE_CAMERA) -> Rendered:
    """Build ``scene`` in a fresh client and render the overhead frame (no physics step)."""
    with _client() as cid:
        c = {"physicsClientId": cid}
        p.loadURDF(_WORLD.plane_urdf, **c)
        p.loadURDF(_WORLD.table_urdf, _WORLD.table_position, useFixedBase=True, **c)
        top = _WORLD.table_top_z
        for z in scene.zones:
            half = [(z.x[1] - z.x[0]) / 2, (z.y[1] - z.y[0]) / 2, 0.0005]
            vis = p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=ZONE_RGBA, **c)
            p.createMultiBody(0.0, -1, vis, [(z.x[0] + z.x[1]) / 2, (z.y[0] + z.y[1]) / 2, top + 0.0005], **c)
        for person in scene.people:
            vis = p.createVisualShape(p.GEOM_CYLINDER, radius=PERSON_RADIUS_M, length=PERSON_HEIGHT_M, rgbaColor=(0.9, 0.7, 0.55, 1.0), **c)  # fmt: skip
            p.createMultiBody(0.0, -1, vis, [person.xy[0], person.xy[1], PERSON_HEIGHT_M / 2], **c)
        bodies = {}
        for o in body_specs(scene):
            bodies[o.name] = spawn_body(o, cid, top)
        cfg = camera_config(cam)
        rgb = Camera(cid, cfg).render_rgb()
        view, proj = matrices(cfg)
        img = p.getCameraImage(cfg.width, cfg.height, view, proj, shadow=0, renderer=p.ER_TINY_RENDERER, **c)
        seg = np.asarray(img[4], dtype=np.int64).reshape(cfg.height, cfg.width)
        return Rendered(rgb, seg, bodies)


def scene_image(scene: Scene, cam: TableCamera = TABLE_CAMERA) -> Image:
    """The observation's overhead RGB image of ``scene`` (PNG, deterministic bytes)."""
    return rgb_image(render_scene(scene, cam).rgb, 0)


__all__ = ["PERSON_HEIGHT_M", "PERSON_RADIUS_M", "Rendered", "camera_config", "render_scene", "scene_image"]
