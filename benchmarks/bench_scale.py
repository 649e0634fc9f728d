"""Benchmark: episodes per second vs the way a run is spread, on this machine, in one run.

The same episodes (oracle vs oracle-text, F1+F2 at 0.5, a fresh temporary directory each) run as
`--workers 1`, `--workers N` (graphs side by side) and `--ray --workers N` (shards as Ray tasks on a
local Ray started by the command: its start-up, task transport and merge included). Prints wall
time, episodes per second, the ratio to one worker, and the merge cost the Ray driver measured.

usage: python benchmarks/bench_scale.py [--indices 10] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

from alpha_matrix.launcher import graph_env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--indices", type=int, default=10, help="episode indices (two arms each)")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    base = ["run", "--arms", "oracle,oracle-text", "--episodes", str(args.indices), "--fault", "F1+F2"]
    base += ["--intensity", "0.5"]
    n = 2 * args.indices
    modes = [
        ("workers 1", ["--workers", "1"]),
        (f"workers {args.workers}", ["--workers", str(args.workers)]),
        (f"ray {args.workers} shards", ["--workers", str(args.workers), "--ray"]),
    ]
    first = None
    env = {**graph_env(), "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("ROS_DOMAIN_ID", None)  # --workers and Ray shards take free domains of the pool
    for name, extra in modes:
        with tempfile.TemporaryDirectory(prefix="bench_scale_") as tmp:
            t0 = time.perf_counter()
            r = subprocess.run(
                [sys.executable, "-m", "alpha_matrix.cli", *base, *extra],
                cwd=tmp,
                env=env,
                capture_output=True,
                text=True,
            )
            wall = time.perf_counter() - t0
        first = first or wall
        merged = re.search(r"merged \d+ shard\(s\) in ([0-9.]+) s", r.stdout + r.stderr)
        extra_text = f"  merge {float(merged[1]):.2f} s" if merged else ""
        status = "ok" if r.returncode == 0 else f"FAILED (exit {r.returncode}): {(r.stderr or r.stdout)[-300:]}"
        print(
            f"{name:<16} {wall:6.1f} s for {n} episodes  {n / wall:5.2f} episodes/s  "
            f"x{first / wall:4.2f} vs one worker{extra_text}  {status}",
            flush=True,
        )
    print(f"machine: {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
