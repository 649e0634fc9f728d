"""Stress: native crashes (SIGSEGV, SIGBUS, SIGABRT) of node processes starting and stopping at once.

CI saw a node die with SIGSEGV about once in 20 000 node starts, at start-up and at a stop.
faulthandler printed the main thread as "Thread" rather than "Current thread": the fault was in
a native thread. benchmarks/shm_port_crash.py shows the likely one: a Fast DDS receive thread
opening a peer's damaged shared-memory port during discovery. This script counts such crashes
per N starts for one configuration, so a mitigation can be measured against the same N.

Each round starts ``--nodes`` node processes on one ROS domain, each built the way our nodes are
(``ros/lifecycle.run_node``: faulthandler, stop handlers, type-support preload unless
``--no-preload``, rclpy.init, a node with publishers, subscriptions, clients and a service of
alpha_matrix_interfaces), waits until they are up, holds them a random moment, then stops them
with SIGINT, or SIGKILL for ``--kill`` of them (a fault test, the launcher's escalation), leaving
Fast DDS shared-memory files behind. ``--early-kill`` SIGKILLs nodes while they start;
``--freeze`` stops a starting node for ``--freeze-s`` seconds (SIGSTOP, SIGCONT), as a loaded
2-core machine can deschedule it; ``--clean`` removes stale shared-memory files before each round,
as the launcher does; ``--load`` busy processes compete for the CPU. Core files go to
``--out``/round-k (core_pattern "core" writes to the process's cwd; RLIMIT_CORE is raised for the
children), with gdb backtraces of all threads next to them. Note: Fast DDS's shared-memory ports
are not per domain (each participant also listens on a port from one 7000+ pool), so a stress
run can disturb graphs of other domains on the machine.

usage: python benchmarks/stress_node_starts.py --minutes 30 --domain 77 --out /tmp/stress [--nodes 6]
       [--load 2] [--kill 0.2] [--early-kill 0.1] [--freeze 0.2] [--clean] [--no-preload] [--env K=V ...]
Prints one line per crash, progress every 50 rounds, and a summary (JSON): starts, nodes that came
up, crashes by signal, cores. Exit 1 when a node crashed. Not part of make test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

CRASH_SIGNALS = {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGILL, signal.SIGFPE}
GDB = "/usr/bin/gdb"
UP = "stress: node up"


def child(index: int, preload: bool) -> int:
    """One node, started and stopped the way ours are (run_node), with our interfaces."""
    from alpha_matrix.ros import lifecycle

    if not preload:  # as before run_node preloaded: rclpy imports lark etc. inside Node()
        lifecycle.preload_type_support = lambda: None  # type: ignore[assignment]
    from alpha_matrix_interfaces.msg import CommandStatus, PlanExecution, PlanRequest
    from alpha_matrix_interfaces.srv import Gripper, MoveTo
    from rclpy.node import Node

    from alpha_matrix.ros.qos import EVENTS

    def build() -> Node:
        node = Node(f"stress_{index}")
        node.create_client(MoveTo, "robot/move_to")
        node.create_client(Gripper, "robot/gripper")
        node.create_service(MoveTo, f"stress_{index}/move_to", lambda _req, res: res)
        node.create_subscription(CommandStatus, "robot/command_status", lambda _m: None, EVENTS)
        node.create_subscription(PlanRequest, "executive/request", lambda _m: None, EVENTS)
        pub = node.create_publisher(PlanExecution, "executive/result", EVENTS)
        node.create_timer(0.05, lambda: pub.publish(PlanExecution()))
        return node

    def built() -> Node:
        node = build()
        print(UP, flush=True)  # the participant exists and discovery runs: the start counts
        return node

    return lifecycle.run_node(built, args=[])


def _child_setup() -> None:
    """Core files allowed; SIGINT at its default (a shell's background job inherits it ignored)."""
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _kill_later(p: subprocess.Popen[bytes], delay: float) -> None:
    time.sleep(delay)
    p.kill()


def _up(log: Path) -> bool:
    try:
        return UP in log.read_text(errors="replace")
    except OSError:
        return False


def _busy() -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=os.setpgrp)


def _freeze(p: subprocess.Popen[bytes], delay: float, seconds: float) -> None:
    """Deschedule a starting node for ``seconds``, as a loaded machine can (SIGSTOP, then SIGCONT)."""
    time.sleep(delay)
    try:
        p.send_signal(signal.SIGSTOP)
        time.sleep(seconds)
        p.send_signal(signal.SIGCONT)
    except ProcessLookupError:
        pass


def _backtrace(core: Path, out: Path) -> None:
    if not Path(GDB).exists():
        return
    cmd = [GDB, "-batch", "-ex", "info threads", "-ex", "thread apply all bt", sys.executable, str(core)]
    with open(out, "w") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=300, check=False)


