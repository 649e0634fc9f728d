"""alpha-matrix audit | calibrate: replay a bag through the core and compare every verdict; a
contact threshold from nominal bags. Exit 0 all match, 1 a finding, 2 a user error.

An audit against a run's records also appends its outcome to that run's audits.jsonl
(core/audit_log.py), which ``alpha-matrix runs`` shows; --no-records compares nothing and
records nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import AlphaMatrixError, ConfigError, RecordError


def _audit_run_dir(args: argparse.Namespace, bag: Path, bags: list[Path]) -> tuple[Path | None, list[str]]:
    """The run directory to compare with, and notes on how it was found."""
    from alpha_matrix.core.bag import RUN_ID_KEY, bag_custom_data

    if args.no_records:
        if args.run_dir:
            raise ConfigError("--run-dir and --no-records contradict each other")
        return None, []
    if args.run_dir:
        run_dir = Path(args.run_dir)
        if not run_dir.is_dir():
            raise AlphaMatrixError(f"{run_dir}: no such run directory (--run-dir)")
        return run_dir, []
    ids = {bag_custom_data(b).get(RUN_ID_KEY) for b in bags}
    notes = []
    if None in ids:  # a bag recorded before the recorder wrote its run id: guess from the folder
        ids.discard(None)
        worker = len(bags) == 1 and bag.name.startswith("worker-") and bag == bags[0]
        guess = bag.parent.name if worker else bag.name
        notes.append(f"note: the bag's metadata names no run id; guessed {guess!r} from its folder name")
        ids.add(guess)
    if len(ids) != 1:
        raise AlphaMatrixError(f"{bag}: bags of different runs ({', '.join(sorted(ids))}); audit them one by one")
    from alpha_matrix.core.names import check_run_id

    # The id is data read from the bag: a name under --runs-dir, never a path of its own.
    run_dir = Path(args.runs_dir) / check_run_id(ids.pop(), f"{bag}: the run id in its metadata")
    if not run_dir.is_dir():
        raise AlphaMatrixError(f"{run_dir}: no run directory for this bag (use --run-dir, --runs-dir, or --no-records)")
    return run_dir, notes


def _audit_header(bags: list[Path], bad: list[Any], run_dir: Path | None) -> str:
    from alpha_matrix.core.bag import bag_splits

    parts = []
    for b in bags:
        listed = bag_splits(b)
        n_bad = sum(1 for x in bad if x.path.parent == b)
        read = f"{len(listed) - n_bad} of {len(listed)} splits read" if n_bad else f"{len(listed)} splits read"
        parts.append(f"{b} ({read})")
    against = f"compared with records in {run_dir}" if run_dir is not None else "records not compared (--no-records)"
    return f"audit: {', '.join(parts)}; {against}"


def _audit_footer(bags: list[Path], bad: list[Any], notes: list[str]) -> None:
    from alpha_matrix.core.bag import unlisted_splits

    for line in notes:
        print(line)
    for b in bags:
        for split in unlisted_splits(b):
            print(f"note: {split.name} was being written when its recorder stopped; it is not part of the bag")
    for x in bad:
        print(str(x))


def _record(bag: Path, bags: list[Path], run_dir: Path | None, kind: str, **counts: Any) -> None:
    """Append the outcome to the run's audits.jsonl; a failure to write is a warning (the
    audit's result is already printed, and its exit code stands)."""
    from alpha_matrix.core.audit_log import AuditEntry, append_audit, now_utc, verdict
    from alpha_matrix.core.bag import bag_splits

    if run_dir is None:
        return
    counts.setdefault("verdict", verdict(counts["mismatches"], counts.get("unreadable_splits", 0)))
    entry = AuditEntry(
        time=now_utc(), bag=str(bag.resolve()), kind=kind, splits=sum(len(bag_splits(b)) for b in bags), **counts
    )
    try:
        append_audit(run_dir, entry)
    except RecordError as err:
        print(f"alpha-matrix: warning: audit not logged: {err}", file=sys.stderr)


