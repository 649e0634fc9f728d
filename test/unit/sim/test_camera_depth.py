"""core/sim/camera_depth.py: the depth camera's own scene gives the world's depth image, cheaper.

Checked against a render of the world itself: with the same meshes the mirror reproduces it;
with the Panda's collision twins it differs only on a few robot pixels; the crop of the moving
bodies is the full render's pixels; bodies that come, go or change are followed; and the
bounding-box noise is the whole-image formula's, value for value.
"""

from __future__ import annotations

import numpy as np
import pybullet as p
import pytest

import alpha_matrix.core.sim.camera_depth as camera_depth
from alpha_matrix.core.sim.camera import Camera, static_bodies
from alpha_matrix.core.sim.camera_depth import crop_projection, proxy_mesh
from alpha_matrix.core.sim.camera_model import DepthNoise, add_depth_noise
from alpha_matrix.core.sim.human import Human, HumanPath
from alpha_matrix.core.sim.world import World


@pytest.fixture(scope="module")
def world():
    """A world with the arm off its ready pose and a person in view."""
    w = World()
    w.reset(3)
    w.start_move((0.5, 0.2, 0.9), 240)
    for _ in range(100):
        w.step()
    h = Human(w, HumanPath(angle_deg=150.0, start_distance=2.3, stop_distance=0.8, speed=0.5))
    h.set_step(100)
    yield w
    h.close()
    w.close()


def world_depth(cam: Camera) -> np.ndarray:
    """The depth buffer of the world's own render (what the camera rendered before)."""
    cfg = cam.config
    img = p.getCameraImage(
        cfg.width, cfg.height, cam.view, cam.proj, shadow=0, renderer=p.ER_TINY_RENDERER,
        flags=p.ER_NO_SEGMENTATION_MASK, physicsClientId=cam.client_id,
    )  # fmt: skip
    return np.asarray(img[3], dtype=np.float32).reshape(cfg.height, cfg.width)


def test_with_the_same_meshes_the_mirror_is_the_world(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(camera_depth, "proxy_mesh", lambda path: path)
    cam = Camera(world.client_id, static=static_bodies(world.body_names))
    try:
        ours, ref = cam.depth_scene.depth_buffer(), world_depth(cam)
    finally:
        cam.close()
    assert np.mean(ours == ref) > 0.998 and np.mean(np.abs(ours - ref) > 1e-4) < 0.001


def test_the_panda_drawn_with_its_collision_meshes_changes_a_few_robot_pixels(world: World) -> None:
    link = p.getVisualShapeData(world._panda, physicsClientId=world.client_id)[1][4].decode()
    assert "/meshes/visual/" in link and "/meshes/collision/" in proxy_mesh(link)
    assert proxy_mesh("/nowhere/meshes/visual/x.obj") == "/nowhere/meshes/visual/x.obj"  # no twin: itself
    cam = Camera(world.client_id, static=static_bodies(world.body_names))
    try:
        a, b = cam.render(5, None), cam.render(5, None)
        ref = Camera(world.client_id)  # no static bodies: the floor and table rendered every frame
        try:
            assert np.allclose(ref.render(5, None).depth, a.depth, rtol=0, atol=1e-4)  # the crop: last bits only
        finally:
            ref.close()
        buffer = world_depth(cam)
    finally:
        cam.close()
    assert np.array_equal(a.depth, b.depth)  # deterministic
    far = cam.config.far
    ref_depth = far * cam.config.near / (far - (far - cam.config.near) * buffer.astype(np.float64))
    off = np.abs(a.depth - ref_depth) > 0.01
    assert 0 < off.sum() < 0.005 * off.size
    rows, cols = np.nonzero(off)  # all of them on the robot: near the image's base point, above the floor
    assert np.all(ref_depth[off] < 4.9) and cols.min() > 100 and cols.max() < 220


def test_a_crop_projection_renders_the_full_images_pixels(world: World) -> None:
    cam = Camera(world.client_id)
    cfg = cam.config
    try:
        full = cam.depth_scene._render((0, cfg.width), (0, cfg.height))
        crop = cam.depth_scene._render((97, 201), (33, 150))
    finally:
        cam.close()
    assert crop.shape == (117, 104)
    assert np.allclose(crop, full[33:150, 97:201], rtol=0, atol=2e-7) and np.mean(crop == full[33:150, 97:201]) > 0.99
    proj = crop_projection(tuple(cam.proj), cfg.width, cfg.height, (0, cfg.width), (0, cfg.height))
    assert np.allclose(proj, cam.proj)


def test_bodies_that_come_go_or_change_are_followed(world: World) -> None:
    c = {"physicsClientId": world.client_id}
    cam = Camera(world.client_id, static=static_bodies(world.body_names))
    try:
        before = cam.depth_scene.depth_buffer()
        box = p.createMultiBody(
            0.0, -1, p.createVisualShape(p.GEOM_BOX, halfExtents=[0.3, 0.3, 0.3], **c), [-2, 2, 0.3], **c
        )
        with_box = cam.depth_scene.depth_buffer()
        assert (with_box < before).sum() > 100
        p.removeBody(box, **c)
        assert np.array_equal(cam.depth_scene.depth_buffer(), before)
        sphere = p.createVisualShape(p.GEOM_SPHERE, radius=0.3, **c)
        other = p.createMultiBody(0.0, -1, sphere, [-2, 2, 0.3], **c)  # may reuse the box's id
        with_sphere = cam.depth_scene.depth_buffer()
        assert (with_sphere < before).sum() > 100 and not np.array_equal(with_sphere, with_box)
        p.removeBody(other, **c)
    finally:
        cam.close()


def _noise_whole_image(depth: np.ndarray, noise: DepthNoise, rng: np.random.Generator) -> np.ndarray:
    """The noise as first written: each dropout patch tested over every pixel."""
    h, w = depth.shape
    out = depth + rng.standard_normal(depth.shape).astype(np.float32) * noise.sigma(depth).astype(np.float32)
    out[rng.random(depth.shape) < noise.dropout] = 0.0
    vv, uu = np.mgrid[0:h, 0:w]
    lo, hi = noise.patch_radius_px
    for _ in range(int(rng.poisson(noise.patches))):
        cu, cv = rng.uniform(0, w), rng.uniform(0, h)
        ru, rv = rng.uniform(lo, hi, size=2)
        out[np.square((uu - cu) / ru) + np.square((vv - cv) / rv) <= 1.0] = 0.0
    return np.maximum(out, 0.0).astype(np.float32)


def test_the_noise_tests_each_patch_on_its_box_with_the_same_result() -> None:
    depth = np.linspace(0.5, 6.0, 240 * 320, dtype=np.float32).reshape(240, 320)
    noise = DepthNoise(patches=6.0, patch_radius_px=(2, 25))  # many patches, some over the edges
    for seed in range(40):
        a = add_depth_noise(depth, noise, np.random.default_rng(seed))
        assert np.array_equal(a, _noise_whole_image(depth, noise, np.random.default_rng(seed)))