def run_round(k: int, args: argparse.Namespace, env: dict[str, str], rng: random.Random) -> tuple[int, list[dict]]:
    """Start the round's nodes, wait until they are up, hold, stop them: how many came up, the crashed ones."""
    cwd = args.out / f"round-{k}"
    cwd.mkdir(parents=True, exist_ok=True)
    if args.clean:
        from alpha_matrix.ros.shm import clean_stale_shm

        clean_stale_shm()
    cmd = [sys.executable, os.path.abspath(__file__), "--child"] + (["--no-preload"] if args.no_preload else [])
    procs = []
    for i in range(args.nodes):
        log = open(cwd / f"node-{i}.log", "wb")  # noqa: SIM115 - closed after the round
        p = subprocess.Popen(
            [*cmd, "--index", str(i)], cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
            preexec_fn=_child_setup,
        )  # fmt: skip
        procs.append((p, log))
        if rng.random() < args.freeze:  # descheduled at a random moment of its start-up
            threading.Thread(target=_freeze, args=(p, rng.uniform(0.0, 2.0), args.freeze_s), daemon=True).start()
        elif rng.random() < args.early_kill:  # killed while starting: half-built DDS files left
            threading.Thread(target=_kill_later, args=(p, rng.uniform(0.2, 3.0)), daemon=True).start()
        time.sleep(rng.uniform(0, args.stagger))
    logs = [cwd / f"node-{i}.log" for i in range(args.nodes)]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not all(
        _up(f) or p.poll() is not None for f, (p, _) in zip(logs, procs, strict=True)
    ):
        time.sleep(0.05)
    time.sleep(rng.uniform(args.hold[0], args.hold[1]))  # discovery and traffic under way
    for p, _ in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL if rng.random() < args.kill else signal.SIGINT)
        time.sleep(rng.uniform(0, args.stagger))
    deadline = time.monotonic() + 15
    for p, _ in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    up = sum(_up(f) for f in logs)
    crashes = []
    for i, (p, log) in enumerate(procs):
        log.close()
        if p.returncode < 0 and signal.Signals(-p.returncode) in CRASH_SIGNALS:
            cores = sorted(cwd.glob("core*"))
            crash = {"round": k, "node": i, "signal": signal.Signals(-p.returncode).name, "dir": str(cwd)}
            crash["cores"] = [str(c) for c in cores if not c.name.endswith(".txt")]
            for core in crash["cores"]:
                _backtrace(Path(core), Path(core + ".bt.txt"))
            crashes.append(crash)
    if not crashes:
        shutil.rmtree(cwd)
    return up, crashes


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--nodes", type=int, default=6, help="node processes started at once per round")
    ap.add_argument("--domain", type=int, default=77, help="ROS_DOMAIN_ID, 60-99 (nothing else of ours there)")
    ap.add_argument("--out", type=Path, default=Path("/tmp/stress-node-starts"))
    ap.add_argument("--load", type=int, default=2, help="busy processes competing for the CPU")
    ap.add_argument("--kill", type=float, default=0.2, help="fraction of nodes stopped by SIGKILL, not SIGINT")
    ap.add_argument("--early-kill", type=float, default=0.0, help="fraction of nodes SIGKILLed while starting")
    ap.add_argument("--hold", type=float, nargs=2, default=(0.0, 2.0), help="seconds up before the stop, min max")
    ap.add_argument("--stagger", type=float, default=0.2, help="max seconds between two starts or stops")
    ap.add_argument("--freeze", type=float, default=0.0, help="fraction of nodes frozen once while starting")
    ap.add_argument("--freeze-s", type=float, default=2.5, help="how long a frozen node stays stopped")
    ap.add_argument("--clean", action="store_true", help="remove stale Fast DDS shm files each round")
    ap.add_argument("--no-preload", action="store_true", help="skip run_node's type-support preload (the old start)")
    ap.add_argument("--env", action="append", default=[], help="KEY=VALUE for the nodes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--minutes", type=float, default=60.0, help="stop starting rounds after this long")
    args = ap.parse_args()
    if args.child:
        return child(args.index, not args.no_preload)
    env = dict(os.environ, ROS_DOMAIN_ID=str(args.domain), ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST")
    env.update(kv.split("=", 1) for kv in args.env)
    rng = random.Random(args.seed)
    busy = [_busy() for _ in range(args.load)]
    crashes: list[dict] = []
    t0 = time.monotonic()
    rounds = up = 0
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stop.set())  # finish the round, then the summary
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        for k in range(args.rounds):
            if stop.is_set() or time.monotonic() - t0 > args.minutes * 60:
                break
            came_up, found = run_round(k, args, env, rng)
            rounds += 1
            up += came_up
            for c in found:
                print("crash:", json.dumps(c), flush=True)
            crashes += found
            if rounds % 50 == 0:
                print(f"round {rounds}: {rounds * args.nodes} starts, {up} up, {len(crashes)} crashes", flush=True)
    finally:
        for b in busy:
            b.kill()
            b.wait()
    by_signal: dict[str, int] = {}
    for c in crashes:
        by_signal[c["signal"]] = by_signal.get(c["signal"], 0) + 1
    summary = {
        "starts": rounds * args.nodes, "up": up, "rounds": rounds, "crashes": len(crashes), "by_signal": by_signal,
        "cores": sum(len(c["cores"]) for c in crashes), "seconds": round(time.monotonic() - t0),
        "config": {"nodes": args.nodes, "load": args.load, "kill": args.kill, "early_kill": args.early_kill, "freeze": args.freeze, "clean": args.clean,
                   "preload": not args.no_preload, "env": args.env},
    }  # fmt: skip
    print("summary:", json.dumps(summary), flush=True)
    return 1 if crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
