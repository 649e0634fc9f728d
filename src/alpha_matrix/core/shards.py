"""Shards of one run computed elsewhere (a Ray task on another machine) merged into the run.

A shard returns what its graph wrote: the run directory's manifest and records, and its bag.
Merging goes through the same append-only store as a live run, so a record already there is
never written twice (a retried or repeated shard adds nothing), a shard made with another config
is refused, and a shard's bag lands beside the others as ``bags/<run id>/worker-<k>`` (a later
attempt of the same shard as ``worker-<k>.<attempt>``: earlier evidence is never overwritten, and
the same bag merged again is not copied twice).
"""

from __future__ import annotations

import io
import json
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from alpha_matrix.core.errors import RecordError
from alpha_matrix.core.records import RunStore, parse_records


def in_share(index: int, share: int, count: int) -> bool:
    """Whether item ``index`` of a run is share ``share``'s of ``count`` (``--shard K/N``, a worker,
    a Ray task): round-robin, i mod N == K, for episodes and suite scenarios alike."""
    return index % count == share


@dataclass(frozen=True)
class ShardResult:
    """What one shard's graph wrote, as bytes (it travels from the machine that ran it)."""

    index: int
    manifest: bytes  # the shard's run directory manifest.json
    records: bytes  # its episodes.jsonl: the records it started with and the ones it added
    bag_tar: bytes  # its bag directory as an uncompressed tar ("" when it recorded nothing)


def run_files(run_dir: Path) -> dict[str, bytes]:
    """The files a shard needs to resume this run: recorded episodes are skipped there."""
    return {
        name: (run_dir / name).read_bytes() for name in ("manifest.json", "episodes.jsonl") if (run_dir / name).exists()
    }


def merge_records(
    run_dir: Path, config_hash: str, result: ShardResult, store: Callable[[Path, str], RunStore[Any]] = RunStore
) -> int:
    """Append the shard's records that the run lacks (``store``: the run's kind of record store,
    episode records by default, a suite's SuiteStore); how many were new."""
    try:
        theirs = json.loads(result.manifest).get("config_hash")
    except (json.JSONDecodeError, UnicodeDecodeError, AttributeError):
        raise RecordError(f"shard {result.index}: its manifest.json is not JSON") from None
    if theirs != config_hash:
        raise RecordError(
            f"shard {result.index} ran config {str(theirs)[:12]}, this run is {config_hash[:12]}: not merged"
        )
    raw = result.records[: result.records.rfind(b"\n") + 1]
    target = store(run_dir, config_hash)
    found = parse_records(run_dir / f"shard-{result.index}.jsonl", raw, target.model)
    return sum(target.append(rec) for _, rec in sorted(found.items()))


def shard_from_dir(root: Path, index: int) -> tuple[str, ShardResult, Path | None]:
    """A shard as ``alpha-matrix run --shard K/N`` left it in its working directory ``root``:
    (run id, its records, its bag directory or None). One run per shard directory."""
    runs = sorted(p for p in (root / "runs").glob("*") if (p / "manifest.json").exists()) if root.is_dir() else []
    if len(runs) != 1:
        found = ", ".join(p.name for p in runs) or "none"
        raise RecordError(f"{root}: a shard directory holds runs/<one run id>/ (found: {found})")
    run_dir = runs[0]
    records = run_dir / "episodes.jsonl"
    result = ShardResult(
        index=index,
        manifest=(run_dir / "manifest.json").read_bytes(),
        records=records.read_bytes() if records.exists() else b"",
        bag_tar=b"",
    )
    bag = root / "bags" / run_dir.name
    return run_dir.name, result, bag if (bag / "metadata.yaml").exists() else None


def bag_dir_for(bags_run_dir: Path, index: int, metadata: bytes) -> Path | None:
    """Where shard ``index``'s bag goes: worker-<k>, or worker-<k>.<n> for its n-th later attempt;
    None when this very bag (the same metadata.yaml) is there already: a repeated merge adds nothing."""
    mine = sorted(bags_run_dir.glob(f"worker-{index}")) + sorted(bags_run_dir.glob(f"worker-{index}.*"))
    if any((d / "metadata.yaml").is_file() and (d / "metadata.yaml").read_bytes() == metadata for d in mine):
        return None
    first = bags_run_dir / f"worker-{index}"
    if not first.exists():
        return first
    n = 2
    while (bags_run_dir / f"worker-{index}.{n}").exists():
        n += 1
    return bags_run_dir / f"worker-{index}.{n}"


def tar_member(data: bytes, name: str) -> bytes:
    """One file of a packed bag (its metadata.yaml), or b"" when absent."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
        try:
            f = tar.extractfile(name)
        except KeyError:
            return b""
        return f.read() if f is not None else b""


def pack_bag(bag_dir: Path) -> bytes:
    """A bag directory as tar bytes (files only, names relative to it)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for path in sorted(p for p in bag_dir.rglob("*") if p.is_file()):
            tar.add(path, arcname=path.relative_to(bag_dir).as_posix(), recursive=False)
    return buf.getvalue()


def unpack_bag(data: bytes, dest: Path) -> None:
    """Extract a shard's bag into ``dest`` (made here): plain files only, never outside it."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
        members = tar.getmembers()
        for m in members:
            name = PurePosixPath(m.name)
            if not m.isfile() or name.is_absolute() or ".." in name.parts:
                raise RecordError(f"shard bag member {m.name!r}: not a plain file inside the bag")
        dest.mkdir(parents=True)
        tar.extractall(dest, members=members, filter="data")
