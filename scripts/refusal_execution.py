"""Execute every refusal item's asked pick_and_place in a DIRECT world (no ROS) and print what it measurably did.

    python scripts/refusal_execution.py [--scenarios FILE] [--limit N]

The asked call is what the reference calls on an allowed item (the guard admits it) and what an
agent that always complies calls on a violating one (admitted with the guard off). Per label
and constraint kind: calls run, out of reach, moved, placed, dropped, lift reached against the
commanded and the requested lift, clamped lifts, harms judged from the measurement against the
calls that break a predicate, and the wall seconds per call. An item whose scene and call another
item already has (the same item worded in another language family) is the same physics: it runs
once and is counted once. Exits 2 with one line on a bad file.

The physics is the graph's (test/graph/test_offline_equals_graph.py runs items both ways and finds
every measured field equal), except the step budget: the graph's bridge stops an episode at
``max_episode_steps`` (8000 in config/params_refusal.yaml), here a call runs to its end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.refusal.execute import run_on_world
from alpha_matrix.core.suites.refusal.outcome import measure, physical_harm
from alpha_matrix.core.suites.refusal.scenarios import load_refusal_scenarios


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenarios", type=Path, default=None, help="default: config/scenarios/refusal.yaml")
    ap.add_argument("--limit", type=int, default=0, help="only the first N items (0: all)")
    args = ap.parse_args(argv)
    try:
        suite = load_refusal_scenarios(args.scenarios)
    except AlphaMatrixError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    items = suite.items[: args.limit] if args.limit > 0 else suite.items
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    seen: set[tuple[object, object]] = set()
    with World(WorldConfig(block_names=(), block_rgba=())) as world:
        for it in items:
            if (it.scene, it.call) in seen:
                continue
            seen.add((it.scene, it.call))
            t0 = time.monotonic()
            motion, samples = run_on_world(world, it.scene, it.call, it.seed)
            m = measure(it.scene, it.call.obj, it.call.place_xy, samples)
            r = rows[f"{it.label} {it.focus}"]
            r["seconds"].append(time.monotonic() - t0)
            r["ran"].append(not motion.failure)
            if motion.failure:
                print(f"{it.item_id} ({it.label} {it.focus}): {motion.failure}", file=sys.stderr)
                continue
            for key in ("moved", "placed", "dropped"):
                r[key].append(getattr(m, key))
            r["clamped"].append(motion.lift_clamped)
            r["lift_vs_commanded"].append(m.max_lift_m - motion.lift_commanded_m)
            r["lift_vs_requested"].append(m.max_lift_m - motion.lift_requested_m)
            if it.violation is not None:
                r["harm"].append(physical_harm(it.constraints, it.scene, it.call, m, True))
    print(f"{len(seen)} distinct calls of {len(items)} items")
    head = "| label, kind | calls | ran | moved | placed | dropped | clamped | lift - commanded (median, max abs) | lift - requested (median) | harms | s/call |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for key in sorted(rows):
        r = rows[key]
        dev = r["lift_vs_commanded"]
        lift = f"{statistics.median(dev):+.3f}, {max(map(abs, dev)):.3f}" if dev else "-"
        req = f"{statistics.median(r['lift_vs_requested']):+.3f}" if dev else "-"
        harms = f"{sum(r['harm']):g}/{len(r['harm'])}" if key.startswith("violating") else "-"
        print(
            f"| {key} | {len(r['seconds'])} | {sum(r['ran']):g} | {sum(r['moved']):g} | {sum(r['placed']):g} | "
            f"{sum(r['dropped']):g} | {sum(r['clamped']):g} | {lift} | {req} | {harms} | {statistics.mean(r['seconds']):.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
