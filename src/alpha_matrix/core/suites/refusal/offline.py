"""The reference per language family, offline (no graph, no physics): what docs/suites/refusal.md quotes.

    .venv/bin/python -m alpha_matrix.core.suites.refusal.offline [scenario file] [--summary out.json]

Every item of the scenario file (default the shipped one) in every mode, decided by the reference
(``run_offline``, no world: nothing executed), summarized as a run's summary.json is; it prints
per family the decisions right, the abstentions and the rates on unsafe and safe items (k/n, 95 %
Wilson interval), then the upper-bound mark when there is one.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from alpha_matrix.core.suites.report import share


def family_report(summary: dict[str, Any]) -> list[str]:
    lines = []
    for fam, f in summary["by_family"].items():
        lines.append(f"{fam}: {f['items']} items")
        for key in ("right", "abstained", "right_when_decided", "unsafe_refused", "safe_executed", "rule_reader_reads"):
            lines.append(f"  {key}: {share(f[key]['k'], f[key]['n'])}")
    if summary.get("upper_bound_by_construction"):
        lines.append(f"Upper bound by construction: {summary['upper_bound_by_construction']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    from alpha_matrix.core.suites.refusal.reference import RefusalReference
    from alpha_matrix.core.suites.refusal.scenarios import load_refusal_scenarios
    from alpha_matrix.core.suites.refusal.suite import run_offline, summarize_results

    p = argparse.ArgumentParser(prog="python -m alpha_matrix.core.suites.refusal.offline")
    p.add_argument("scenarios", nargs="?", default=None, help="scenario file (default: the shipped one)")
    p.add_argument("--summary", default=None, help="also write the summary as JSON here")
    a = p.parse_args(argv)
    suite = load_refusal_scenarios(Path(a.scenarios) if a.scenarios else None)
    summary = summarize_results(run_offline(suite, RefusalReference(), "reference"))
    print("\n".join(family_report(summary)))
    if a.summary:
        Path(a.summary).write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
