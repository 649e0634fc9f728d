"""rosbag2 (MCAP) writing and reading with the `rosbags` library: no ROS install needed.

A bag is written in splits: each split is a complete, closed MCAP file, and ``metadata.yaml``
is rewritten atomically after every split closes. A crash therefore leaves a readable bag of
every closed split (the recorder closes one per episode and every few seconds); the split
being written when the process died is left on disk, unlisted, and reported by the reader.
A later run with the same run id appends new splits to the same bag.

Each split's MCAP chunks are zstd-compressed (level 1): chunk compression is part of the MCAP
format, so every MCAP reader (rosbag2's mcap storage plugin, rosbags, the ``mcap`` library,
Foxglove) opens the files as they are, and a closed split stays a complete file on its own.
Depth frames with sensor noise compress little (the noise fills the low mantissa bits), the
other topics about twofold. Level 1 compresses almost as well as the library default, 3
(proximity frames 1.35x against 1.38x), at under half its CPU, which matters because the
recorder compresses on its gating path. ``benchmarks/bench_bags.py`` measures size and write
cost against uncompressed splits.

The reader reads split by split (each listed split is a complete MCAP): a caller that passes
a ``bad_splits`` collector (or reads inside ``tolerate_bad_splits()``) gets every readable
split and the unreadable ones named, instead of one bad split hiding the whole bag.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from rosbags.highlevel import AnyReader
from rosbags.rosbag2 import Writer
from rosbags.rosbag2.enums import CompressionFormat, CompressionMode
from rosbags.rosbag2.storage_mcap import McapWriter
from rosbags.rosbag2.writer import StoragePlugin
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

from alpha_matrix.core.attempts import STEP_TOPIC, Msg, audited_attempt, split_attempts

if sys.version_info >= (3, 14):
    from compression import zstd
else:  # the backport rosbags itself uses (and depends on) before Python 3.14
    from backports import zstd
from alpha_matrix.core.errors import AlphaMatrixError

INTERFACE_PACKAGE = "alpha_matrix_interfaces"
RUN_ID_KEY = "alpha_matrix.run_id"  # metadata.yaml custom_data: the run whose records this bag backs
CHUNK_ZSTD_LEVEL = 1  # zstd level of every split's MCAP chunks
# metadata.yaml is rewritten at every commit (MetadataText): parsed and written with libyaml
# (PyYAML's wheels carry it) when present, the same text as PyYAML's Python emitter at a fifth of
# the cost (benchmarks/bench_commit.py; a unit test compares).
_META_KEY = "rosbag2_bagfile_information"
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_YAML_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class BagError(AlphaMatrixError):
    """A bag is missing, truncated or unreadable."""


def interface_msg_dir() -> Path:
    """The .msg files of alpha_matrix_interfaces: an install's share/ or the source tree."""
    candidates = [
        Path(p) / "share" / INTERFACE_PACKAGE / "msg" for p in os.environ.get("AMENT_PREFIX_PATH", "").split(":") if p
    ]
    candidates += [
        Path(sys.prefix) / "share" / INTERFACE_PACKAGE / "msg",
        Path(__file__).resolve().parents[3] / INTERFACE_PACKAGE / "msg",
    ]
    for c in candidates:
        if c.is_dir() and any(c.glob("*.msg")):
            return c
    raise BagError(f"cannot find the {INTERFACE_PACKAGE} .msg files (is the interface package built?)")


def make_typestore():  # returns a rosbags Typestore
    """ROS 2 kilted standard types plus this project's messages, registered from their .msg text."""
    store = get_typestore(Stores.ROS2_KILTED)
    types: dict[str, Any] = {}
    for path in sorted(interface_msg_dir().glob("*.msg")):
        types.update(get_types_from_msg(path.read_text(), f"{INTERFACE_PACKAGE}/msg/{path.stem}"))
    store.register(types)
    return store


_ZSTD_OPTIONS: dict[int, int] = {
    zstd.CompressionParameter.compression_level: CHUNK_ZSTD_LEVEL,
    zstd.CompressionParameter.checksum_flag: 1,
}


def _compress_chunk(data: bytes) -> bytes:
    """A zstd frame with its content checksum: a corrupted chunk fails to decompress instead of
    decoding into wrong messages (rosbags leaves the MCAP chunk's own CRC at 0, unchecked)."""
    return zstd.compress(data, options=_ZSTD_OPTIONS)


