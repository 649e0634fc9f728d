"""Benchmark: safety-monitor cost per physics step (core engine, no ROS transport), on real episode steps.

Runs nominal oracle episodes on bare physics, keeps every StepSample, then times the
monitor's per-step work on them: StepSample -> StepInput and SafetyEngine.process; and, on the
same steps as the bridge's StepBatch messages (16 steps), the node's work before the batch
screen (every step converted and scanned) and with it (stream.process_batch). Printed next to
the physics cost per step measured in the same run.

usage: python benchmarks/bench_monitor.py [--episodes N]
"""

from __future__ import annotations

import argparse
import time

from alpha_matrix.core.matrix.bare import run_episode_bare
from alpha_matrix.core.matrix.cells import episode_seed
from alpha_matrix.core.safety.engine import SafetyConfig, SafetyEngine, StepInput
from alpha_matrix.core.safety.stream import process_batch, steps_from_batch
from alpha_matrix.core.sim.world import World

BATCH = 16  # config/params.yaml sim_bridge.batch_steps


def _time_batches(batches: list[list], work) -> float:  # noqa: ANN001
    t0 = time.perf_counter()
    for episode in batches:
        engine = SafetyEngine(SafetyConfig(contact_threshold=47.5))
        for msg in episode:
            work(engine, msg)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=10)
    args = ap.parse_args()
    world = World()
    episodes: list[list] = []
    physics_s = 0.0
    for i in range(args.episodes):
        samples: list = []
        t0 = time.perf_counter()
        run_episode_bare(world, episode_seed(42, i), hook=lambda _w, s, acc=samples: acc.append(s))
        physics_s += time.perf_counter() - t0
        names = tuple(world.body_names.get(i, "") for i in range(max(world.body_names) + 1))  # ids change per reset
        episodes.append((samples, names))
    joints = tuple(world.joint_names)
    steps = sum(len(e) for e, _ in episodes)
    t0 = time.perf_counter()
    events = 0
    for samples, names in episodes:
        engine = SafetyEngine(SafetyConfig(contact_threshold=47.5))
        for s in samples:
            engine.process(StepInput.from_sample(s, joints, names))
        events += len(engine.finish(samples[-1].step))
    monitor_s = time.perf_counter() - t0
    from alpha_matrix.ros.bridge_msgs import step_batch  # the messages themselves: rclpy's array fields

    batches = [
        [step_batch("bench", samples[k : k + BATCH], list(joints), list(names), [], True)
         for k in range(0, len(samples), BATCH)]
        for samples, names in episodes
    ]  # fmt: skip
    per_step_s = _time_batches(batches, lambda engine, msg: [engine.process(s) for s in steps_from_batch(msg)])
    screened_s = _time_batches(batches, lambda engine, msg: list(process_batch(engine, msg)))
    world.close()
    print(f"steps checked: {steps} over {args.episodes} nominal episodes, events: {events}")
    print(f"physics (bare episode incl. IK) : {physics_s / steps * 1e6:7.1f} us/step")
    print(
        f"monitor (convert + engine)      : {monitor_s / steps * 1e6:7.1f} us/step "
        f"({monitor_s / physics_s * 100:.0f} % of physics, on its own core in the graph)"
    )
    print(f"node, every step scanned        : {per_step_s / steps * 1e6:7.1f} us/step (StepBatch of {BATCH})")
    print(
        f"node, batch screen              : {screened_s / steps * 1e6:7.1f} us/step "
        f"({per_step_s / screened_s:.1f}x cheaper; {screened_s / physics_s * 100:.1f} % of physics)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
