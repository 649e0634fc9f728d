"""Benchmark: the classical gauge reader on the whole shipped set (core, no ROS).

Builds the balanced set of ``config/scenarios/gauge.yaml`` (seed, size), renders every item,
reads it, and prints accuracy on readable items (within 2 % of span), hallucination on
unreadable ones, MAE, the same per degradation, and the reader's time per image (the render is
not counted), and per degradation and per style (face) the k/n counts. Exit status 1 when the acceptance (accuracy >= 90 %, hallucination <= 5 %) fails.

usage: python benchmarks/bench_gauge_reader.py [--items N] [--seed S] [--reader classical|dial]

``--reader dial``: the reader that models the dial from the image (core/suites/gauge/dial.py),
told only each dial's range, unit and direction (no layout), on the set's dial items (a sight
glass is no dial: left out). Its acceptance is the same.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator

import numpy as np

from alpha_matrix.core.suites.gauge.dataset import Item, build_set
from alpha_matrix.core.suites.gauge.dial import DialSpec, read_dial
from alpha_matrix.core.suites.gauge.evaluate import Evaluated, evaluate
from alpha_matrix.core.suites.gauge.faces import FACES
from alpha_matrix.core.suites.gauge.metrics import ANCHORS, by_degradation, meets_acceptance, score
from alpha_matrix.core.suites.gauge.reader import Reading
from alpha_matrix.core.suites.gauge.scenarios import load_gauge_scenarios
from alpha_matrix.core.suites.gauge.scene import GaugeScene


def _pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}"


def _dial_evaluate(scene: GaugeScene, items: list[Item]) -> Iterator[Evaluated]:
    for item in items:
        image = scene.render(item.conditions, item.seed).image
        face = FACES[item.face]
        t0 = time.perf_counter()
        r = read_dial(image, DialSpec(face.lo, face.hi, face.unit, clockwise=True))
        reading = Reading(r.value, r.uncertainty, r.unit, r.reason, r.evidence)
        yield Evaluated(item, reading, (time.perf_counter() - t0) * 1e3)


def _kn_table(title: str, done: list[Evaluated], key: Callable[[Evaluated], str]) -> None:
    """Per group: readable read within 2 % of span (k/n), unreadable given a value (k/n), median ms."""
    groups: dict[str, list[Evaluated]] = {}
    for e in done:
        groups.setdefault(key(e), []).append(e)
    print(f"{title:18} {'within 2 % (k/n)':>17} {'hallucination (k/n)':>20} {'median ms':>10}")
    for name in sorted(groups):
        es = groups[name]
        readable = [e for e in es if e.item.readable]
        ok = sum(
            e.reading.value is not None
            and abs(e.reading.value - e.item.conditions.value) <= 0.02 * FACES[e.item.face].span
            for e in readable
        )
        unreadable = [e for e in es if not e.item.readable]
        hal = sum(e.reading.value is not None for e in unreadable)
        ms = float(np.median([e.read_ms for e in es]))
        print(f"{name:18} {f'{ok}/{len(readable)}':>17} {f'{hal}/{len(unreadable)}':>20} {ms:>10.1f}")


def main() -> int:
    spec = load_gauge_scenarios(None)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=spec.items, help="set size (even)")
    ap.add_argument("--seed", type=int, default=spec.seed, help="set seed")
    ap.add_argument("--reader", choices=("classical", "dial"), default="classical", help="which reader")
    args = ap.parse_args()
    t0 = time.perf_counter()
    with GaugeScene() as scene:
        items = build_set(scene, args.seed, args.items)
        built = time.perf_counter() - t0
        if args.reader == "dial":
            items = [i for i in items if FACES[i.face].kind == "dial"]
            done = list(_dial_evaluate(scene, items))
        else:
            done = list(evaluate(scene, items))
    rows = [e.scored for e in done]
    total = score(rows)
    ms = np.array([e.read_ms for e in done])
    print(
        f"set: {len(items)} items (seed {args.seed}), built in {built:.1f} s; render+read {time.perf_counter() - t0:.1f} s"
    )
    print(f"reader: accuracy {_pct(total.accuracy)} % of {total.readable} readable (within 2 % of span), "
          f"hallucination {_pct(total.hallucination)} % of {total.unreadable} unreadable, "
          f"MAE {total.mae_pct:.2f} % of span")  # fmt: skip
    print(
        f"reader time per image: mean {ms.mean():.1f} ms, median {np.median(ms):.1f} ms, p95 {np.quantile(ms, 0.95):.1f} ms"
    )
    print(f"{'degradation':18} {'accuracy %':>10} {'false abst %':>12} {'halluc. %':>10} {'MAE % span':>10}")
    for name, s in by_degradation(rows).items():
        mae = "   n/a" if s.mae_pct is None else f"{s.mae_pct:6.2f}"
        print(f"{name:18} {_pct(s.accuracy):>10} {_pct(s.false_abstention):>12} {_pct(s.hallucination):>10} {mae:>10}")
    _kn_table("degradation", done, lambda e: e.item.degradation)
    _kn_table("style (face)", done, lambda e: e.item.face)
    print(f"anchors: {ANCHORS}")
    ok = meets_acceptance(total)
    print("acceptance (accuracy >= 90 %, hallucination <= 5 %):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
