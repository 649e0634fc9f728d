"""Benchmark: one episode through the multi-process graph vs the same episode on bare physics.

Prints, measured in this one run on the same seeds, bare and graph episodes alternating (this
VM's speed drifts by tens of percent within minutes: alternation puts both under the same drift):
  bare     - run_episode_bare (World + oracle in this process, no ROS): the physics cost
  + reach  - the same with the reach check of every move target first (the driver's IK, which
             the graph's executive asks of the robot before any motion): a second baseline
  graph    - the same episodes through sim_bridge/oracle/executive processes over DDS,
             driven by an in-process episode runner (graph started once, kept up)
  ratio    - graph / bare wall time per episode (target <= 1.3 for the default graph)
  overhead - graph - bare wall time per episode: unlike the ratio, unchanged by faster physics
  speed    - simulated time / wall time of the graph (target >= 20x real time)
  CPU      - CPU seconds of each node process during the timed episodes (which one costs what)
  step     - thread CPU time of the same World.step here (bare) and inside the bridge node; in
             the bridge, the first step after other work (a publish, a wait, a request) apart
  loop     - thread CPU time of the bridge loop's other work: publishing, waiting on the gate,
             serving requests
  RSS      - resident memory of the graph's node processes (target <= 1 GB)

The graph is the default one without the chaos node (faults are bench_matrix.py's); --chaos keeps
it in, with no fault set: the matrix's graph, whose batches stay batch_steps long (its F1 delay
line reads batch-end poses).

usage: python benchmarks/bench_episode.py [--safety] [--chaos] [--episodes N] [--set NODE.PARAM=VALUE ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import rclpy
from rclpy.context import Context
from rclpy.parameter import Parameter

from alpha_matrix.cli.common import parse_sets
from alpha_matrix.core.graph import Graph
from alpha_matrix.core.matrix.bare import run_episode_bare
from alpha_matrix.core.matrix.cells import episode_seed
from alpha_matrix.core.recorder_params import DEFAULT_RECORDED_TOPICS, hashed_topics
from alpha_matrix.core.records import EpisodeRecord, Provenance, provenance
from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.core.robot.loop_timing import PARTS, parse_loop
from alpha_matrix.core.sim.timed_world import TimedWorld, Timing, parse_timing
from alpha_matrix.launcher import Launcher, graph_env
from alpha_matrix.nodes.episode_runner import EpisodeRunner
from alpha_matrix.ros.spin import spin_behind

DT = 1.0 / 240.0
WATCH_S = 0.25  # how often the graph's processes are looked at while episodes run


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


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class NodeDied(Exception):
    """A node of the benchmarked graph ended while the benchmark ran."""


def check_nodes(launcher: Launcher, during: str) -> None:
    if dead := launcher.exited():
        lines = []
        for name, how in dead.items():
            lines.append(f"node '{name}' {how} during {during}; its last lines:")
            lines += [f"  {ln}" for ln in launcher.last_lines(name)] or ["  (none)"]
        raise NodeDied("\n".join(lines))


@contextlib.contextmanager
def deaths_interrupt(launcher: Launcher) -> Iterator[None]:
    """A node that dies interrupts the main thread within WATCH_S, named (NodeDied): else its
    episode would wait out the bridge's ack timeout (30 s) for a gating consumer that is gone."""
    armed, done = threading.Event(), threading.Event()

    def interrupt(_signum: int, _frame: object) -> None:
        if armed.is_set():
            armed.clear()
            check_nodes(launcher, "the episodes")

    def watch() -> None:
        while not done.wait(WATCH_S):
            if launcher.exited():
                signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGUSR1)
                return

    previous = signal.signal(signal.SIGUSR1, interrupt)
    armed.set()
    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield
    finally:
        armed.clear()
        done.set()
        thread.join()
        signal.signal(signal.SIGUSR1, previous)


@dataclass
class Result:
    bare: list[float] = field(default_factory=list)  # wall s per episode
    reach: list[float] = field(default_factory=list)  # bare + the reach checks
    graph: list[float] = field(default_factory=list)
    bare_steps: int = 0
    graph_steps: int = 0
    successes: int = 0
    cpu: dict[str, float] = field(default_factory=dict)  # node -> CPU s over the timed episodes
    rss_mb: float = 0.0
    nodes: int = 0
    bare_step_us: float = 0.0  # thread CPU of World.step, here and in the bridge
    bridge: Timing | None = None  # the bridge's, summed over the timed episodes
    loop: dict[str, tuple[int, int]] = field(default_factory=dict)  # the bridge loop's other work: calls, ns


