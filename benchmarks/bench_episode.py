"""Benchmark: one episode through the multi-process graph vs the same episode on bare physics.

Prints, measured in this one run on the same seeds:
  bare     - run_episode_bare (World + oracle in this process, no ROS): the physics cost
  graph    - the same episodes through sim_bridge/oracle/executive processes over DDS,
             driven by an in-process episode runner (graph started once, kept up)
  ratio    - graph / bare wall time per episode (target <= 1.5)
  speed    - simulated time / wall time of the graph (target >= 20x real time)
  RSS      - resident memory of the graph's node processes (target <= 1 GB)

usage: python benchmarks/bench_episode.py [--episodes N] [--set NODE.PARAM=VALUE ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import rclpy
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.parameter import Parameter

from alpha_matrix.cli.common import parse_sets
from alpha_matrix.core.graph import resolve_graph
from alpha_matrix.core.matrix.bare import run_episode_bare
from alpha_matrix.core.matrix.cells import episode_seed
from alpha_matrix.core.sim.world import World
from alpha_matrix.launcher import Launcher, graph_env
from alpha_matrix.nodes.episode_runner import EpisodeRunner

DT = 1.0 / 240.0


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def bench_bare(seeds: list[int]) -> tuple[list[float], int]:
    world = World()
    run_episode_bare(world, seeds[0])  # warm-up: first-episode caches
    walls, steps = [], 0
    for s in seeds:
        t0 = time.perf_counter()
        r = run_episode_bare(world, s)
        walls.append(time.perf_counter() - t0)
        steps += r.steps
    world.close()
    return walls, steps


def bench_graph(n: int, overrides: dict, domain_id: int, safety: bool) -> tuple[list[float], int, float, int, int]:
    exclude: tuple[str, ...] = ("episode_runner", "chaos")  # faults are benchmarked by bench_matrix.py
    if not safety:  # the issue-2 graph: bridge, oracle, executive only
        exclude += ("safety_monitor", "recorder")
        overrides = {**overrides, "sim_bridge": {**overrides.get("sim_bridge", {}), "gating_consumers": []}}
    tmp_bags = tempfile.mkdtemp(prefix="bench_bags_")
    if safety:
        overrides = {**overrides, "recorder": {"bags_dir": tmp_bags}}
    graph = resolve_graph(None, overrides, exclude=exclude)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Launcher(graph, graph_env(domain_id), out=open("/dev/null", "w")) as launcher,
    ):
        ctx = Context()
        rclpy.init(context=ctx, domain_id=domain_id)
        runner = EpisodeRunner(
            context=ctx,
            parameter_overrides=[
                Parameter("runs_dir", value=tmp),
                Parameter("run_id", value="bench"),
                Parameter("safety_monitor", value=safety),
            ],
        )
        ex = SingleThreadedExecutor(context=ctx)
        ex.add_node(runner)
        th = threading.Thread(target=ex.spin, daemon=True)
        th.start()
        try:
            runner.wait_for_graph()
            prov = None
            from alpha_matrix.core.records import provenance

            prov = provenance("bench")
            runner.run_episode(0, "bench", prov)  # warm-up
            walls, steps, ok = [], 0, 0
            for i in range(n):
                t0 = time.perf_counter()
                rec = runner.run_episode(i, "bench", prov)
                walls.append(time.perf_counter() - t0)
                steps += rec.outcome.steps_used
                ok += rec.outcome.success
                if not rec.outcome.success:
                    print(f"  {rec.episode_id}: {rec.outcome.reason}", file=sys.stderr)
            mem = rss_mb([p.pid for p in launcher.procs.values()])
        finally:
            ex.shutdown()
            th.join(timeout=5)
            runner.destroy_node()
            rclpy.shutdown(context=ctx)
    return walls, steps, mem, ok, len(graph.nodes)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--domain-id", type=int, default=97)
    ap.add_argument("--safety", action="store_true", help="include the safety monitor and the recorder (gating)")
    args = ap.parse_args()
    seeds = [episode_seed(42, i) for i in range(args.episodes)]
    bare, bare_steps = bench_bare(seeds)
    graph, graph_steps, mem, ok, nodes = bench_graph(args.episodes, parse_sets(args.set), args.domain_id, args.safety)
    b, g = statistics.mean(bare), statistics.mean(graph)
    what = "with safety monitor + recorder (gating)" if args.safety else "bridge + oracle + executive"
    print(f"graph: {what}; episodes: {args.episodes} (same seeds both ways), graph successes {ok}/{args.episodes}")
    print(f"bare physics   : {b * 1000:7.1f} ms/episode  ({bare_steps / sum(bare):8.0f} steps/s)")
    print(
        f"full graph     : {g * 1000:7.1f} ms/episode  ({graph_steps / sum(graph):8.0f} steps/s), "
        f"median {statistics.median(graph) * 1000:.1f} ms"
    )
    print(f"ratio graph/bare: {g / b:.2f}   (target <= 1.5)")
    print(f"sim speed      : {graph_steps * DT / sum(graph):.1f}x real time   (target >= 20x)")
    print(f"graph RSS      : {mem:.0f} MB over {nodes} node processes   (target <= 1024 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
