"""Benchmark: the proximity camera's render cost per simulated second, before and after.

One approach run (arm moving, a person walking in, core engine, no ROS); at every frame step
the same scene is rendered both ways, in this one process:

* before: the world itself with TinyRenderer (visual meshes, colour and depth in one pass) and
  the sensor noise over the whole image, as the camera did;
* after: ``Camera.render`` (depth from the camera's own scene, no colour).

Prints render time (incl. noise) per simulated second for each, wall and CPU (the CPU time is
what this process spent, steadier when other work shares the machine), their ratio, and how
far the two depth images and the detector's answers on them differ.

usage: python benchmarks/bench_camera.py [--seconds S]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pybullet as p

from alpha_matrix.core.seeds import rng
from alpha_matrix.core.sim.camera import Camera, CameraConfig, static_bodies
from alpha_matrix.core.sim.camera_model import DepthNoise, metric_depth
from alpha_matrix.core.sim.human import Human, HumanPath
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.proximity.detector import ProximityDetector


def noise_before(depth: np.ndarray, noise: DepthNoise, gen: np.random.Generator) -> np.ndarray:
    """The sensor noise as it was: every patch tested over the whole image."""
    h, w = depth.shape
    out = depth + gen.standard_normal(depth.shape).astype(np.float32) * noise.sigma(depth).astype(np.float32)
    out[gen.random(depth.shape) < noise.dropout] = 0.0
    vv, uu = np.mgrid[0:h, 0:w]
    lo, hi = noise.patch_radius_px
    for _ in range(int(gen.poisson(noise.patches))):
        cu, cv = gen.uniform(0, w), gen.uniform(0, h)
        ru, rv = gen.uniform(lo, hi, size=2)
        out[np.square((uu - cu) / ru) + np.square((vv - cv) / rv) <= 1.0] = 0.0
    return np.maximum(out, 0.0).astype(np.float32)


def render_before(cam: Camera, gen: np.random.Generator) -> np.ndarray:
    """The camera's render as it was: the world's TinyRenderer image, colour and depth together."""
    cfg: CameraConfig = cam.config
    img = p.getCameraImage(
        cfg.width, cfg.height, cam.view, cam.proj, shadow=0, renderer=p.ER_TINY_RENDERER,
        flags=p.ER_NO_SEGMENTATION_MASK, physicsClientId=cam.client_id,
    )  # fmt: skip
    _rgb = np.asarray(img[2], dtype=np.uint8).reshape(cfg.height, cfg.width, 4)[:, :, :3].copy()
    depth = metric_depth(np.asarray(img[3], dtype=np.float32).reshape(cfg.height, cfg.width), cfg.near, cfg.far)
    return noise_before(depth, cfg.noise, gen)


def clock() -> tuple[float, float]:
    return time.perf_counter(), time.process_time()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="simulated seconds")
    args = ap.parse_args()
    cost = {"before": np.zeros(2), "after": np.zeros(2)}
    agree = frames = 0
    dist_diff: list[float] = []
    px_diff: list[float] = []
    with World() as world:
        world.reset(1)
        cam = Camera(world.client_id, static=static_bodies(world.body_names))
        try:
            det = {k: ProximityDetector(cam.info) for k in cost}
            det["before"].calibrate([render_before(cam, rng("bench", "ref", i)) for i in range(5)])
            det["after"].calibrate([cam.render(0, rng("bench", "ref", i)).depth for i in range(5)])
            human = Human(world, HumanPath(angle_deg=150.0, start_distance=4.3, stop_distance=0.8, speed=0.5))
            world.start_move((0.5, 0.2, 0.9), 240)
            steps = round(args.seconds / world.config.timestep)
            for k in range(1, steps + 1):
                if not world.busy:
                    world.start_move((0.5, 0.2 if k % 480 < 240 else -0.2, 0.9), 240)
                world.step()
                if not cam.due(k):
                    continue
                human.set_step(k)
                depth = {}
                for name in ("before", "after"):
                    t0 = clock()
                    if name == "before":
                        depth[name] = render_before(cam, rng("bench", k))
                    else:
                        depth[name] = cam.render(k, rng("bench", k)).depth
                    cost[name] += np.subtract(clock(), t0)
                found = {name: det[name].detect(d) for name, d in depth.items()}
                frames += 1
                agree += found["before"].detected == found["after"].detected
                if found["before"].detected and found["after"].detected:
                    dist_diff.append(abs(found["before"].distance - found["after"].distance))
                valid = (depth["before"] > 0) & (depth["after"] > 0)
                px_diff.append(float(np.mean(np.abs(depth["before"][valid] - depth["after"][valid]) > 0.01)))
            human.close()
        finally:
            cam.close()
    sim_s = steps * world.config.timestep
    (bw, bc), (aw, ac) = (1e3 * cost[k] / sim_s for k in ("before", "after"))
    print(f"frames: {frames} over {sim_s:.0f} sim s ({cam.config.width}x{cam.config.height}, every "
          f"{cam.config.render_every} steps)")  # fmt: skip
    print(f"render (incl. noise) per sim second, before: {bw:.0f} ms wall, {bc:.0f} ms CPU")
    print(f"render (incl. noise) per sim second, after:  {aw:.0f} ms wall, {ac:.0f} ms CPU")
    print(f"after / before: {aw / bw:.2f} wall, {ac / bc:.2f} CPU ({bc / ac:.1f}x cheaper)")
    worst = max(dist_diff) if dist_diff else math.nan
    print(f"detector on both images: same detected/clear on {agree}/{frames} frames, distance differs by "
          f"median {100 * np.median(dist_diff):.1f} cm, max {100 * worst:.1f} cm ({len(dist_diff)} frames)")  # fmt: skip
    print(
        f"depth pixels differing by > 1 cm: mean {100 * np.mean(px_diff):.2f} % of a frame (the Panda's simpler meshes)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
