"""alpha-matrix compare RUN_A RUN_B: two agents on the same suite scenarios, paired per decision.

Writes RUN_A/compare-<B>.md (McNemar on the paired decisions, Wilson intervals, harms and guard
catches of each), the same as a page in compare-<B>.html, and prints it. Both must be suite runs of an agent under test on the same
scenarios and seeds (e.g. ``--agent reference`` and ``--agent llm:llama3.1`` on one scenario file).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import ConfigError


def _records(run_dir: Path) -> list[Any]:
    from alpha_matrix.core.suites.records import SuiteStore

    if not (run_dir / "episodes.jsonl").is_file():
        raise ConfigError(f"{run_dir}: no episodes.jsonl (not a run directory)")
    return list(SuiteStore.read_only(run_dir))


def cmd_compare(args: argparse.Namespace) -> int:
    from alpha_matrix.core.pages.blocks import write_atomic
    from alpha_matrix.core.suites.compare import arm_of, compare, comparison_lines
    from alpha_matrix.core.suites.report import markdown_page

    a_dir, b_dir = Path(args.run_a), Path(args.run_b)
    a_recs, b_recs = _records(a_dir), _records(b_dir)
    c = compare(arm_of(a_dir.name, a_recs), arm_of(b_dir.name, b_recs), a_recs, b_recs)
    text = "\n".join(comparison_lines(c)) + "\n"
    out = a_dir / f"compare-{b_dir.name}.md"
    write_atomic(out, text)
    write_atomic(out.with_suffix(".html"), markdown_page(text))
    print(text, end="")
    print(f"written: {out} (and {out.with_suffix('.html').name})")
    return 0


def register(sub: Any, _graph_opts: argparse.ArgumentParser) -> None:
    p = sub.add_parser("compare", help="pair two agents' suite runs decision by decision (McNemar, Wilson)")
    p.add_argument("run_a", help="runs/<run_id> of one agent")
    p.add_argument("run_b", help="runs/<run_id> of another, same scenarios and seeds")
    p.set_defaults(func=cmd_compare)
