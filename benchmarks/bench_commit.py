"""Benchmark: what the recorder's commit of one episode costs, as the bag grows.

A commit closes the episode's split and rewrites metadata.yaml, which lists every split of the
run (core/bag.SplitBagWriter.rotate); the episode runner waits for it before it writes the
episode's record. This writes episode-sized splits (80 step batches of 4 kB and 6 small
messages, the default graph's episode) into one bag and times each commit, once as the bag
code does it (libyaml's C parser and emitter, in PyYAML and in ruamel.yaml for rosbags' own
per-split metadata; only the splits not listed yet rendered, core/bag.MetadataText) and once as
before (both YAML libraries on their pure-Python paths, the whole document rendered at every
commit). Both list the same splits, topics and counts (checked). Prints the mean commit in ms
around a few bag sizes.

usage: python benchmarks/bench_commit.py [--splits N]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import ruamel.yaml.main
import yaml

from alpha_matrix.core import bag
from alpha_matrix.core.recorder_params import RecorderParams

STEP_BATCHES, BATCH_BYTES, OTHERS, OTHER_BYTES = 80, 4000, 6, 300


class _WholeDocument:
    """metadata.yaml rendered whole at every commit, as before."""

    def __call__(self, info: dict) -> str:
        return bag.metadata_text(info)


@contextmanager
def the_code_before():
    """Both YAML libraries on their Python paths (as without libyaml), the whole document rendered."""
    saved = bag._YAML_LOADER, bag._YAML_DUMPER, ruamel.yaml.main.CEmitter, ruamel.yaml.main.CParser, bag.MetadataText
    bag._YAML_LOADER, bag._YAML_DUMPER = yaml.SafeLoader, yaml.SafeDumper
    ruamel.yaml.main.CEmitter = ruamel.yaml.main.CParser = None
    bag.MetadataText = _WholeDocument  # type: ignore[misc,assignment]
    try:
        yield
    finally:
        (bag._YAML_LOADER, bag._YAML_DUMPER, ruamel.yaml.main.CEmitter, ruamel.yaml.main.CParser, bag.MetadataText) = (
            saved
        )


def commits(bag_dir: Path, splits: int) -> list[float]:
    """Seconds of each commit of ``splits`` episode-sized splits written into one bag."""
    topics = dict(t.partition("=")[::2] for t in RecorderParams().topics)
    writer = bag.SplitBagWriter(bag_dir, topics, {bag.RUN_ID_KEY: "bench"})
    step, others = bag.STEP_TOPIC, [t for t in topics if t != bag.STEP_TOPIC][:OTHERS]
    batch, small = os.urandom(BATCH_BYTES), os.urandom(OTHER_BYTES)
    out = []
    for _ in range(splits):
        for _ in range(STEP_BATCHES):
            writer.write(step, time.time_ns(), batch)
        for topic in others:
            writer.write(topic, time.time_ns(), small)
        t0 = time.perf_counter()
        writer.rotate()
        out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", type=int, default=300, help="episodes committed into one bag (default 300)")
    args = ap.parse_args()
    if args.splits < 10:
        ap.error("--splits must be at least 10")
    marks = sorted({1, 10, args.splits // 3, 2 * args.splits // 3, args.splits})
    print(f"commit of one episode-sized split, ms (mean of up to 5 commits around each bag size), {args.splits} splits")
    print(f"{'splits in the bag':>18} | {'shipped':>9} | {'before':>9} | ratio")
    with tempfile.TemporaryDirectory(prefix="bench_commit_") as tmp:
        fast = commits(Path(tmp) / "fast", args.splits)
        with the_code_before():
            slow = commits(Path(tmp) / "slow", args.splits)
        fast_meta, slow_meta = (bag.bag_metadata(Path(tmp) / name) for name in ("fast", "slow"))
    keys = ("message_count", "topics_with_message_count", "custom_data")
    same = all(fast_meta[k] == slow_meta[k] for k in keys) and len(fast_meta["files"]) == len(slow_meta["files"])
    for m in marks:
        window = slice(max(0, m - 3), min(args.splits, m + 2))
        f, s = (1000 * sum(x[window]) / len(x[window]) for x in (fast, slow))
        print(f"{m:>18} | {f:>9.1f} | {s:>9.1f} | {s / f:.1f}x")
    print(f"all {args.splits} commits: {sum(fast):.1f} s shipped, {sum(slow):.1f} s as before")
    print(f"both metadata.yaml list the same splits, topics and counts: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