def _raise_unless_some_read(bag: Path, bags: list[Path], bad: list[Any], run_dir: Path | None, kind: str) -> None:
    """No episodes: a user error (exit 2) unless some splits were read and others were not."""
    from alpha_matrix.core.bag import bag_splits

    if bad and len(bad) == sum(len(bag_splits(b)) for b in bags):
        counts = {"episodes": 0, "matched": 0, "mismatches": 0, "unreadable_splits": len(bad)}
        _record(bag, bags, run_dir, kind, verdict="unreadable bag", **counts)
        raise AlphaMatrixError(f"{bags[0]}: unreadable bag (no split readable; {bad[0]})")
    if not bad:
        raise AlphaMatrixError(f"{bags[0]}: no episodes in the bag")


def _not_requested(audits: list[Any], run_dir: Path | None) -> tuple[list[Any], list[str]]:
    """Split off episodes the run never asked for: a driver started before the run keeps its
    last messages for late readers (transient local), so its earlier episodes (check-driver's,
    another run's) reach the bag too. Recorded as received; neither audited nor called interrupted."""
    from alpha_matrix.core.run_plan import requested_ids

    wanted = requested_ids(run_dir) if run_dir is not None else None
    if not wanted:
        return audits, []
    foreign = sorted({a.episode_id for a in audits if a.episode_id not in wanted})
    if not foreign:
        return audits, []
    note = (
        f"note: {', '.join(foreign)}: in the bag but not requested by this run (a driver's messages from before the "
        "run began, kept for late readers); not audited"
    )
    return [a for a in audits if a.episode_id in wanted], [note]