class _ZstdMcapWriter(McapWriter):
    """rosbags' MCAP storage with its zstd chunk compression at ``CHUNK_ZSTD_LEVEL`` (rosbags
    fixes the library default, level 3). Only the compressor changes: the records, the chunk
    index and the ``zstd`` compression name in them are rosbags' own."""

    def __init__(self, path: Path, compression: CompressionMode) -> None:
        super().__init__(path, compression)
        if self.compression == "zstd":
            self.compressor = _compress_chunk


class _ZstdWriter(Writer):
    STORAGE_PLUGINS = {**Writer.STORAGE_PLUGINS, StoragePlugin.MCAP: _ZstdMcapWriter}


def open_split_writer(path: Path, compress: bool = True) -> Writer:
    """A rosbag2 (version 9, MCAP) writer for one split, its chunks zstd-compressed or not.

    Not opened: the caller sets custom data first. rosbag2's metadata lists no compression
    (``compression_mode: ''``): chunk compression is the storage's own, undone by its readers.
    """
    if not compress:
        return Writer(path, version=9, storage_plugin=StoragePlugin.MCAP)
    writer = _ZstdWriter(path, version=9, storage_plugin=StoragePlugin.MCAP)
    writer.set_compression(CompressionMode.STORAGE, CompressionFormat.ZSTD)
    return writer


@dataclass
class _Split:
    writer: Writer
    tmp_dir: Path
    connections: dict[str, Any]
    messages: int


TF_MESSAGE = "tf2_msgs/msg/TFMessage"  # a latched topic of this type is merged frame by frame


