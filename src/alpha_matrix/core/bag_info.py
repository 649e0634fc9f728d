"""What a bag holds (alpha-matrix bag info): ``ros2 bag info`` plus what alpha_matrix knows.

metadata.yaml says what was recorded; it is trusted for the bag's times, never for whether a
split can be read. Each listed split is opened (its MCAP summary, not its messages, so a large
bag takes no longer than its index), and the topic counts are those of the splits that opened:
a missing or truncated split is named with its reason, as the audit names it (``BadSplit``).
A recorder that died, or is still writing, leaves its current split unlisted (``.split-NNNN``):
it is shown with its size, and a bag with no closed split yet is still described.
Read-only: nothing in the bag directory is created or changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore

from alpha_matrix.core.bag import RUN_ID_KEY, BadSplit, BagError, bag_metadata, run_bags, unlisted_splits
from alpha_matrix.core.suites.registry import suite_of_topics


@dataclass(frozen=True)
class SplitInfo:
    path: Path
    size: int | None  # bytes on disk; None: not on disk
    listed_messages: int | None  # metadata.yaml's count (None: not given there)
    messages: int | None  # the split's own count; None: unreadable
    bad: BadSplit | None = None


@dataclass(frozen=True)
class TopicInfo:
    name: str
    msgtype: str
    count: int  # in the readable splits
    listed: int  # in metadata.yaml


@dataclass(frozen=True)
class BagInfo:
    path: Path
    storage: str
    distro: str
    start_ns: int | None
    duration_ns: int | None
    listed_messages: int
    splits: tuple[SplitInfo, ...]
    topics: tuple[TopicInfo, ...]
    run_id: str | None  # custom_data's alpha_matrix.run_id (None: a bag recorded before it was written)
    kind: str  # "matrix", a suite's name, or "" (no closed split yet)
    unlisted: tuple[tuple[Path, int], ...]  # splits being written / left by a stopped recorder, and their size

    @property
    def bad(self) -> list[BadSplit]:
        return [s.bad for s in self.splits if s.bad is not None]


def _split_counts(path: Path) -> dict[str, tuple[str, int]]:
    """topic -> (type, count) from one split's own summary; raises whatever the reader raises."""
    if not path.is_file():
        raise FileNotFoundError("listed in metadata.yaml, not on disk")
    counts: dict[str, tuple[str, int]] = {}
    with AnyReader([path], default_typestore=get_typestore(Stores.ROS2_KILTED)) as reader:
        for c in reader.connections:
            counts[c.topic] = (c.msgtype, counts.get(c.topic, ("", 0))[1] + c.msgcount)
    return counts


def _size(path: Path) -> int:
    """Bytes of a file, or of every file under a directory (an unlisted split's temporary bag)."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def bag_info(bag_dir: Path) -> BagInfo:
    """Describe one bag; BagError (one line) for a path that is no bag or a broken metadata.yaml."""
    unlisted = tuple((p, _size(p)) for p in unlisted_splits(bag_dir)) if bag_dir.is_dir() else ()
    if unlisted and not (bag_dir / "metadata.yaml").exists():  # its first split is still open
        return BagInfo(bag_dir, "", "", None, None, 0, (), (), None, "", unlisted)
    meta = bag_metadata(bag_dir)
    files = {f.get("path"): f for f in meta.get("files") or [] if isinstance(f, dict)}
    splits, counts = [], dict[str, tuple[str, int]]()
    for name in meta["relative_file_paths"]:
        path = bag_dir / name
        listed = files.get(name, {}).get("message_count")
        try:
            own = _split_counts(path)
        except Exception as err:  # any reader failure is a missing, truncated or corrupt split
            size = path.stat().st_size if path.is_file() else None
            splits.append(SplitInfo(path, size, listed, None, BadSplit(path, f"{type(err).__name__}: {err}")))
            continue
        for topic, (msgtype, n) in own.items():
            counts[topic] = (msgtype, counts.get(topic, ("", 0))[1] + n)
        splits.append(SplitInfo(path, path.stat().st_size, listed, sum(n for _, n in own.values())))
    listed_topics = _listed_topics(bag_dir, meta)
    topics = [TopicInfo(t, mt, counts.get(t, ("", 0))[1], n) for t, (mt, n) in listed_topics.items()]
    topics += [TopicInfo(t, mt, n, 0) for t, (mt, n) in counts.items() if t not in listed_topics]
    start = (meta.get("starting_time") or {}).get("nanoseconds_since_epoch")
    duration = (meta.get("duration") or {}).get("nanoseconds")
    return BagInfo(
        path=bag_dir,
        storage=str(meta.get("storage_identifier", "")),
        distro=str(meta.get("ros_distro", "")),
        start_ns=start if isinstance(start, int) else None,
        duration_ns=duration if isinstance(duration, int) else None,
        listed_messages=int(meta.get("message_count") or 0),
        splits=tuple(splits),
        topics=tuple(topics),
        run_id=(meta.get("custom_data") or {}).get(RUN_ID_KEY),
        kind=suite_of_topics(set(listed_topics)) or "matrix",
        unlisted=unlisted,
    )


def bag_infos(path: Path) -> list[BagInfo]:
    """The bag at ``path`` (also one whose first split is still open), or each worker-k bag of a
    ``--workers`` run's bag folder; BagError (one line) for anything else."""
    if path.is_dir() and ((path / "metadata.yaml").exists() or unlisted_splits(path)):
        return [bag_info(path)]
    return [bag_info(b) for b in run_bags(path)]


