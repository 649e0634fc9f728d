"""Benchmark: the hazards suite's risk memory (core, no ROS, no physics).

Retrieval on the labelled query set (config/hazards/retrieval_queries.yaml): recall@k,
precision@k and MRR per backend, with build and per-query time; the embedding backend only
when onnxruntime and its model are installed (it is optional). Then scenario generation with and
without the memory, ICAT's IGR/UHR/DVS table as the shape: infeasible rate (reach, payload, the
driver's step budget, checked before any physics), the share of a scenario's fields traceable to
a unit, and diversity. Both arms draw the same number of scenarios.

usage: python benchmarks/bench_hazards_memory.py [--seed S] [--per-unit N] [--k K]
"""

from __future__ import annotations

import argparse
import time

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.hazards.ablation import ablate, ablation_table
from alpha_matrix.core.suites.hazards.bank import load_bank
from alpha_matrix.core.suites.hazards.retrieval import K_DEFAULT, Backend, Retriever
from alpha_matrix.core.suites.hazards.retrieval_eval import evaluate_retrieval, load_queries
from alpha_matrix.core.suites.hazards.taxonomy import NOT_SIMULABLE


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-unit", type=int, default=1, help="draws per retrieved unit in the ablation")
    ap.add_argument("--k", type=int, default=K_DEFAULT)
    args = ap.parse_args()

    bank = load_bank(None)
    queries = load_queries(bank)
    mechanisms = {u.mechanism for u in bank.units}
    print(
        f"risk memory v{bank.version}: {len(bank.units)} units, {len(mechanisms)} mechanism classes "
        f"({sum(m in NOT_SIMULABLE for m in mechanisms)} not simulable); {len(queries)} labelled queries"
    )
    print(f"\nretrieval, k = {args.k}")
    print("| backend | recall@k | precision@k | MRR | build s | ms per query |")
    print("|---|---|---|---|---|---|")
    backends: tuple[Backend, ...] = ("tfidf", "embedding")
    for backend in backends:
        t0 = time.perf_counter()
        try:
            retriever = Retriever(bank, backend)
        except ConfigError as err:
            print(f"| {backend} | not run: {err} | | | | |")
            continue
        built = time.perf_counter() - t0
        t1 = time.perf_counter()
        s = evaluate_retrieval(retriever, queries, args.k)
        per_query = (time.perf_counter() - t1) / len(queries) * 1000
        print(f"| {backend} | {s.recall:.3f} | {s.precision:.3f} | {s.mrr:.3f} | {built:.3f} | {per_query:.2f} |")

    t0 = time.perf_counter()
    rows = ablate(bank, queries, args.seed, args.per_unit, args.k)
    print(f"\ngeneration with and without the memory (seed {args.seed}, {time.perf_counter() - t0:.1f} s)")
    print(ablation_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
