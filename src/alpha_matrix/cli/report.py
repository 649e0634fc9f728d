"""alpha-matrix report: report.md/.html and plots from a run directory's records alone."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import AlphaMatrixError, ConfigError


def cmd_report(args: argparse.Namespace) -> int:
    from alpha_matrix.core.matrix.report import write_report
    from alpha_matrix.core.run_plan import incomplete_line
    from alpha_matrix.core.runs_index import suite_of_run

    run_dir = Path(args.run_dir)
    if not (run_dir / "episodes.jsonl").exists():
        raise AlphaMatrixError(f"{run_dir}: no episodes.jsonl (not a run directory)")
    suite = suite_of_run(run_dir)
    if (incomplete := incomplete_line(run_dir, "episodes" if suite is None else "scenarios")) is not None:
        print(incomplete)  # first, before anything else this command prints
    if suite is not None:  # a safety suite's run: its own report
        from alpha_matrix.console import import_pybullet_quietly

        import_pybullet_quietly()  # a suite's report may load its scenes (a matrix report never does)
        from alpha_matrix.core.suites.report import write_report as write_suite_report

        if args.arms:
            raise ConfigError(f"--arms: {run_dir} is a suite run ({suite}), not a matrix run with arms")
        print(f"report: {write_suite_report(suite, run_dir)} (and report.html, plots/)")
        return 0
    arms = tuple(a.strip() for a in args.arms.split(",")) if args.arms else None
    if arms is not None and len(arms) != 2:
        raise ConfigError("--arms takes exactly two arms, e.g. oracle,oracle-text")
    try:
        path = write_report(run_dir, arms=arms)
    except ValueError as err:
        raise AlphaMatrixError(f"{run_dir}: {err}") from None
    print(f"report: {path} (and report.html, plots/)")
    return 0


def register(sub: Any, _graph_opts: argparse.ArgumentParser) -> None:
    rep = sub.add_parser("report", help="write report.md/.html and plots from a run directory's JSONL alone")
    rep.add_argument("run_dir", help="e.g. runs/<run_id>")
    rep.add_argument(
        "--arms",
        default=None,
        help="the two arms to pair, e.g. oracle,oracle-text (default: every pair of the run's arms)",
    )
    rep.set_defaults(func=cmd_report)