def bench(
    seeds: list[int], overrides: dict, domain_id: int, safety: bool, chaos: bool = False, view: bool = True
) -> Result:
    exclude: tuple[str, ...] = ("episode_runner",) if chaos else ("episode_runner", "chaos")
    if not view:  # the graph before the viewer's topics: no scene_markers, no /tf, /robot_description recorded
        exclude += ("scene_markers",)
        overrides = {
            **overrides,
            "recorder": {**overrides.get("recorder", {}), "topics": hashed_topics(DEFAULT_RECORDED_TOPICS)},
        }
    bridge = {**overrides.get("sim_bridge", {}), "time_physics": True}
    if not safety:  # the issue-2 graph: bridge, oracle, executive only
        exclude += ("safety_monitor", "recorder")
        bridge["gating_consumers"] = []
    overrides = {**overrides, "sim_bridge": bridge}
    with tempfile.TemporaryDirectory(prefix="bench_episode_") as tmp:
        if safety:
            overrides = {
                **overrides,
                "recorder": {**overrides.get("recorder", {}), "bags_dir": str(Path(tmp) / "bags")},
            }
        return _bench_graph(seeds, resolve_graph(None, overrides, exclude=exclude), domain_id, safety, chaos, tmp)


def _bench_graph(seeds: list[int], graph: Graph, domain_id: int, safety: bool, chaos: bool, tmp: str) -> Result:
    log = io.StringIO()  # the nodes' output: the bridge's physics timing lines
    with Launcher(graph, graph_env(domain_id), out=log) as launcher:
        ctx = Context()
        rclpy.init(context=ctx, domain_id=domain_id)
        runner = EpisodeRunner(
            context=ctx,
            parameter_overrides=[
                Parameter("runs_dir", value=tmp),
                Parameter("run_id", value="bench"),
                Parameter("safety_monitor", value=safety),
                Parameter("chaos", value=chaos),  # then it configures each episode's fault: none
            ],
        )
        res = Result(nodes=len(graph.nodes))
        pids = {name: p.pid for name, p in launcher.procs.items()}

        def episode(index: int, prov: Provenance) -> EpisodeRecord:
            """One graph episode; a node that died meanwhile ends the benchmark, named (its
            episodes would fail for want of it, under another reason)."""
            try:
                return runner.run_episode(index, "bench", prov)
            finally:
                check_nodes(launcher, f"episode {index}")

        def episodes() -> None:
            with deaths_interrupt(launcher):
                timed_episodes()

        def timed_episodes() -> None:
            runner.wait_for_graph()
            prov = provenance("bench")
            episode(0, prov)  # warm-up
            # Two worlds: one caches the reach checks it made. Both timed, as the bridge's is: every
            # leg carries the same two clock reads a step.
            world, checked = TimedWorld(), TimedWorld()
            run_episode_bare(world, seeds[0])  # warm-up: first-episode caches
            run_episode_bare(checked, seeds[0], check_reach=True)
            world.take_timing()
            cpu0 = {name: cpu_s(pid) for name, pid in pids.items()}
            for i, seed in enumerate(seeds):
                t0 = time.perf_counter()
                bare = run_episode_bare(world, seed)
                t1 = time.perf_counter()
                run_episode_bare(checked, seed, check_reach=True)
                t2 = time.perf_counter()
                rec = episode(i, prov)
                res.graph.append(time.perf_counter() - t2)
                res.bare.append(t1 - t0)
                res.reach.append(t2 - t1)
                res.bare_steps += bare.steps
                res.graph_steps += rec.outcome.steps_used
                res.successes += rec.outcome.success
                if not rec.outcome.success:
                    print(f"  {rec.episode_id}: {rec.outcome.reason}", file=sys.stderr)
            res.cpu = {name: cpu_s(pid) - cpu0[name] for name, pid in pids.items()}
            res.rss_mb = rss_mb(list(pids.values()))
            here = world.take_timing()
            res.bare_step_us = here.ns / here.steps / 1000
            world.close()
            checked.close()
            # The bridge logs an episode's timing at the next reset: one more episode brings the
            # last timed one's; the first line is the warm-up's.
            episode(len(seeds), prov)
            # Both lines of the last episode: the loop's is logged just after the physics'.
            deadline = time.monotonic() + 10.0
            while True:
                text = log.getvalue()
                timed, loops = parse_timing(text)[1 : len(seeds) + 1], parse_loop(text)[1 : len(seeds) + 1]
                if min(len(timed), len(loops)) == len(seeds) or time.monotonic() >= deadline:
                    break
                time.sleep(0.05)  # the launcher forwards node output from its own threads
            if len(timed) == len(seeds):
                res.bridge = Timing(*(sum(column) for column in zip(*timed, strict=True)))
            if len(loops) == len(seeds):
                res.loop = {p: (sum(lp[p][0] for lp in loops), sum(lp[p][1] for lp in loops)) for p in PARTS}

        try:
            spin_behind(runner, episodes, context=ctx, interruptible=False)  # as the runner node spins
        finally:
            runner.destroy_node()
            rclpy.shutdown(context=ctx)
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=20)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--domain-id", type=int, default=97)
    ap.add_argument("--safety", action="store_true", help="include the safety monitor and the recorder (gating)")
    ap.add_argument("--chaos", action="store_true", help="keep the chaos node in, no fault set (the matrix's graph)")
    ap.add_argument(
        "--no-view",
        action="store_true",
        help="without scene_markers and the viewer's topics (docs/foxglove.md): as before them",
    )
    args = ap.parse_args()
    seeds = [episode_seed(42, i) for i in range(args.episodes)]
    try:
        r = bench(seeds, parse_sets(args.set), args.domain_id, args.safety, args.chaos, not args.no_view)
    except NodeDied as err:
        print(f"bench_episode: the graph broke, no result: {err}", file=sys.stderr)
        return 1
    b, g, c = statistics.mean(r.bare), statistics.mean(r.graph), statistics.mean(r.reach)
    what = "with safety monitor + recorder (gating)" if args.safety else "bridge + oracle + executive"
    what += ", with the chaos node (no fault)" if args.chaos else ""
    what += ", without the viewer's topics and scene_markers" if args.no_view else ""
    n = args.episodes
    print(f"graph: {what}; episodes: {n} (same seeds both ways, alternating), graph successes {r.successes}/{n}")
    print(f"bare physics   : {b * 1000:7.1f} ms/episode  ({r.bare_steps / sum(r.bare):8.0f} steps/s)")
    print(
        f"full graph     : {g * 1000:7.1f} ms/episode  ({r.graph_steps / sum(r.graph):8.0f} steps/s), "
        f"median {statistics.median(r.graph) * 1000:.1f} ms"
    )
    paired = statistics.median(gi / bi for gi, bi in zip(r.graph, r.bare, strict=True))
    print(f"ratio graph/bare: {g / b:.2f}   (target <= 1.3, default graph); median of paired ratios {paired:.2f}")
    print(f"graph overhead : {(g - b) * 1000:7.1f} ms/episode  (graph - bare: what the graph adds to the same physics)")
    print(
        f"bare + reach   : {c * 1000:7.1f} ms/episode  (the reach checks the graph's executive asks for); "
        f"ratio graph/that {g / c:.2f}"
    )
    print(f"sim speed      : {r.graph_steps * DT / sum(r.graph):.1f}x real time   (target >= 20x)")
    cpu = ", ".join(f"{name} {s / n * 1000:.0f}" for name, s in sorted(r.cpu.items(), key=lambda kv: -kv[1]))
    print(f"node CPU       : {cpu} ms/episode (bare physics {b * 1000:.0f})")
    if (t := r.bridge) is not None:
        step_us = t.ns / t.steps / 1000
        print(
            f"physics step   : {r.bare_step_us:7.1f} us here, {step_us:.1f} us in the bridge "
            f"({step_us / r.bare_step_us - 1:+.0%}; thread CPU of the same World.step)"
        )
        if t.first_steps and t.steps > t.first_steps:
            print(
                f"  in the bridge: {t.first_ns / t.first_steps / 1000:.1f} us the first step after other work "
                f"(a publish, a wait on the gate, a request; {t.first_steps / n:.0f} an episode), "
                f"{(t.ns - t.first_ns) / (t.steps - t.first_steps) / 1000:.1f} us the others: "
                f"the cold caches cost {t.cold_cost_ns() / n / 1e6:.1f} ms an episode"
            )
    else:
        print("physics step   : the bridge's timing lines did not all arrive")
    if r.loop:
        what = {
            "publish": "publishing {} batches",
            "gate": "{} spins while the gate held",
            "requests": "{} spins serving requests",
        }
        parts = ", ".join(f"{what[p].format(round(c / n))} {ns / n / 1e6:.1f}" for p, (c, ns) in r.loop.items())
        print(f"bridge loop    : {parts} ms an episode (thread CPU, besides the physics)")
    else:
        print("bridge loop    : the bridge's loop timing lines did not all arrive")
    print(f"graph RSS      : {r.rss_mb:.0f} MB over {r.nodes} node processes   (target <= 1024 MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
