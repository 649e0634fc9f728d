"""Merging a shard computed elsewhere (a Ray task) into the run: idempotent, refused when foreign."""

from __future__ import annotations

import io
import tarfile

import pytest
from test_records import make

from alpha_matrix.cli import build_parser
from alpha_matrix.cli.common import rerun_argv
from alpha_matrix.core.errors import RecordError
from alpha_matrix.core.records import RunStore
from alpha_matrix.core.shards import (
    ShardResult,
    bag_dir_for,
    merge_records,
    pack_bag,
    run_files,
    tar_member,
    unpack_bag,
)

HASH = "a" * 64


def shard(tmp_path, index, ids, config_hash=HASH) -> ShardResult:
    d = tmp_path / f"shard{index}"
    store = RunStore(d, config_hash)
    for eid in ids:
        store.append(make(eid))
    return ShardResult(index, (d / "manifest.json").read_bytes(), (d / "episodes.jsonl").read_bytes(), b"")


def test_a_shard_merges_once_and_a_retried_or_resumed_one_adds_nothing(tmp_path):
    run_dir = tmp_path / "run"
    assert merge_records(run_dir, HASH, shard(tmp_path, 0, ["oracle-0000", "oracle-0002"])) == 2
    assert merge_records(run_dir, HASH, shard(tmp_path, 1, ["oracle-0001"])) == 1
    assert merge_records(run_dir, HASH, shard(tmp_path, 2, ["oracle-0000", "oracle-0002"])) == 0  # the retry
    lines = (run_dir / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 3 and set(RunStore.read_only(run_dir)) == {"oracle-0000", "oracle-0001", "oracle-0002"}
    assert set(run_files(run_dir)) == {"manifest.json", "episodes.jsonl"}  # what a resumed shard starts from


def test_a_shard_of_another_config_is_refused_and_nothing_is_written(tmp_path):
    run_dir = tmp_path / "run"
    merge_records(run_dir, HASH, shard(tmp_path, 0, ["oracle-0000"]))
    before = (run_dir / "episodes.jsonl").read_bytes()
    with pytest.raises(RecordError, match="not merged"):
        merge_records(run_dir, HASH, shard(tmp_path, 1, ["oracle-0001"], config_hash="b" * 64))
    assert (run_dir / "episodes.jsonl").read_bytes() == before


def test_a_later_attempt_of_a_shard_never_overwrites_its_earlier_bag(tmp_path):
    bag = tmp_path / "bag"
    (bag / "sub").mkdir(parents=True)
    (bag / "metadata.yaml").write_text("x: 1\n")
    (bag / "sub" / "a.mcap").write_bytes(b"\x00" * 10)
    data = pack_bag(bag)
    run = tmp_path / "bags" / "r"
    first = bag_dir_for(run, 3, b"x: 1\n")
    assert first is not None
    unpack_bag(data, first)
    assert bag_dir_for(run, 3, tar_member(data, "metadata.yaml")) is None  # the same bag again: not copied twice
    second = bag_dir_for(run, 3, b"x: 2\n")  # a later attempt's bag
    assert second is not None
    unpack_bag(data, second)
    assert (first.name, second.name, getattr(bag_dir_for(run, 3, b"x: 3\n"), "name", "")) == (
        "worker-3",
        "worker-3.2",
        "worker-3.3",
    )
    assert (second / "sub" / "a.mcap").read_bytes() == b"\x00" * 10


@pytest.mark.parametrize("name", ["../evil", "/etc/evil"])
def test_a_bag_member_outside_the_bag_is_refused(tmp_path, name):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(RecordError, match="not a plain file inside"):
        unpack_bag(buf.getvalue(), tmp_path / "dest")
    assert not (tmp_path / "dest").exists() and not (tmp_path / "evil").exists()


def test_the_shard_command_line_repeats_the_run_without_the_dropped_options():
    argv = [
        "run",
        "--arms",
        "oracle,llm:qwen3",
        "--episodes",
        "7",
        "--matrix",
        "--set",
        "chaos.x=1",
        "--external",
        "sim_bridge",
        "--workers",
        "3",
        "--ray",
        "10.0.0.1:6379",
        "--domain-id",
        "9",
    ]
    args = build_parser().parse_args(argv)
    args.set = args.set + args.set_after
    again = rerun_argv(args, {"ray", "workers", "domain_id", "runs_dir", "run_id"})
    assert again[0] == "run" and "--ray" not in again and "--workers" not in again and "--domain-id" not in again
    parsed = build_parser().parse_args(again)
    for key in ("arms", "episodes", "matrix", "external", "set_after"):
        want = getattr(args, key)
        got = getattr(parsed, key) if key != "set_after" else parsed.set + parsed.set_after
        assert got == (want if key != "set_after" else args.set), key
    assert parsed.ray is None


def test_a_sharded_suite_run_is_audited_across_its_bags():
    from alpha_matrix.core.suites.audit_common import UNBACKED, across_bags
    from alpha_matrix.core.suites.suite import SuiteAudit

    def unbacked(eid: str) -> SuiteAudit:
        return SuiteAudit(eid, 0, 0, 0, (UNBACKED,))

    bag0 = [SuiteAudit("a", 5, 1, 1, ()), unbacked("b"), unbacked("c")]
    bag1 = [SuiteAudit("b", 5, 1, 1, ()), unbacked("a"), unbacked("c")]
    merged = across_bags([bag0, bag1])
    assert [(a.episode_id, a.ok) for a in merged] == [("a", True), ("b", True), ("c", False)]  # c in no bag: once
    assert [a.episode_id for a in across_bags([bag0], whole_run=False)] == ["a"]  # one worker bag of several