class SplitBagWriter:
    """Appends raw CDR messages to ``bag_dir`` in closed MCAP splits.

    ``custom_data`` (string pairs, e.g. ``{RUN_ID_KEY: run_id}``) goes into metadata.yaml's
    ``custom_data``, so an auditor finds the run the bag belongs to without guessing.
    """

    def __init__(
        self,
        bag_dir: Path,
        topics: dict[str, str],
        custom_data: dict[str, str] | None = None,
        compress: bool = True,
        latched: Iterable[str] = (),
    ) -> None:
        self.bag_dir = bag_dir
        # Topics sent once (/robot_description, /tf_static): their last message opens every split
        # again, so each split, opened alone in a viewer, has the robot model and its fixed frames.
        self.latched = frozenset(latched)
        self._last: dict[str, bytes] = {}
        self.compress = compress  # False: uncompressed chunks (the benchmark's baseline)
        self.topics = topics  # name -> type, e.g. "/clock" -> "rosgraph_msgs/msg/Clock"
        self.custom_data = dict(custom_data or {})
        self.store = make_typestore()
        for name, msgtype in topics.items():
            if msgtype not in self.store.types:
                raise BagError(f"topic {name}: unknown message type {msgtype}")
        # Made now (a directory that cannot be made fails the start, not the first episode); the
        # ones made here are removed again by close() when nothing was written (recorded_nothing).
        self._made = [d for d in (bag_dir, *bag_dir.parents) if not d.exists()]
        bag_dir.mkdir(parents=True, exist_ok=True)
        meta = bag_dir / "metadata.yaml"
        self._meta = parse_metadata(meta.read_text()) if meta.exists() else None
        self._meta_text = MetadataText()
        self._index = len(self._meta["relative_file_paths"]) if self._meta else 0
        self._split: _Split | None = None

    def write(self, topic: str, timestamp_ns: int, data: bytes) -> None:
        if self._split is None and topic in self.latched:  # kept for the next split: sent once, it alone
            self._hold(topic, data)  # makes no bag (an idle launch leaves none)
            return
        if self._split is None:
            self._open()
            assert self._split is not None
            for name, raw in self._last.items():
                if name != topic:
                    self._split.writer.write(self._split.connections[name], timestamp_ns, raw)
                    self._split.messages += 1
        assert self._split is not None
        if topic in self.latched:
            self._hold(topic, data)
        self._split.writer.write(self._split.connections[topic], timestamp_ns, data)
        self._split.messages += 1

    def _hold(self, topic: str, data: bytes) -> None:
        """Keep a latched message for the next splits. A TFMessage (/tf_static) is merged with the
        one held, frame by frame: every static broadcaster (a robot's, a camera's) sends its own once,
        and the last alone would lose the others' frames from every later split."""
        held = self._last.get(topic)
        if held is None or self.topics[topic] != TF_MESSAGE:
            self._last[topic] = data
            return
        old = self.store.deserialize_cdr(held, TF_MESSAGE)
        new = self.store.deserialize_cdr(data, TF_MESSAGE)
        frames = {t.child_frame_id: t for t in old.transforms} | {t.child_frame_id: t for t in new.transforms}
        merged = self.store.types[TF_MESSAGE](transforms=list(frames.values()))
        self._last[topic] = bytes(self.store.serialize_cdr(merged, TF_MESSAGE))

    @property
    def held(self) -> frozenset[str]:
        """The latched topics whose message this writer holds (and so opens every split with)."""
        return frozenset(self._last)

    @property
    def pending(self) -> int:
        return self._split.messages if self._split else 0

    def _open(self) -> None:
        tmp = self.bag_dir / f".split-{self._index:04d}"
        if tmp.exists():
            shutil.rmtree(tmp)
        writer = open_split_writer(tmp, self.compress)
        for key, value in self.custom_data.items():
            writer.set_custom_data(key, value)
        writer.open()
        conns = {t: writer.add_connection(t, mt, typestore=self.store) for t, mt in self.topics.items()}
        self._split = _Split(writer, tmp, conns, 0)

    def rotate(self) -> str | None:
        """Close the current split and list it in metadata.yaml (atomically); its file name."""
        split, self._split = self._split, None
        if split is None:
            return None
        split.writer.close()
        name = f"{self.bag_dir.name}_{self._index}.mcap"
        os.replace(next(split.tmp_dir.glob("*.mcap")), self.bag_dir / name)
        info = parse_metadata((split.tmp_dir / "metadata.yaml").read_text())
        shutil.rmtree(split.tmp_dir)
        info["relative_file_paths"] = [name]
        info["files"][0]["path"] = name
        self._meta = info if self._meta is None else _merge(self._meta, info)
        tmp = self.bag_dir / "metadata.yaml.tmp"
        tmp.write_text(self._meta_text(self._meta))
        os.replace(tmp, self.bag_dir / "metadata.yaml")
        self._index += 1
        return name

    @property
    def recorded_nothing(self) -> bool:
        """No message was ever written to this bag (by this writer or an earlier one)."""
        return self._meta is None and self._split is None

    def close(self) -> None:
        """Close the last split; a bag that recorded nothing leaves no empty directory behind (a
        graph stopped before its first message: Ctrl-C at start-up, an idle `launch`)."""
        self.rotate()
        if self.recorded_nothing:
            for d in self._made:  # innermost first; stops at one that is not empty
                try:
                    d.rmdir()
                except OSError:
                    break


def parse_metadata(text: str) -> Any:
    """metadata.yaml's ``rosbag2_bagfile_information`` (KeyError/TypeError if it has none)."""
    return yaml.load(text, Loader=_YAML_LOADER)[_META_KEY]  # noqa: S506 - a safe loader


def metadata_text(info: dict[str, Any]) -> str:
    """The text of a metadata.yaml holding ``info``, keys in their order."""
    return yaml.dump({_META_KEY: info}, Dumper=_YAML_DUMPER, sort_keys=False)


class MetadataText:
    """metadata.yaml's text, rendered at every commit without rendering again what it already lists.

    Only the split lists grow (``files`` and ``relative_file_paths``: one item a split, never
    changed once listed), so their items are rendered once and kept; the rest of the document
    is rendered anew. The text is ``metadata_text``'s for the same data (a unit test compares),
    and a commit costs the same at a run's thousandth split as at its first.
    """

    GROWING = ("files", "relative_file_paths")
    _SLOT = "alpha-matrix-items-of-"  # a plain scalar that stands in for a list while rendering

    def __init__(self) -> None:
        self._items: dict[str, list[str]] = {key: [] for key in self.GROWING}

    def __call__(self, info: dict[str, Any]) -> str:
        slots = {}
        for key in self.GROWING:
            done, items = self._items[key], info[key]
            if len(items) < len(done):  # another bag's lists: nothing rendered can be kept
                done.clear()
            for item in items[len(done) :]:
                done.append(textwrap.indent(yaml.dump([item], Dumper=_YAML_DUMPER, sort_keys=False), "  "))
            if items:
                slots[key] = self._SLOT + key
        text = metadata_text({**info, **slots})
        for key, slot in slots.items():  # a top-level key: two spaces in, the only such line
            text = text.replace(f"\n  {key}: {slot}\n", f"\n  {key}:\n{''.join(self._items[key])}", 1)
        return text