def cmd_audit(args: argparse.Namespace) -> int:
    """Exit 0 all match, 1 a mismatch or an unreadable split, 2 a user error (no such bag, bad args)."""
    from alpha_matrix.core.bag import bag_metadata, run_bags, tolerate_bad_splits
    from alpha_matrix.core.matrix.audit import audit_bag, format_notes, format_table, unbacked_records, window_sweep
    from alpha_matrix.core.suites.audit_common import across_bags, audit_suite_bag, bag_suite, format_suite_table

    bag = Path(args.bag)
    bags = run_bags(bag)
    for b in bags:
        bag_metadata(b)  # a broken metadata.yaml is a one-line error before anything is read
    run_dir, notes = _audit_run_dir(args, bag, bags)
    suites = {bag_suite(b) for b in bags}
    if len(suites) > 1:
        raise AlphaMatrixError(f"{bag}: worker bags of different kinds ({', '.join(sorted(map(str, suites)))})")
    suite = suites.pop()
    with tolerate_bad_splits() as bad:  # every loader reads split by split and names the bad ones
        if suite is not None:
            if args.window:
                raise AlphaMatrixError("--window is for the matrix's safety monitor; this is a suite bag")
            whole_run = not (len(bags) == 1 and bags[0].name.startswith("worker-"))
            found = across_bags([audit_suite_bag(suite, b, run_dir) for b in bags], whole_run)
            if not found:
                _raise_unless_some_read(bag, bags, bad, run_dir, suite)
            print(_audit_header(bags, bad, run_dir) + "\n")
            print(f"suite {suite}: replayed through the same core code as the live nodes\n")
            print(format_suite_table(suite, found))
            _audit_footer(bags, bad, notes)
            failed = [a for a in found if not a.ok]
            interrupted = sum(a.interrupted_attempts for a in found)
            counts = {"episodes": len(found), "matched": len(found) - len(failed), "mismatches": len(failed)}
            _record(bag, bags, run_dir, suite, interrupted=interrupted, unreadable_splits=len(bad), **counts)
            print(
                f"\n{len(found) - len(failed)}/{len(found)} episodes match"
                + (f"; MISMATCH in {', '.join(a.episode_id for a in failed)}" if failed else "")
                + (f"; {len(bad)} unreadable split{'s' if len(bad) > 1 else ''}" if bad else "")
            )
            return 1 if failed or bad else 0
        audits, foreign = _not_requested([a for b in bags for a in audit_bag(b, run_dir)], run_dir)
        notes += foreign
        if not audits:
            _raise_unless_some_read(bag, bags, bad, run_dir, "matrix")
        sweep = {}
        if args.window:
            for b in bags:
                for w, (events, scans) in window_sweep(b, args.window).items():
                    e0, s0 = sweep.get(w, (0, 0))
                    sweep[w] = (e0 + events, s0 + scans)
    whole_run = not (len(bags) == 1 and bags[0].name.startswith("worker-"))
    unbacked = unbacked_records(audits, run_dir) if run_dir is not None and whole_run else []
    print(_audit_header(bags, bad, run_dir) + "\n")
    print(format_table(audits))
    _audit_footer(bags, bad, notes + format_notes(audits))
    if unbacked:
        print(f"MISMATCH: JSONL records in {run_dir} with no completed episode in the bag: {', '.join(unbacked)}")
    if sweep:
        print("\ndedup window sweep (offline): W -> unique events / raw scans")
        for w, (events, scans) in sweep.items():
            print(f"  W={w:<3} {events:>5} / {scans}")
    checked = [a for a in audits if a.audited]
    failed = [a for a in audits if not a.ok]
    interrupted = sum(a.interrupted_attempts for a in audits)
    matched = len(checked) - sum(1 for a in checked if not a.ok)
    counts = {"episodes": len(checked), "matched": matched, "mismatches": len(failed) + len(unbacked)}
    _record(bag, bags, run_dir, "matrix", interrupted=interrupted, unreadable_splits=len(bad), **counts)
    print(
        f"\n{matched}/{len(checked)} episodes match"
        + (f"; MISMATCH in {', '.join(a.episode_id for a in failed)}" if failed else "")
        + (f"; {len(unbacked)} records not in the bag" if unbacked else "")
        + (f"; {interrupted} interrupted attempt{'s' if interrupted > 1 else ''} not audited" if interrupted else "")
        + (f"; {len(bad)} unreadable split{'s' if len(bad) > 1 else ''}" if bad else "")
    )
    return 1 if failed or unbacked or bad else 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from alpha_matrix.core.matrix.audit import calibrate

    c = calibrate(Path(args.bag), args.margin, args.floor)
    print(f"nominal episodes: {c.episodes} ({c.steps} steps) from {args.bag}")
    print(f"largest judged arm contact force (exclusions applied): {c.max_judged:.2f} N")
    print(f"largest including the held block's reaction: {c.max_grasp:.2f} N ({c.where})")
    top = max(c.max_judged, c.max_grasp)
    print(f"threshold = max({top:.2f} N x {args.margin}, floor {args.floor} N) = {c.threshold:.2f} N")
    source = f"calibrated from {args.bag}: {c.episodes} nominal episodes, max {top:.2f} N x {args.margin}"
    print("\nto use it (config/params.yaml, safety_monitor.ros__parameters):")
    print(f'  contact_threshold: {c.threshold:.2f}\n  threshold_source: "{source}"')
    return 0


def register(sub: Any, _graph_opts: argparse.ArgumentParser) -> None:
    audit = sub.add_parser("audit", help="replay a bag through the core evaluation and compare every verdict")
    audit.add_argument("bag", help="bag directory, e.g. bags/<run_id> (a --workers run: all its worker-k bags)")
    audit.add_argument(
        "--runs-dir",
        default="runs",
        help="where run directories are; the run is the one the bag's metadata names (default runs/)",
    )
    audit.add_argument("--run-dir", default=None, help="compare with this run directory (overrides the bag's run id)")
    audit.add_argument("--no-records", action="store_true", help="compare with the bag's own verdicts only")
    audit.add_argument(
        "--window",
        type=int,
        nargs="*",
        default=None,
        metavar="W",
        help="also re-run the dedup sweep offline (no value: W in 1 5 10 15 30 60)",
    )
    audit.set_defaults(func=cmd_audit)

    cal = sub.add_parser("calibrate", help="violent-contact threshold from a bag of nominal episodes")
    cal.add_argument("bag", help="bag directory of nominal (fault-free) episodes")
    cal.add_argument("--margin", type=float, default=2.0, help="threshold = max nominal force x margin (default 2)")
    cal.add_argument("--floor", type=float, default=40.0, help="never below this, N (default 40)")
    cal.set_defaults(func=cmd_calibrate)
