"""Benchmark: the same seeded oracle episodes through the simulated bridge and through a
ros2_control arm (arm_adapter on the simulated standard arm, paced at the wall clock like hardware).

Prints, measured in this one run on the same seeds (master seed 42, episodes 0..N-1):
  per episode  - success, placement error (mm) and wall time (s) on both paths, and the steps the
                 episode took (the real-time path counts /joint_states samples, waiting for the
                 controller's results included)
  summary      - successes k/N, median and max placement error, median wall time per episode,
                 the wall-time ratio adapter / native
  audit        - `alpha-matrix audit` of the adapter run's bag against its records (verdicts from
                 the recorded stream: this path claims no determinism, so no record comparison
                 with the native path beyond the outcome)

Both runs use the default graph (chaos in, no fault), each on its own ROS domain; the standard arm
is started here and stopped at the end.

usage: python benchmarks/bench_driver_paths.py [--episodes N]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from alpha_matrix.core.domains import allocate

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(args: list[str], env: dict[str, str]) -> None:
    proc = subprocess.run([str(BIN / "alpha-matrix"), *args], env=env, cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"alpha-matrix {' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-3000:]}")


def _records(run_dir: Path) -> dict[int, dict]:
    rows = [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines() if line.strip()]
    return {r["episode_index"]: r for r in rows}


def _wait_ready(log: Path, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            sys.exit(f"standard_arm exited {proc.returncode}:\n{log.read_text()[-2000:]}")
        if "ready:" in log.read_text():
            return
        time.sleep(0.2)
    sys.exit("standard_arm not ready within 60 s")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=40)
    args = ap.parse_args()
    leases = allocate(2)
    native_domain, arm_domain = (lease.domain_id for lease in leases)
    base = {**os.environ, "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        common = ["--episodes", str(args.episodes), "--runs-dir", str(t / "runs")]
        bags = ["--set", f"recorder.bags_dir={t / 'bags'}"]
        print(f"native: {args.episodes} episodes through sim_bridge (domain {native_domain}) ...", flush=True)
        t0 = time.perf_counter()
        _run([*bags, "run", *common, "--run-id", "native", "--domain-id", str(native_domain)], base)
        native_s = time.perf_counter() - t0
        log = t / "standard_arm.log"
        arm_env = {**base, "ROS_DOMAIN_ID": str(arm_domain)}
        with log.open("w") as out:
            arm = subprocess.Popen([str(BIN / "standard_arm")], env=arm_env, stdout=out, stderr=subprocess.STDOUT)
        try:
            _wait_ready(log, arm)
            print(
                f"adapter: the same episodes through arm_adapter + standard_arm (domain {arm_domain}) ...", flush=True
            )
            t0 = time.perf_counter()
            _run(
                [*bags, "run", *common, "--driver", "ros2_control", "--run-id", "arm", "--domain-id", str(arm_domain)],
                base,
            )
            arm_s = time.perf_counter() - t0
        finally:
            arm.send_signal(signal.SIGINT)
            arm.wait(timeout=20)
        audit = subprocess.run(
            [str(BIN / "alpha-matrix"), "audit", str(t / "bags" / "arm"), "--run-dir", str(t / "runs" / "arm")],
            cwd=ROOT, capture_output=True, text=True, env=base,
        )  # fmt: skip
        native, adapted = _records(t / "runs" / "native"), _records(t / "runs" / "arm")
    for lease in leases:
        lease.release()

    print(
        f"\n{'episode':>7}  {'native ok':>9} {'err mm':>7} {'wall s':>6} {'steps':>5}   {'adapter ok':>10} {'err mm':>7} {'wall s':>6} {'steps':>5}"
    )
    for i in sorted(native):
        n, a = native[i]["outcome"], adapted[i]["outcome"]
        nw, aw = native[i]["timing"]["wall_s"], adapted[i]["timing"]["wall_s"]
        print(
            f"{i:>7}  {str(n['success']):>9} {n['placement_error'] * 1e3:>7.2f} {nw:>6.2f} {n['steps_used']:>5}   "
            f"{str(a['success']):>10} {a['placement_error'] * 1e3:>7.2f} {aw:>6.2f} {a['steps_used']:>5}"
        )

    def summary(name: str, recs: dict[int, dict], total: float) -> float:
        ok = sum(r["outcome"]["success"] for r in recs.values())
        errs = [r["outcome"]["placement_error"] * 1e3 for r in recs.values()]
        wall = statistics.median(r["timing"]["wall_s"] for r in recs.values())
        print(
            f"{name:>8}: {ok}/{len(recs)} placed; placement error median {statistics.median(errs):.2f} mm, "
            f"max {max(errs):.2f} mm; wall time per episode median {wall:.2f} s; whole run {total:.0f} s"
        )
        return wall

    print()
    wn = summary("native", native, native_s)
    wa = summary("adapter", adapted, arm_s)
    print(f"   ratio: adapter / native wall time per episode {wa / wn:.1f}x (the arm runs at the wall clock)")
    verdict = audit.stdout.strip().splitlines()[-1] if audit.stdout.strip() else audit.stderr.strip()
    print(f"   audit of the adapter bag: {verdict} (exit {audit.returncode})")
    return 0 if audit.returncode == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
