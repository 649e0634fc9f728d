"""The recorder's splits are zstd-compressed MCAP that both readers the project relies on open
(rosbags, as the audit reads, and the ``mcap`` library with its ROS 2 decoder, as Foxglove
does), byte for byte what was written; crash behaviour (closed splits readable, the open one
unlisted, a truncated one named) is the same as with uncompressed splits."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory

from alpha_matrix.core.bag import (
    BadSplit,
    SplitBagWriter,
    bag_splits,
    make_typestore,
    read_bag,
    unlisted_splits,
)

TOPICS = {"/clock": "rosgraph_msgs/msg/Clock", "/camera/depth/image_raw": "sensor_msgs/msg/Image"}
STORE = make_typestore()


def _messages(n: int) -> list[tuple[str, int, bytes]]:
    """``n`` clock + depth image pairs; the images half constant, half seeded noise (like a frame)."""
    gen = np.random.default_rng(7)
    out = []
    for k in range(n):
        clock = STORE.types[TOPICS["/clock"]](clock=STORE.types["builtin_interfaces/msg/Time"](sec=k, nanosec=0))
        out.append(("/clock", 10 * k + 1, STORE.serialize_cdr(clock, TOPICS["/clock"])))
        depth = np.full((60, 80), 4.5, np.float32)
        depth[30:] += gen.normal(0.0, 0.02, (30, 80)).astype(np.float32)
        header = STORE.types["std_msgs/msg/Header"](
            stamp=STORE.types["builtin_interfaces/msg/Time"](sec=k, nanosec=0), frame_id=f"f{k}"
        )
        image = STORE.types[TOPICS["/camera/depth/image_raw"]](
            header=header, height=60, width=80, encoding="32FC1", is_bigendian=0, step=320,
            data=np.frombuffer(depth.tobytes(), np.uint8),
        )  # fmt: skip
        out.append(
            ("/camera/depth/image_raw", 10 * k + 2, STORE.serialize_cdr(image, TOPICS["/camera/depth/image_raw"]))
        )
    return out


def _write(bag_dir: Path, msgs: list[tuple[str, int, bytes]], compress: bool, per_split: int = 10) -> SplitBagWriter:
    w = SplitBagWriter(bag_dir, TOPICS, compress=compress)
    for i, (topic, ts, raw) in enumerate(msgs, 1):
        w.write(topic, ts, raw)
        if i % per_split == 0:
            w.rotate()
    return w


def _mcap_read(path: Path) -> tuple[set[str], list[tuple[str, int, bytes]], int]:
    """(chunk compressions, raw messages, messages the ROS 2 decoder decoded) via the mcap library."""
    with path.open("rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        summary = reader.get_summary()
        assert summary is not None
        kinds = {c.compression for c in summary.chunk_indexes}
        raw = [(ch.topic, m.log_time, m.data) for _s, ch, m in reader.iter_messages(log_time_order=False)]
        f.seek(0)
        decoded = sum(1 for _ in make_reader(f, decoder_factories=[DecoderFactory()]).iter_decoded_messages())
    return kinds, raw, decoded


def test_splits_are_zstd_chunks_that_rosbags_and_mcap_read_back_exactly(tmp_path: Path) -> None:
    msgs = _messages(20)
    _write(tmp_path / "z", msgs, compress=True).close()
    _write(tmp_path / "raw", msgs, compress=False).close()
    for name, compression in (("z", "zstd"), ("raw", "")):
        splits = bag_splits(tmp_path / name)
        assert len(splits) == 4
        mcap_msgs, decoded = [], 0
        for split in splits:
            kinds, raw, n = _mcap_read(split)
            assert kinds == {compression}
            mcap_msgs += raw
            decoded += n
        assert mcap_msgs == msgs and decoded == len(msgs)
        meta = yaml.safe_load((tmp_path / name / "metadata.yaml").read_text())["rosbag2_bagfile_information"]
        assert (meta["compression_mode"], meta["storage_identifier"]) == ("", "mcap")  # rosbag2: storage's own
    via_rosbags = [(t, ts, STORE.serialize_cdr(m, TOPICS[t])) for t, ts, m in read_bag(tmp_path / "z")]
    assert via_rosbags == msgs
    size = {n: sum(p.stat().st_size for p in bag_splits(tmp_path / n)) for n in ("z", "raw")}
    assert size["z"] < 0.8 * size["raw"]


def test_crash_behaviour_is_unchanged_by_compression(tmp_path: Path) -> None:
    msgs = _messages(20)
    w = _write(tmp_path / "b", msgs[:35], compress=True)  # three closed splits, one open: a crash here
    assert w.pending == 5 and [p.name for p in unlisted_splits(tmp_path / "b")] == [".split-0003"]
    assert [(t, ts) for t, ts, _ in read_bag(tmp_path / "b")] == [(t, ts) for t, ts, _ in msgs[:30]]
    last = bag_splits(tmp_path / "b")[-1]
    last.write_bytes(last.read_bytes()[: last.stat().st_size // 2])  # truncated mid-chunk
    bad: list[BadSplit] = []
    assert len(list(read_bag(tmp_path / "b", bad))) == 20 and [b.path for b in bad] == [last]
    with pytest.raises(Exception, match="unreadable bag"):
        list(read_bag(tmp_path / "b"))
    resumed = SplitBagWriter(tmp_path / "b", TOPICS)  # a later run appends after the listed splits
    for topic, ts, raw in msgs[35:]:
        resumed.write(topic, ts, raw)
    resumed.close()
    assert [p.name for p in bag_splits(tmp_path / "b")][-1] == "b_3.mcap"
