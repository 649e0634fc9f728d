"""A run's audit history: one JSON line per ``alpha-matrix audit`` against its records.

The audit itself only prints; this file is what lets ``alpha-matrix runs`` say, later, whether
a run was audited and how it came out. It lives in the run directory (``audits.jsonl``),
append-only, beside the records and never mixed into them: record readers read
``episodes.jsonl`` and ``manifest.json`` only, so the file changes nothing they see.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from alpha_matrix.core.errors import RecordError

AUDITS_FILE = "audits.jsonl"


class AuditEntry(BaseModel):
    """One audit's outcome. Unknown keys are ignored on read: a later version may add some."""

    model_config = ConfigDict(frozen=True)

    time: str  # ISO 8601, UTC
    bag: str  # the bag (or a --workers run's bag folder) audited, absolute
    kind: str  # "matrix" or the suite's name
    verdict: str  # "clean", "2 mismatches", "1 unreadable split", "unreadable bag", or a combination
    episodes: int  # episodes compared with the records
    matched: int
    mismatches: int  # episodes whose replay differs from the record (matrix: also records not in the bag)
    interrupted: int = 0  # interrupted attempts, not audited
    unreadable_splits: int = 0
    splits: int = 0  # splits listed in the bag(s)


def verdict(mismatches: int, unreadable_splits: int) -> str:
    """The one-phrase outcome ``runs`` shows: clean, N mismatches, N unreadable splits, or both."""
    parts = []
    if mismatches:
        parts.append(f"{mismatches} mismatch{'es' if mismatches > 1 else ''}")
    if unreadable_splits:
        parts.append(f"{unreadable_splits} unreadable split{'s' if unreadable_splits > 1 else ''}")
    return ", ".join(parts) or "clean"


def now_utc() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def append_audit(run_dir: Path, entry: AuditEntry) -> Path:
    """Append ``entry`` to the run's audits.jsonl (one write of one line); RecordError on failure."""
    path = run_dir / AUDITS_FILE
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(entry.model_dump_json() + "\n")
    except OSError as err:
        raise RecordError(f"{path}: cannot append ({err.strerror})") from None
    return path


def last_audit(run_dir: Path) -> AuditEntry | None:
    """The latest complete entry of the run's audits.jsonl; None if it was never audited.

    A line still being written (no newline yet) is not an entry; a broken complete line is a
    RecordError, never silently taken for "not audited".
    """
    path = run_dir / AUDITS_FILE
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise RecordError(f"{path}: {err.strerror}") from None
    lines = raw[: raw.rfind(b"\n") + 1].splitlines()
    if not lines:
        return None
    try:
        return AuditEntry.model_validate_json(lines[-1])
    except ValidationError as err:
        raise RecordError(f"{path}:{len(lines)}: invalid entry ({err.errors()[0]['msg']})") from None


def audit_status(run_dir: Path) -> str:
    """What ``runs`` shows: "not audited", or the last verdict with its counts and date."""
    try:
        entry = last_audit(run_dir)
    except RecordError as err:
        return f"unreadable: {err}"
    if entry is None:
        return "not audited"
    return f"{entry.verdict} ({entry.matched}/{entry.episodes}, {entry.time[:10]})"