def _listed_topics(bag_dir: Path, meta: dict[str, Any]) -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    try:
        for t in meta.get("topics_with_message_count") or []:
            out[str(t["topic_metadata"]["name"])] = (str(t["topic_metadata"]["type"]), int(t["message_count"]))
    except (KeyError, TypeError, ValueError) as err:
        raise BagError(f"{bag_dir / 'metadata.yaml'}: unreadable topic list ({type(err).__name__}: {err})") from None
    return out


def human_size(n: int) -> str:
    """ros2 bag info's units: B, KiB, MiB, GiB."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def _stamp(ns: int) -> str:
    t = datetime.fromtimestamp(ns // 1_000_000_000, UTC)
    return f"{t:%Y-%m-%d %H:%M:%S}.{ns % 1_000_000_000:09d} UTC ({ns // 1_000_000_000}.{ns % 1_000_000_000:09d})"


SPLITS_SHOWN = 12  # a bag of more splits lists its first and last few and sums up the rest (--splits: all)
HEAD_SPLITS, TAIL_SPLITS = 5, 3


def _distro(distro: str) -> str:
    """metadata.yaml's ros_distro; the rosbags library writes its own name there, not a distribution."""
    if distro == "rosbags":
        return "none recorded (the bag was written by the rosbags library)"
    return distro or "none given"


def _split_line(s: SplitInfo) -> str:
    shown = human_size(s.size) if s.size is not None else "missing"
    what = f"{s.messages} messages" if s.bad is None else "UNREADABLE"
    if s.listed_messages is not None and s.listed_messages != s.messages:
        what += f" (listed {s.listed_messages})"
    return f"  {s.path.name}  {shown}  {what}"


def _split_lines(splits: tuple[SplitInfo, ...], every: bool) -> list[str]:
    """One line per split; beyond SPLITS_SHOWN the first and last few, the others summed up in one
    line (an unreadable split is always listed)."""
    if every or len(splits) <= SPLITS_SHOWN:
        return [_split_line(s) for s in splits]
    middle = splits[HEAD_SPLITS:-TAIL_SPLITS]
    fine = [s for s in middle if s.bad is None]
    size = sum(s.size or 0 for s in fine)
    summary = (
        f"  ... {len(fine)} more splits ({fine[0].path.name} .. {fine[-1].path.name}), {human_size(size)}, "
        f"{sum(s.messages or 0 for s in fine)} messages, all readable (alpha-matrix bag info --splits lists each)"
        if fine
        else ""
    )
    return (
        [_split_line(s) for s in splits[:HEAD_SPLITS]]
        + ([summary] if summary else [])
        + [_split_line(s) for s in middle if s.bad is not None]
        + [_split_line(s) for s in splits[-TAIL_SPLITS:]]
    )


def format_bag_info(info: BagInfo, every_split: bool = False) -> str:
    """The bag as ``ros2 bag info`` lays it out, then its splits (a long list summed up unless
    ``every_split``) and alpha_matrix's notes."""
    sizes = [s.size for s in info.splits if s.size is not None]
    readable = sum(s.messages or 0 for s in info.splits)
    lines = [f"Bag:               {info.path}"]
    if not info.splits:
        lines.append("Splits:            none closed yet (the recorder is writing its first split, or stopped in it)")
    else:
        lines += [
            f"Files:             {len(info.splits)} splits, {human_size(sum(sizes))}"
            + (f" ({len(info.bad)} unreadable)" if info.bad else ""),
            f"Storage id:        {info.storage}",
            f"ROS distro:        {_distro(info.distro)}",
        ]
        if info.duration_ns is not None and info.start_ns is not None:
            lines += [
                f"Duration:          {info.duration_ns / 1e9:.3f} s",
                f"Start:             {_stamp(info.start_ns)}",
                f"End:               {_stamp(info.start_ns + info.duration_ns)}",
            ]
        shown = (
            f"{readable}"
            if readable == info.listed_messages and not info.bad
            else f"{readable} readable of {info.listed_messages} listed"
        )
        lines.append(f"Messages:          {shown}")
        name_w = max((len(t.name) for t in info.topics), default=0)
        type_w = max((len(t.msgtype) for t in info.topics), default=0)
        lines.append("Topic information:" + ("" if info.topics else " none"))
        for t in info.topics:
            count = f"{t.count}" if t.count == t.listed else f"{t.count} (listed {t.listed})"
            lines.append(f"  {t.name.ljust(name_w)}  {t.msgtype.ljust(type_w)}  count {count}")
    lines.append(f"Run id:            {info.run_id or 'none in metadata.yaml (recorded before bags named their run)'}")
    if info.kind:
        lines.append(f"Kind:              {info.kind}")
    if info.splits or info.unlisted:
        lines.append("Splits:")
        lines += _split_lines(info.splits, every_split)
    for path, size in info.unlisted:
        lines.append(
            f"  {path.name}  {human_size(size)}  not listed: being written, or its recorder stopped (not readable until closed)"
        )
    lines += [str(b) for b in info.bad]
    return "\n".join(lines)
