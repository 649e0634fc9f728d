"""Benchmark: wall time of the full paired matrix (oracle vs oracle-text, 150 episodes), 1 and 2 workers.

Each run is the user's command (`alpha-matrix run --arms oracle,oracle-text --matrix`) in a
fresh temporary directory: graph start-up, 150 episodes, recording, and the report included.
Target: at most 2 minutes on this 2-core machine.

usage: python benchmarks/bench_matrix.py [--workers 1 2]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time

from alpha_matrix.launcher import graph_env


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--domain-id", type=int, default=None, help="first ROS domain (default: free ones of the pool)")
    args = ap.parse_args()
    for workers in args.workers:
        with tempfile.TemporaryDirectory(prefix="bench_matrix_") as tmp:
            cmd = [sys.executable, "-m", "alpha_matrix.cli", "run", "--arms", "oracle,oracle-text", "--matrix"]
            cmd += ["--workers", str(workers)]
            cmd += ["--domain-id", str(args.domain_id)] if args.domain_id is not None else []
            t0 = time.perf_counter()
            r = subprocess.run(cmd, cwd=tmp, env=graph_env(), capture_output=True, text=True)
            wall = time.perf_counter() - t0
            summary = next((line for line in reversed(r.stdout.splitlines()) if "success:" in line), "no summary")
            status = "ok" if r.returncode == 0 else f"FAILED (exit {r.returncode})"
            print(
                f"workers {workers}: {wall:6.1f} s for 150 episodes ({wall / 150:.3f} s/episode)  {status}  "
                f"{summary.split('] ')[-1].strip()}   (target <= 120 s)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
