"""Benchmark: human-proximity cost on one approach run (core engine, no ROS).

Prints the detector's latency per frame (median, p95), the camera's render cost per
simulated second at 10 Hz, and the physics cost per simulated second measured in the same
run, with their ratio.

usage: python benchmarks/bench_proximity.py [--seconds S]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from alpha_matrix.core.seeds import rng
from alpha_matrix.core.sim.camera import Camera, static_bodies
from alpha_matrix.core.sim.human import Human, HumanPath
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.proximity.detector import ProximityDetector


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="simulated seconds")
    args = ap.parse_args()
    with World() as world:
        world.reset(1)
        cam = Camera(world.client_id, static=static_bodies(world.body_names))
        det = ProximityDetector(cam.info)
        det.calibrate([cam.render(0, rng("bench", "ref", i)).depth for i in range(5)])
        human = Human(world, HumanPath(angle_deg=150.0, start_distance=4.3, stop_distance=0.8, speed=0.5))
        world.start_move((0.5, 0.2, 0.9), 240)
        physics = render = 0.0
        detect: list[float] = []
        steps = round(args.seconds / world.config.timestep)
        for k in range(1, steps + 1):
            if not world.busy:
                world.start_move((0.5, 0.2 if k % 480 < 240 else -0.2, 0.9), 240)
            t0 = time.perf_counter()
            world.step()
            physics += time.perf_counter() - t0
            if not cam.due(k):
                continue
            human.set_step(k)
            t0 = time.perf_counter()
            frame = cam.render(k, rng("bench", k))
            t1 = time.perf_counter()
            det.detect(frame.depth)
            t2 = time.perf_counter()
            render += t1 - t0
            detect.append(t2 - t1)
        human.close()
        cam.close()
    sim_s = steps * world.config.timestep
    ms = np.array(detect) * 1e3
    print(f"frames: {len(detect)} over {sim_s:.0f} sim s ({cam.config.width}x{cam.config.height}, every "
          f"{cam.config.render_every} steps)")  # fmt: skip
    print(f"detector latency per frame: median {np.median(ms):.2f} ms, p95 {np.quantile(ms, 0.95):.2f} ms")
    print(f"render (incl. noise) per sim second: {1e3 * render / sim_s:.0f} ms")
    print(f"physics per sim second: {1e3 * physics / sim_s:.0f} ms")
    print(f"render / physics: {render / physics:.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