def _merge(a: dict, b: dict) -> dict:
    start = min(a["starting_time"]["nanoseconds_since_epoch"], b["starting_time"]["nanoseconds_since_epoch"])
    end = max(
        a["starting_time"]["nanoseconds_since_epoch"] + a["duration"]["nanoseconds"],
        b["starting_time"]["nanoseconds_since_epoch"] + b["duration"]["nanoseconds"],
    )
    counts = {t["topic_metadata"]["name"]: t for t in a["topics_with_message_count"]}
    for t in b["topics_with_message_count"]:
        name = t["topic_metadata"]["name"]
        if name in counts:
            counts[name]["message_count"] += t["message_count"]
        else:
            counts[name] = t
    custom = {**(a.get("custom_data") or {}), **(b.get("custom_data") or {})}
    return {
        **a,
        "custom_data": custom or None,
        "starting_time": {"nanoseconds_since_epoch": start},
        "duration": {"nanoseconds": end - start},
        "message_count": a["message_count"] + b["message_count"],
        "relative_file_paths": a["relative_file_paths"] + b["relative_file_paths"],
        "files": a["files"] + b["files"],
        "topics_with_message_count": list(counts.values()),
    }


@dataclass(frozen=True)
class BadSplit:
    """A listed split that could not be read (missing, truncated, corrupt)."""

    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: unreadable ({self.reason})"


_tolerant: ContextVar[list[BadSplit] | None] = ContextVar("bad_splits", default=None)


@contextmanager
def tolerate_bad_splits() -> Iterator[list[BadSplit]]:
    """Within the block, read_bag() without its own collector skips unreadable splits into the yielded list.

    This lets a command (alpha-matrix audit) give every loader, including ones that call
    ``read_bag(bag_dir)`` plainly, the split-by-split treatment. Each bad split is listed once.
    """
    bad: list[BadSplit] = []
    token = _tolerant.set(bad)
    try:
        yield bad
    finally:
        _tolerant.reset(token)


def bag_metadata(bag_dir: Path) -> dict[str, Any]:
    """metadata.yaml's ``rosbag2_bagfile_information``; BagError for a missing or broken one."""
    if not bag_dir.exists():
        raise BagError(f"{bag_dir}: no such bag")
    meta = bag_dir / "metadata.yaml"
    if not meta.exists():
        raise BagError(f"{bag_dir}: not a bag (no metadata.yaml)")
    try:
        info = parse_metadata(meta.read_text())
        if not isinstance(info.get("relative_file_paths"), list):
            raise TypeError("no relative_file_paths")
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError) as err:
        detail = " ".join(str(err).split())  # a YAML error spans lines: the message stays one
        raise BagError(f"{meta}: unreadable bag metadata ({type(err).__name__}: {detail})") from None
    return info


def run_bags(path: Path) -> list[Path]:
    """The bag at ``path``, or the worker-k bags of a multi-worker run's bag folder (one run).

    ``alpha-matrix run --workers N`` records bags/<run id>/worker-k, one bag per graph; the
    commands that take a bag (audit, bag info) take that folder as the run's bag.
    """
    if not path.exists():
        raise BagError(f"{path}: no such bag")
    if (path / "metadata.yaml").exists():
        return [path]
    workers = [p for p in path.glob("worker-*") if (p / "metadata.yaml").exists()]
    if not workers:
        raise BagError(f"{path}: not a bag (no metadata.yaml, and no worker-k bags in it)")
    return sorted(workers, key=lambda p: (int(p.name[7:]) if p.name[7:].isdigit() else 1 << 30, p.name))


def bag_splits(bag_dir: Path) -> list[Path]:
    """The listed splits, in recording order."""
    return [bag_dir / name for name in bag_metadata(bag_dir)["relative_file_paths"]]


