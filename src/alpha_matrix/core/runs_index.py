"""The run directories under runs/, one summary row each (alpha-matrix runs).

Everything comes from what a run already wrote: its records (read with the stores' read-only
readers, so nothing is created or repaired), the earliest record's ``timing.started_at`` as the
run's date, the models in the records' provenance, the episodes its commands asked for
(core/run_plan.py: a run interrupted at 3 of 30 is "incomplete", never "ok"), and the last line
of its audits.jsonl. A
directory that is not a run, or whose records cannot be read, gets a row saying why: a listing
that skips what it cannot read hides exactly the runs a user needs to look at.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alpha_matrix.core.audit_log import audit_status, last_audit
from alpha_matrix.core.errors import AlphaMatrixError, RecordError
from alpha_matrix.core.records import EpisodeRecord, RunStore
from alpha_matrix.core.run_plan import REQUESTED_FILE, run_size
from alpha_matrix.core.suites.registry import SUITE_NAMES

RECORDS_FILE = "episodes.jsonl"
MANIFEST_FILE = "manifest.json"
STUDY_FILE = "study.md"  # alpha-matrix suite --agent a,b: runs/<study>/study.md beside the agents' runs
BOARD_FILE = "board.md"  # alpha-matrix board: runs/board/ beside the runs it shows


@dataclass(frozen=True)
class RunRow:
    """One entry of runs/: a run (matrix or suite), a study, or something unreadable."""

    run_id: str
    path: Path
    status: str = "ok"  # "ok" | "incomplete" (fewer recorded than requested) | "study" | "unreadable: <reason>"
    started_at: str | None = None  # the earliest record's start (ISO 8601), None without records
    kind: str = ""  # "matrix" | a suite's name | "study" | "" (unknown: no records yet)
    arms: tuple[str, ...] = ()  # matrix arms, or the suite's agents under test ("scripted": none)
    n: int = 0
    requested: int | None = None  # episodes (scenarios) the run's commands asked for; None: not known (older runs)
    success: dict[str, tuple[int, int]] = field(default_factory=dict)  # arm -> (k, n); suites: headline label -> (k, n)
    models: tuple[str, ...] = ()  # backend:model of every model that answered, in order of first use
    audit: str = ""  # audit_log.audit_status
    last_audit: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "path": str(self.path),
            "status": self.status,
            "started_at": self.started_at,
            "kind": self.kind,
            "arms": list(self.arms),
            "n": self.n,
            "requested": self.requested,
            "success": {k: list(v) for k, v in self.success.items()},
            "models": list(self.models),
            "audit": self.audit,
            "last_audit": self.last_audit,
        }


def suite_of_run(run_dir: Path) -> str | None:
    """The suite whose records the run directory holds, or None (a matrix run, or unreadable:
    the matrix reader then names what is wrong). Read from the first record alone."""
    with open(run_dir / RECORDS_FILE, encoding="utf-8", errors="replace") as f:
        first = f.readline()
    try:
        suite = json.loads(first).get("suite")
    except (json.JSONDecodeError, AttributeError):
        return None
    return suite if suite in SUITE_NAMES else None


def _first_seen(values: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(v for v in values if v))


def _when(stamp: str) -> datetime:
    """An ISO 8601 stamp as an aware time (a stamp without a zone is taken as UTC)."""
    t = datetime.fromisoformat(stamp)
    return t if t.tzinfo else t.replace(tzinfo=UTC)


def _earliest(stamps: list[str]) -> str | None:
    """The earliest of the stamps (records of a resumed or multi-worker run are not in time order)."""
    dated = []
    for s in stamps:
        try:
            dated.append((_when(s), s))
        except ValueError:
            continue
    return min(dated)[1] if dated else None


def _matrix_row(run_dir: Path) -> RunRow:
    records: list[EpisodeRecord] = list(RunStore.read_only(run_dir).values())
    arms = _first_seen([r.arm for r in records])
    success = {
        a: (sum(r.outcome.success for r in records if r.arm == a), sum(r.arm == a for r in records)) for a in arms
    }
    models = [f"{r.planner.backend}:{r.planner.model}" for r in records if r.planner is not None and r.planner.model]
    return RunRow(
        run_dir.name,
        run_dir,
        started_at=_earliest([r.timing.started_at for r in records]),
        kind="matrix",
        arms=arms,
        n=len(records),
        success=success,
        models=_first_seen(models),
    )


def _suite_row(run_dir: Path, suite: str) -> RunRow:
    from alpha_matrix.core.suites import registry
    from alpha_matrix.core.suites.records import SuiteStore
    from alpha_matrix.core.suites.report import summarize_records

    records = SuiteStore.read_only(run_dir)
    try:  # what its report opens with; records its suite can no longer summarize show none
        rate = registry.headline(suite, summarize_records(suite, records)).rate
        success = {rate.label: (rate.k, rate.n)}
    except (LookupError, TypeError, ValueError, AttributeError):
        success = {}
    parts = [a for r in records if isinstance(a := r.result.get("agent"), dict)]
    models = [f"{a.get('backend', '')}:{a.get('model')}" for a in parts if a.get("model")]
    return RunRow(
        run_dir.name,
        run_dir,
        started_at=_earliest([r.timing.started_at for r in records]),
        kind=suite,
        arms=_first_seen([str(a.get("agent") or a.get("spec") or "") for a in parts]) or ("scripted",),
        n=len(records),
        success=success,
        models=_first_seen(models),
    )


def run_row(path: Path) -> RunRow:
    """The row of one entry of runs/; never raises for what is in the directory."""
    if not path.is_dir():
        return RunRow(path.name, path, status="unreadable: not a directory")
    has_records, has_manifest = (path / RECORDS_FILE).is_file(), (path / MANIFEST_FILE).is_file()
    has_manifest = has_manifest or (path / REQUESTED_FILE).is_file()  # started: its graph is coming up
    if not has_records and not has_manifest:
        if (path / STUDY_FILE).is_file():
            return RunRow(path.name, path, status="study", kind="study")
        if (path / BOARD_FILE).is_file():
            return RunRow(path.name, path, status="board", kind="board")
        return RunRow(
            path.name, path, status=f"unreadable: not a run directory (no {MANIFEST_FILE}, no {RECORDS_FILE})"
        )
    try:
        if not has_records:  # made, nothing recorded yet (or killed before its first episode)
            row = RunRow(path.name, path)
        elif (suite := suite_of_run(path)) is not None:
            row = _suite_row(path, suite)
        else:
            row = _matrix_row(path)
    except (RecordError, OSError) as err:
        reason = str(err) if isinstance(err, RecordError) else f"{err.strerror or err}"
        return RunRow(path.name, path, status=f"unreadable: {reason}", audit=audit_status(path))
    try:
        entry = last_audit(path)
    except RecordError:
        entry = None  # audit_status names the problem
    _recorded, requested = run_size(path)
    status = "incomplete" if requested is not None and row.n < requested else row.status
    return replace(
        row,
        status=status,
        requested=requested,
        audit=audit_status(path),
        last_audit=entry.model_dump() if entry else None,
    )


def list_runs(runs_dir: Path) -> list[RunRow]:
    """Every entry of ``runs_dir`` (lock files and other hidden names aside), by date; undated last."""
    if not runs_dir.is_dir():
        raise AlphaMatrixError(f"{runs_dir}: {'not a directory' if runs_dir.exists() else 'no such directory'}")
    rows = [run_row(p) for p in sorted(runs_dir.iterdir()) if not p.name.startswith(".")]

    def key(row: RunRow) -> tuple[int, datetime, str]:
        if row.started_at is None:
            return (1, datetime.min.replace(tzinfo=UTC), row.run_id)
        return (0, _when(row.started_at), row.run_id)

    return sorted(rows, key=key)


def _date(started_at: str | None) -> str:
    if started_at is None:
        return "-"
    return _when(started_at).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _success(row: RunRow) -> str:
    """Matrix: each arm's successes, "oracle 70/75, llm 3/75"; a suite: its headline rate, as its
    report opens with it ("12/14 = 85.7 %"; the label, what is counted, is in --json)."""
    if row.kind == "matrix":
        return ", ".join(f"{arm} {k}/{n}" for arm, (k, n) in row.success.items())
    return ", ".join(f"{k}/{n} = {100.0 * k / n:.1f} %" if n else "0/0" for k, n in row.success.values())


def _size(r: RunRow) -> str:
    """n, or "3/30 (incomplete)" for a run with fewer records than its commands asked for."""
    if r.requested is not None and r.n < r.requested:
        return f"{r.n}/{r.requested} (incomplete)"
    return str(r.n)


def _columns(r: RunRow) -> tuple[str, ...]:
    arms, models = ",".join(r.arms) or "-", ", ".join(r.models) or "-"
    return (r.run_id, _date(r.started_at), r.kind or "-", arms, _size(r), _success(r) or "-", models, r.audit)


def _listed(r: RunRow) -> bool:
    """A readable run (complete or not): its columns are shown."""
    return r.status in ("ok", "incomplete")


def _note(r: RunRow) -> str:
    """What stands in for the columns of a row that is not a readable run."""
    if r.status == "study":
        return f"a suite study of several runs: {r.path / STUDY_FILE}"
    if r.status == "board":
        return f"a board of the runs (alpha-matrix board): {r.path / BOARD_FILE}"
    return r.status + (f"  (audit: {r.audit})" if r.audit and r.audit != "not audited" else "")


def format_runs(rows: list[RunRow], runs_dir: Path) -> str:
    """A table, one line per row; a row that is not a readable run says why after its first columns."""
    if not rows:
        return f"no runs in {runs_dir}"
    head = ("run id", "started (UTC)", "kind", "arms / agent", "n", "success", "model", "audit")
    cells = [_columns(r) for r in rows]
    widths = [
        max([len(head[i])] + [len(c[i]) for r, c in zip(rows, cells, strict=True) if _listed(r) or i < 3])
        for i in range(len(head))
    ]

    def line(values: tuple[str, ...]) -> str:
        return "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=False))

    out = [line(head).rstrip()]
    for r, c in zip(rows, cells, strict=True):
        out.append(line(c).rstrip() if _listed(r) else f"{line(c[:3])}  {_note(r)}")
    return "\n".join(out)
