"""Benchmark: the classical gauge reader on the whole shipped set (core, no ROS).

Builds the balanced set of ``config/scenarios/gauge.yaml`` (seed, size), renders every item,
reads it, and prints accuracy on readable items (within 2 % of span), hallucination on
unreadable ones, MAE, the same per degradation, and the reader's time per image (the render is
not counted), and per degradation and per style (face) the k/n counts. Exit status 1 when the acceptance (accuracy >= 95 %, hallucination <= 1 %, overall and per degradation and per style: ``metrics.ACCURACY_MIN``, ``HALLUCINATION_MAX``) fails.

usage: python benchmarks/bench_gauge_reader.py [--items N] [--seed S] [--reader classical|dial] [--family suite|b]
       [--scenarios PATH]

``--reader dial``: the reader that models the dial from the image (core/suites/gauge/dial/read.py),
told only each dial's range, unit and direction (no layout), on the set's dial items (a sight
glass is no dial: left out). Its acceptance is the same.

``--family b --reader dial``: the same reader on the second, independently drawn gauge family
(core/suites/gauge/family_b.py, ``build_family_b(seed, items)``), to show it is not tuned to the
suite's one drawing routine. Its acceptance is the same.

``--scenarios PATH --reader dial``: the set of another gauge scenario file (its seed, size and
``faces``), e.g. ``config/scenarios/gauge_styles.yaml``, the suite's styled dials (light on dark,
180-300° sweeps, other ranges and units, drag pointers, plates, stickers); ``--items``/``--seed``
override the file's.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import numpy as np

from alpha_matrix.core.suites.gauge.dataset import Item, build_set
from alpha_matrix.core.suites.gauge.dial import DialSpec, read_dial
from alpha_matrix.core.suites.gauge.evaluate import Evaluated, evaluate
from alpha_matrix.core.suites.gauge.faces import FACES
from alpha_matrix.core.suites.gauge.family_b import FamilyBItem, build_family_b
from alpha_matrix.core.suites.gauge.metrics import (
    ANCHORS,
    Score,
    Scored,
    acceptance_misses,
    acceptance_text,
    by_degradation,
    meets_acceptance,
    score,
)
from alpha_matrix.core.suites.gauge.reader import Reading
from alpha_matrix.core.suites.gauge.run import dial_spec
from alpha_matrix.core.suites.gauge.scenarios import load_gauge_scenarios
from alpha_matrix.core.suites.gauge.scene import GaugeScene


def _pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}"


def _dial_evaluate(scene: GaugeScene, items: list[Item]) -> Iterator[Evaluated]:
    for item in items:
        image = scene.render(item.conditions, item.seed).image
        face = FACES[item.face]
        t0 = time.perf_counter()
        r = read_dial(image, dial_spec(face))  # what the suite's reader is told: range, unit, direction, drag
        reading = Reading(r.value, r.uncertainty, r.unit, r.reason, r.evidence)
        yield Evaluated(item, reading, (time.perf_counter() - t0) * 1e3)


def _off_line(rows: Iterable[Scored]) -> str:
    """The readable items given a value more than 2 % of span off (a wrong value, worse than an
    abstention), with their errors."""
    off = [100.0 * (r.value - r.truth) / r.span for r in rows if r.readable and r.value is not None and not r.accurate]
    errs = f" ({', '.join(f'{e:+.1f}' for e in off)} % of span)" if off else ""
    return f"readable given a value more than 2 % of span off: {len(off)}{errs}"


def _table(title: str, rows: list[tuple[str, Scored, float]]) -> None:
    """Per group: readable read within 2 % of span (k/n), unreadable given a value (k/n), median ms."""
    groups: dict[str, list[tuple[Scored, float]]] = {}
    for name, s, ms in rows:
        groups.setdefault(name, []).append((s, ms))
    print(f"{title:18} {'within 2 % (k/n)':>17} {'hallucination (k/n)':>20} {'median ms':>10}")
    for name in sorted(groups):
        ss = [s for s, _ in groups[name]]
        ok, n_rd = sum(s.accurate for s in ss), sum(s.readable for s in ss)
        hal, n_un = sum(s.hallucinated for s in ss), sum(not s.readable for s in ss)
        ms = float(np.median([m for _, m in groups[name]]))
        print(f"{name:18} {f'{ok}/{n_rd}':>17} {f'{hal}/{n_un}':>20} {ms:>10.1f}")


def _main_family_b(seed: int, count: int) -> int:
    t0 = time.perf_counter()
    items: list[FamilyBItem] = build_family_b(seed, count)
    built = time.perf_counter() - t0
    done: list[tuple[FamilyBItem, Scored, float]] = []
    for it in items:
        t1 = time.perf_counter()
        r = read_dial(it.image, DialSpec(it.lo, it.hi, it.unit, clockwise=it.clockwise, drag_pointer=it.drag))
        ms = (time.perf_counter() - t1) * 1e3
        done.append((it, Scored(it.degradation, it.readable, it.value, it.hi - it.lo, r.value), ms))
    total = score(s for _, s, _ in done)
    ms_all = np.array([m for _, _, m in done])
    print(f"set: family b, {len(items)} items (seed {seed}), built in {built:.1f} s")
    print(f"reader (dial): accuracy {_pct(total.accuracy)} % of {total.readable} readable (within 2 % of span), "
          f"hallucination {_pct(total.hallucination)} % of {total.unreadable} unreadable, "
          f"MAE {'n/a' if total.mae_pct is None else f'{total.mae_pct:.2f}'} % of span")  # fmt: skip
    print(
        f"reader time per image: mean {ms_all.mean():.1f} ms, median {np.median(ms_all):.1f} ms, "
        f"p95 {np.quantile(ms_all, 0.95):.1f} ms"
    )
    print(_off_line(s for _, s, _ in done))
    by_deg = [(it.degradation, s, m) for it, s, m in done]
    by_style = [(it.style, s, m) for it, s, m in done]
    _table("degradation", by_deg)
    _table("style", by_style)
    return _acceptance(total, by_deg, by_style)


def _acceptance(
    total: Score, by_deg: list[tuple[str, Scored, float]], by_style: list[tuple[str, Scored, float]]
) -> int:
    """The acceptance, overall and per degradation and per style; exit status 1 when missed."""
    misses = [
        f"{title} {name}"
        for title, rows in (("degradation", by_deg), ("style", by_style))
        for name in acceptance_misses(_groups(rows))
    ]
    ok = meets_acceptance(total) and not misses
    print(f"acceptance ({acceptance_text()}, overall and per degradation and per style):", "met" if ok else "NOT met")
    if misses:
        print("  missed by:", ", ".join(misses))
    return 0 if ok else 1


def _groups(rows: list[tuple[str, Scored, float]]) -> dict[str, Score]:
    groups: dict[str, list[Scored]] = {}
    for name, s, _ in rows:
        groups.setdefault(name, []).append(s)
    return {k: score(v) for k, v in sorted(groups.items())}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--items", type=int, default=None, help="set size (even; default: the scenario file's)")
    ap.add_argument("--seed", type=int, default=None, help="set seed (default: the scenario file's)")
    ap.add_argument("--reader", choices=("classical", "dial"), default="classical", help="which reader")
    ap.add_argument("--family", choices=("suite", "b"), default="suite", help="the suite's set or family b")
    ap.add_argument("--scenarios", type=Path, default=None, help="a gauge scenario file (default: the shipped set's)")
    args = ap.parse_args()
    spec = load_gauge_scenarios(args.scenarios)
    if spec.images_dir is not None:
        ap.error("--scenarios: a file of user images is run with alpha-matrix suite gauge --images")
    args.items = spec.items if args.items is None else args.items
    args.seed = spec.seed if args.seed is None else args.seed
    faces = spec.faces
    if faces is not None and args.reader == "classical" and any(FACES[f].reader == "dial" for f in faces):
        ap.error("--scenarios: the styled faces are read with --reader dial (the classical reader needs a layout)")
    if args.family == "b":
        if args.reader != "dial":
            ap.error("--family b is read with --reader dial")
        return _main_family_b(args.seed, args.items)
    t0 = time.perf_counter()
    with GaugeScene() as scene:
        items = build_set(scene, args.seed, args.items, faces)
        built = time.perf_counter() - t0
        if args.reader == "dial":
            items = [i for i in items if FACES[i.face].kind == "dial"]
            done = list(_dial_evaluate(scene, items))
        else:
            done = list(evaluate(scene, items))
    rows = [e.scored for e in done]
    total = score(rows)
    ms = np.array([e.read_ms for e in done])
    where = "" if args.scenarios is None else f"{args.scenarios}, "
    print(
        f"set: {where}{len(items)} items (seed {args.seed}), built in {built:.1f} s; "
        f"render+read {time.perf_counter() - t0:.1f} s"
    )
    print(f"reader: accuracy {_pct(total.accuracy)} % of {total.readable} readable (within 2 % of span), "
          f"hallucination {_pct(total.hallucination)} % of {total.unreadable} unreadable, "
          f"MAE {'n/a' if total.mae_pct is None else f'{total.mae_pct:.2f}'} % of span")  # fmt: skip
    print(_off_line(rows))
    print(
        f"reader time per image: mean {ms.mean():.1f} ms, median {np.median(ms):.1f} ms, p95 {np.quantile(ms, 0.95):.1f} ms"
    )
    print(f"{'degradation':18} {'accuracy %':>10} {'false abst %':>12} {'halluc. %':>10} {'MAE % span':>10}")
    for name, s in by_degradation(rows).items():
        mae = "   n/a" if s.mae_pct is None else f"{s.mae_pct:6.2f}"
        print(f"{name:18} {_pct(s.accuracy):>10} {_pct(s.false_abstention):>12} {_pct(s.hallucination):>10} {mae:>10}")
    by_deg = [(e.item.degradation, e.scored, e.read_ms) for e in done]
    by_face = [(e.item.face, e.scored, e.read_ms) for e in done]
    _table("degradation", by_deg)
    _table("style (face)", by_face)
    print(f"anchors: {ANCHORS}")
    return _acceptance(total, by_deg, by_face)


if __name__ == "__main__":
    raise SystemExit(main())