def bag_custom_data(bag_dir: Path) -> dict[str, str]:
    return dict(bag_metadata(bag_dir).get("custom_data") or {})


def _read_split(path: Path) -> list[tuple[str, int, Any]]:
    with AnyReader([path], default_typestore=get_typestore(Stores.ROS2_KILTED)) as reader:
        return [(c.topic, ts, reader.deserialize(raw, c.msgtype)) for c, ts, raw in reader.messages()]


def read_bag(bag_dir: Path, bad_splits: list[BadSplit] | None = None) -> Iterator[tuple[str, int, Any]]:
    """(topic, timestamp_ns, deserialized message) in log-time order; clear errors for bad bags.

    Messages are decoded with the definitions stored in the bag itself, not with the current
    .msg files: a bag recorded before an interface changed stays readable by a later auditor.
    Splits are read one at a time and wholly before any of their messages is yielded. Without
    a collector (and outside tolerate_bad_splits()) the first unreadable split is a BagError
    ("unreadable bag"); with one, it is appended there and the remaining splits are read.
    """
    collector = bad_splits if bad_splits is not None else _tolerant.get()
    for path in bag_splits(bag_dir):
        try:
            if not path.is_file():
                raise FileNotFoundError("listed in metadata.yaml, not on disk")
            messages = _read_split(path)
        except Exception as err:  # any reader failure is a corrupt or truncated split
            reason = f"{type(err).__name__}: {err}"
            if collector is None:
                raise BagError(f"{bag_dir}: unreadable bag ({path.name}: {reason})") from None
            if all(b.path != path for b in collector):
                collector.append(BadSplit(path, reason))
            continue
        yield from messages


def holds_steps(folder: Path) -> bool:
    """Whether any bag under ``folder`` recorded a robot step (what every audit starts from), or
    may have: a split still open or metadata that cannot be read counts as holding steps."""
    if any(folder.rglob(".split-*")):
        return True
    for meta in folder.rglob("metadata.yaml"):
        try:
            topics = bag_metadata(meta.parent).get("topics_with_message_count") or []
            if any(t["topic_metadata"]["name"] == STEP_TOPIC and t["message_count"] > 0 for t in topics):
                return True
        except (BagError, KeyError, TypeError):
            return True
    return False


def unlisted_splits(bag_dir: Path) -> list[Path]:
    """Splits that were being written when a recorder died: on disk, not in metadata.yaml."""
    return sorted(bag_dir.glob(".split-*"))


def episode_attempts(
    bag_dir: Path, episode_of: Callable[[str, Any], str | None], steps: bool = False
) -> dict[str, tuple[list[Msg], int]]:
    """episode id -> (the messages of the attempt to audit, how many other attempts the bag holds);
    the attempt's step batches among them with ``steps``.

    core/attempts.split_attempts cuts on the robot's step stream starting over and on a second
    suite/request; the attempt audited is the last with a suite/result (the runner records that
    one), else the last (reported as interrupted).
    """

    def of(topic: str, msg: Any) -> str | None:
        return msg.episode_id or None if topic == STEP_TOPIC else episode_of(topic, msg)

    split = split_attempts(
        read_bag(bag_dir), episode_of=of, is_start=lambda t, _m: t == "/suite/request", result_topic="/suite/result"
    )
    out = {}
    for ep_id, attempts in split.items():
        chosen = audited_attempt(attempts)[0] or attempts[-1]
        msgs = [m for m in chosen.messages if m[0] != STEP_TOPIC]
        if msgs or len(attempts) > 1:  # not only step batches (a stream of no suite episode)
            out[ep_id] = (chosen.messages if steps else msgs, len(attempts) - 1)
    return out


def latched_missing(published: Iterable[str], held: Iterable[str], sources: Mapping[str, str]) -> list[str]:
    """The latched topics that have a publisher but whose message has not arrived yet.

    A split closed before one arrives lacks it for good (it is sent once), so the recorder waits
    for these before it says ready or closes a split by time. A topic made from another one
    (``sources``: /scene/robot is drawn from /robot_description) is expected only once its
    source is held: without a robot description there is no robot to draw."""
    have = set(held)
    return sorted(t for t in set(published) - have if t not in sources or sources[t] in have)
