"""A bag's metadata.yaml is rewritten at every commit and lists every split
(benchmarks/bench_commit.py): it goes through libyaml and renders only the splits it has not
listed yet, and neither changes anything on disk: the text and the data are what PyYAML's
Python paths give for the whole document."""

from __future__ import annotations

from pathlib import Path

import ruamel.yaml.main
import yaml

from alpha_matrix.core import bag
from alpha_matrix.core.bag import MetadataText, SplitBagWriter, metadata_text, parse_metadata

TOPICS = {"/clock": "rosgraph_msgs/msg/Clock", "/episode/end": "alpha_matrix_interfaces/msg/EpisodeEnd"}


def _three_splits(bag_dir: Path, splits: int = 3) -> str:
    writer = SplitBagWriter(bag_dir, TOPICS, {bag.RUN_ID_KEY: "r1"})
    for k in range(splits):
        writer.write("/clock", 100 + k, b"\x00\x01\x00\x00" + bytes(8))
        writer.rotate()
    return (bag_dir / "metadata.yaml").read_text()


def test_metadata_is_written_and_read_as_the_python_emitter_and_parser_do(tmp_path: Path) -> None:
    text = _three_splits(tmp_path / "b")
    info = yaml.safe_load(text)["rosbag2_bagfile_information"]  # PyYAML's Python parser
    assert len(info["relative_file_paths"]) == 3 and info["custom_data"] == {bag.RUN_ID_KEY: "r1"}
    assert parse_metadata(text) == info
    python_text = yaml.safe_dump({"rosbag2_bagfile_information": info}, sort_keys=False)
    assert metadata_text(info) == python_text == text  # key order kept, block style, same wrapping


def test_a_bag_reopened_for_more_episodes_keeps_its_splits(tmp_path: Path) -> None:
    _three_splits(tmp_path / "b")
    text = _three_splits(tmp_path / "b")  # a resumed run appends to the same bag
    info = parse_metadata(text)
    assert info["relative_file_paths"] == [f"b_{k}.mcap" for k in range(6)]
    assert info["message_count"] == 6


def test_only_new_splits_are_rendered_and_the_text_is_the_whole_documents(tmp_path: Path) -> None:
    name = "r" + "x" * 127  # the longest run id: paths longer than a YAML line
    text = _three_splits(tmp_path / name, splits=12)
    info = yaml.safe_load(text)["rosbag2_bagfile_information"]
    assert len(info["files"]) == 12 and info["files"][11]["path"] == f"{name}_11.mcap"
    assert text == yaml.safe_dump({"rosbag2_bagfile_information": info}, sort_keys=False)
    render = MetadataText()
    for n in (1, 2, 5, 12, 4):  # grown by one and by several splits (a resumed bag), then other lists
        part = {**info, "files": info["files"][:n], "relative_file_paths": info["relative_file_paths"][:n]}
        assert render(part) == metadata_text(part)
    assert render({**info, "files": [], "relative_file_paths": []}) == metadata_text(
        {**info, "files": [], "relative_file_paths": []}
    )


def test_libyaml_does_the_work() -> None:
    """PyYAML's C loader and dumper for our metadata.yaml, ruamel.yaml's C emitter for the one
    rosbags writes into every split (requirements.txt pins ruamel.yaml.clib): without them a
    commit costs about six times as much."""
    assert bag._YAML_LOADER is yaml.CSafeLoader and bag._YAML_DUMPER is yaml.CSafeDumper
    assert ruamel.yaml.main.CEmitter is not None
