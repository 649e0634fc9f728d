"""Benchmark: bag size and write cost, uncompressed splits against the recorder's zstd chunks.

Re-writes the recorded messages of each given bag through the recorder's own writer
(core/bag.SplitBagWriter), split for split as they were recorded, once with uncompressed MCAP
chunks (before) and once with the shipped zstd chunk compression (after), in this one process.
Prints per bag and in total: bytes on disk, the ratio, and the write cost (wall and CPU time of
every write and split close), and checks that both readers (rosbags, as the audit reads, and
the ``mcap`` library with its ROS 2 decoder) read back every message byte for byte.

usage: python benchmarks/bench_bags.py [--repeat N] BAG [BAG ...]
  e.g. the bags of `alpha-matrix suite proximity --scenarios <a few>` and `alpha-matrix run --episodes 4`
"""

from __future__ import annotations

import argparse
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rosbags.highlevel import AnyReader
from rosbags.typesys import Stores, get_typestore

from alpha_matrix.core.bag import CHUNK_ZSTD_LEVEL, SplitBagWriter, bag_splits, make_typestore, read_bag

Split = list[tuple[str, int, bytes]]


@dataclass
class Cost:
    size: int = 0
    wall_s: float = 0.0
    cpu_s: float = 0.0

    def add(self, other: Cost) -> None:
        self.size, self.wall_s, self.cpu_s = (
            self.size + other.size,
            self.wall_s + other.wall_s,
            self.cpu_s + other.cpu_s,
        )


def load(bag: Path) -> tuple[dict[str, str], list[Split]]:
    """The bag's topics and, per listed split, its raw messages in recorded order."""
    topics: dict[str, str] = {}
    splits = []
    for path in bag_splits(bag):
        with AnyReader([path], default_typestore=get_typestore(Stores.ROS2_KILTED)) as reader:
            topics.update({c.topic: c.msgtype for c in reader.connections})
            splits.append([(c.topic, ts, bytes(raw)) for c, ts, raw in reader.messages()])
    return topics, splits


def rewrite(dst: Path, topics: dict[str, str], splits: list[Split], compress: bool) -> Cost:
    """Write ``splits`` as the recorder does; the cost of the writes and closes only."""
    writer = SplitBagWriter(dst, topics, compress=compress)
    wall = cpu = 0.0
    for split in splits:
        t0, c0 = time.perf_counter(), time.process_time()
        for topic, ts, raw in split:
            writer.write(topic, ts, raw)
        writer.rotate()
        wall, cpu = wall + time.perf_counter() - t0, cpu + time.process_time() - c0
    return Cost(sum(p.stat().st_size for p in bag_splits(dst)), wall, cpu)


def check(dst: Path, splits: list[Split]) -> None:
    """Both readers give back every message as written."""
    want = [m for split in splits for m in split]
    store = make_typestore()
    got = [(t, ts, bytes(store.serialize_cdr(m, type(m).__msgtype__))) for t, ts, m in read_bag(dst)]
    if [(t, ts) for t, ts, _ in got] != [(t, ts) for t, ts, _ in want]:
        raise SystemExit(f"{dst}: rosbags read back other messages")
    raw, decoded = [], 0
    for path in bag_splits(dst):
        with path.open("rb") as f:
            raw += [(ch.topic, m.log_time, m.data) for _s, ch, m in make_reader(f).iter_messages(log_time_order=False)]
            f.seek(0)
            decoded += sum(1 for _ in make_reader(f, decoder_factories=[DecoderFactory()]).iter_decoded_messages())
    if raw != want or decoded != len(want):
        raise SystemExit(f"{dst}: the mcap reader read back other messages")


def row(label: str, before: Cost, after: Cost) -> str:
    mb = 1e-6
    return (
        f"{label:<22} {before.size * mb:9.1f} MB {after.size * mb:9.1f} MB  {before.size / after.size:5.2f}x   "
        f"{1e3 * before.wall_s:8.0f} ms {1e3 * after.wall_s:8.0f} ms   "
        f"{1e3 * before.cpu_s:8.0f} ms {1e3 * after.cpu_s:8.0f} ms   "
        f"{1e3 * (after.cpu_s - before.cpu_s) / max(before.size * mb, 1e-9):6.1f} ms/MB"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bags", type=Path, nargs="+", help="recorded bags (directories with metadata.yaml)")
    ap.add_argument("--repeat", type=int, default=2, help="writes per bag and mode; the fastest counts")
    args = ap.parse_args()
    print(f"before: uncompressed MCAP chunks; after: zstd level {CHUNK_ZSTD_LEVEL} chunks (+ content checksum)")
    print(
        f"{'bag':<22} {'size before':>12} {'size after':>12}  ratio   {'write wall before/after':>23}   "
        f"{'write CPU before/after':>22}   extra CPU"
    )
    total_before, total_after = Cost(), Cost()
    with tempfile.TemporaryDirectory() as tmp:
        for bag in args.bags:
            topics, splits = load(bag)
            costs: list[Cost] = []
            for name, compress in (("before", False), ("after", True)):
                runs = []
                for k in range(args.repeat):  # the fastest of a few: the machine's other load varies
                    dst = Path(tmp) / f"{name}-{k}" / bag.name
                    runs.append(rewrite(dst, topics, splits, compress))
                    check(dst, splits)
                costs.append(min(runs, key=lambda c: c.cpu_s))
            total_before.add(costs[0])
            total_after.add(costs[1])
            print(row(f"{bag.name} ({sum(map(len, splits))} msgs)", *costs))
    print(row("total", total_before, total_after))
    print("readers: rosbags (read_bag, as the audit) and mcap + mcap_ros2 decoder read back every message exactly")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
