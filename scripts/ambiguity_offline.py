"""Run an agent over the ambiguity suite's items without ROS and print the suite's report lines.

    python scripts/ambiguity_offline.py [--agent reference] [--scenarios FILE] [--limit N] [--symbolic] [--out FILE.jsonl]

Every accepted move runs on a plain PyBullet World as the graph's bridge runs it (about 0.3 s a
move); --symbolic sets the placement table instead (the decisions alone, in seconds).

--agent: reference (the counting resolver), always_execute, always_ask, always:<tool>,
ollama:<model> or openai:<model> (a served model, prompted with the suite's prompt). Prints the
metrics per category with Wilson intervals, then one headline; --out writes one result per line.
Exits 2 with one line on a bad scenario file or agent.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.suites.ambiguity.scenarios import load_ambiguity_scenarios
from alpha_matrix.core.suites.ambiguity.score import report_lines
from alpha_matrix.core.suites.ambiguity.suite import offline_backend, one_line, run_offline, summarize_results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default="reference")
    ap.add_argument(
        "--scenarios", type=Path, default=None, help="default: the package's config/scenarios/ambiguity.yaml"
    )
    ap.add_argument("--limit", type=int, default=0, help="only the first N items (0: all)")
    ap.add_argument("--symbolic", action="store_true", help="moves on the placement table, no physics")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    try:
        suite = load_ambiguity_scenarios(args.scenarios)
        if args.limit > 0:
            suite = replace(suite, items=suite.items[: args.limit])
        backend, prompt_of = offline_backend(args.agent)
        results = run_offline(suite, backend, args.agent, prompt_of, physical=not args.symbolic)
    except AlphaMatrixError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.out:
        args.out.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in results))
    summary = summarize_results(results)
    print("\n".join(report_lines(summary)))
    print()
    print(f"{args.agent}: {one_line(summary)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
