"""Acceptance run of the human-proximity capability over a scenario file (no ROS).

Runs every approach and passer-by at every threshold, pools the metrics per threshold and
overall, and checks the acceptance bar: zero missed breaches, per-frame detection accuracy
>= 99 %, false-stop rate <= 1 %, median distance error <= 0.15 m inside 3 m.
Exit status 0 when the bar is met, 1 otherwise.

usage: python scripts/proximity_acceptance.py [--scenarios FILE] [--jobs N] [--limit N]
       python scripts/proximity_acceptance.py --pair RUN_DIR_A RUN_DIR_B
         (two graph runs of the sorting scenarios, e.g. guard-only and --agent reference: the
         safe-pose transition paired per scenario, core/suites/proximity/transition.pair_transitions)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from dataclasses import asdict
from pathlib import Path

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.proximity.eval import ApproachRun, EvalSettings, run_approach
from alpha_matrix.core.suites.proximity.metrics import RunMetrics, Summary, summarize
from alpha_matrix.core.suites.proximity.scenarios import load_scenarios
from alpha_matrix.core.suites.proximity.transition import pair_transitions

_WORLD: World | None = None


def _work(job: tuple[ApproachRun, EvalSettings]) -> tuple[ApproachRun, RunMetrics]:
    global _WORLD
    if _WORLD is None:
        _WORLD = World()
    run, settings = job
    return run, run_approach(run, settings, _WORLD).metrics


def _line(label: str, s: Summary) -> str:
    return (
        f"{label:>8} runs {s.runs:3d}  acc {100 * s.detection_accuracy:6.2f}% ({s.frames_scored} frames)  "
        f"breaches {s.breaches:3d} missed {s.missed_breaches}  stops {s.stop_requests:3d} false {s.false_stops} "
        f"({100 * s.false_stop_rate:.2f}%)  err med {100 * s.error_median:.1f} cm p95 {100 * s.error_p95:.1f} cm "
        f"bias {100 * s.error_bias:+.1f} cm  stop lat med {s.stop_latency_median:+.2f} s max "
        f"{s.stop_latency_max:+.2f} s  resume lat med {s.resume_latency_median:.2f} s  unresolved "
        f"{s.unresolved_stops}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scenarios", type=Path, default=Path("config/scenarios/proximity.yaml"))
    ap.add_argument("--jobs", type=int, default=max(1, mp.cpu_count()))
    ap.add_argument("--limit", type=int, default=0, help="only the first N runs (smoke test)")
    ap.add_argument("--pair", nargs=2, type=Path, metavar="RUN_DIR", help="pair two sorting runs' transitions")
    args = ap.parse_args()
    if args.pair:
        recs = [
            [json.loads(line)["result"] for line in (d / "episodes.jsonl").read_text().splitlines()] for d in args.pair
        ]
        print("\n".join(pair_transitions(recs[0], recs[1], (args.pair[0].name, args.pair[1].name))))
        return 0
    try:
        scen = load_scenarios(args.scenarios)
    except ConfigError as err:
        print(err, file=sys.stderr)
        return 1
    runs = scen.runs[: args.limit] if args.limit else scen.runs
    t0 = time.perf_counter()
    with mp.get_context("spawn").Pool(args.jobs) as pool:
        results = pool.map(_work, [(r, scen.settings) for r in runs], chunksize=1)
    wall = time.perf_counter() - t0
    for run, m in results:
        if m.missed_breaches or m.false_stops or m.unresolved_stops:
            print(f"  {run.name} @ {run.threshold} m: {asdict(m) | {'errors': len(m.errors)}}")
    for t in scen.thresholds:
        print(_line(f"{t:g} m", summarize([m for r, m in results if r.threshold == t])))
    total = summarize([m for _, m in results])
    print(_line("all", total))
    ok = (
        total.missed_breaches == 0
        and total.detection_accuracy >= 0.99
        and total.false_stop_rate <= 0.01
        and total.error_median <= 0.15
    )
    print(f"acceptance: {'PASS' if ok else 'FAIL'}  ({len(runs)} runs, {wall:.0f} s wall, {args.jobs} jobs)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
