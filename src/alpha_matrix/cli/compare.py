"""alpha-matrix compare RUN_A RUN_B: two agents on the same suite scenarios, paired per decision.

Writes RUN_A/compare-<B>.md (McNemar on the paired decisions, Wilson intervals, harms and guard
catches of each), the same as a page in compare-<B>.html, and prints it. Both must be suite runs of an agent under test on the same
scenarios and seeds (e.g. ``--agent reference`` and ``--agent llm:llama3.1`` on one scenario file),
of any suite. A matrix run is refused in one line: its arms are paired in ``report --arms``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import ConfigError


def _records(run_dir: Path) -> list[Any]:
    from alpha_matrix.core.runs_index import suite_of_run
    from alpha_matrix.core.suites.records import SuiteStore

    if not (run_dir / "episodes.jsonl").is_file():
        raise ConfigError(f"{run_dir}: no episodes.jsonl (not a run directory)")
    if suite_of_run(run_dir) is None and (arms := _matrix_arms(run_dir)) is not None:
        how = (
            f"its arms are paired by seed in its report: alpha-matrix report {run_dir} --arms {','.join(arms[:2])}"
            if len(arms) >= 2
            else f"it has one arm ({', '.join(arms) or 'none'}), nothing to pair: alpha-matrix report {run_dir}"
        )
        raise ConfigError(f"{run_dir} is a matrix run, and compare pairs two agents' suite runs: {how}")
    return list(SuiteStore.read_only(run_dir))


def _matrix_arms(run_dir: Path) -> list[str] | None:
    """The arms of a matrix run (in order of first record), or None when it is not one."""
    from alpha_matrix.core.errors import RecordError
    from alpha_matrix.core.records import RunStore

    try:
        records = RunStore.read_only(run_dir)
    except RecordError:
        return None
    return list(dict.fromkeys(r.arm for r in records.values()))


def cmd_compare(args: argparse.Namespace) -> int:
    from alpha_matrix.core.pages.blocks import write_atomic
    from alpha_matrix.core.suites.compare import arm_of, compare, comparison_lines, same_suite
    from alpha_matrix.core.suites.report import markdown_page

    a_dir, b_dir = Path(args.run_a), Path(args.run_b)
    a_recs, b_recs = _records(a_dir), _records(b_dir)
    same_suite(a_dir.name, a_recs, b_dir.name, b_recs)
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
