"""alpha-matrix bag info on small bags written with the project's SplitBagWriter (as the recorder
writes them): counts from the splits themselves, unreadable splits named, a bag still being
written described, worker bags of one run, one-line errors; and the checked-in suite bag."""

from __future__ import annotations

from pathlib import Path

import pytest

from alpha_matrix.cli import main
from alpha_matrix.core.bag import RUN_ID_KEY, BagError, SplitBagWriter, bag_splits, make_typestore
from alpha_matrix.core.bag_info import bag_info, bag_infos, format_bag_info, human_size

TOPICS = {"/clock": "rosgraph_msgs/msg/Clock", "/episode/end": "alpha_matrix_interfaces/msg/EpisodeEnd"}
STORE = make_typestore()
T0 = 1_796_107_487_000_000_000  # 2026-12-01 06:44:47 UTC
OLD_SUITE_BAG = Path(__file__).resolve().parents[1] / "bags" / "bags" / "alerts-pre-layout"


def _put(w: SplitBagWriter, t: int, episode: str | None = None) -> None:
    if episode is None:
        msg = STORE.types["rosgraph_msgs/msg/Clock"](clock=STORE.types["builtin_interfaces/msg/Time"](sec=t, nanosec=0))
        w.write("/clock", T0 + t, STORE.serialize_cdr(msg, TOPICS["/clock"]))
    else:
        msg = STORE.types[TOPICS["/episode/end"]](episode_id=episode, last_step=t)
        w.write("/episode/end", T0 + t, STORE.serialize_cdr(msg, TOPICS["/episode/end"]))


def write_bag(bag_dir: Path, episodes: int = 3, clocks: int = 4, run_id: str | None = "r") -> Path:
    """One split per episode: ``clocks`` /clock messages then its /episode/end, 1 ns apart."""
    w = SplitBagWriter(bag_dir, TOPICS, {RUN_ID_KEY: run_id} if run_id else None)
    t = 0
    for e in range(episodes):
        for _ in range(clocks):
            t += 1
            _put(w, t)
        t += 1
        _put(w, t, f"ep-{e}")
        w.rotate()
    return bag_dir


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_closed_bag_is_described_from_its_metadata_and_its_splits(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / "r", episodes=3, clocks=4)
    before = _tree(bag)
    info = bag_info(bag)
    assert _tree(bag) == before  # read-only
    assert (info.storage, info.run_id, info.kind, info.listed_messages) == ("mcap", "r", "matrix", 15)
    assert [s.messages for s in info.splits] == [5, 5, 5] and not info.bad and info.unlisted == ()
    assert [s.size for s in info.splits] == [p.stat().st_size for p in bag_splits(bag)]
    assert {t.name: (t.msgtype, t.count, t.listed) for t in info.topics} == {
        "/clock": ("rosgraph_msgs/msg/Clock", 12, 12),
        "/episode/end": ("alpha_matrix_interfaces/msg/EpisodeEnd", 3, 3),
    }
    assert (info.start_ns, info.duration_ns) == (T0 + 1, 14)
    text = format_bag_info(info)
    assert "Messages:          15\n" in text and "Run id:            r\n" in text and "UNREADABLE" not in text
    assert "Start:             2026-12-01 06:44:47.000000001 UTC (1796107487.000000001)" in text
    assert f"  r_1.mcap  {human_size(info.splits[1].size or 0)}  5 messages" in text


def test_unreadable_and_missing_splits_are_named_and_the_rest_counted(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / "r")
    first, second, _third = bag_splits(bag)
    second.write_bytes(second.read_bytes()[: second.stat().st_size // 2])  # truncated
    first.unlink()
    info = bag_info(bag)
    assert [b.path for b in info.bad] == [first, second]
    assert "not on disk" in info.bad[0].reason and info.splits[0].size is None
    assert {t.name: (t.count, t.listed) for t in info.topics} == {"/clock": (4, 12), "/episode/end": (1, 3)}
    text = format_bag_info(info)
    assert "Messages:          5 readable of 15 listed" in text and "count 4 (listed 12)" in text
    assert f"{second}: unreadable (" in text and "r_0.mcap  missing  UNREADABLE" in text


def test_a_bag_being_written_shows_its_closed_splits_and_the_open_one(tmp_path: Path) -> None:
    bag = write_bag(tmp_path / "r", episodes=1)
    w = SplitBagWriter(bag, TOPICS, {RUN_ID_KEY: "r"})  # a resumed recorder, mid-split (or killed there)
    _put(w, 100)
    info = bag_info(bag)
    assert len(info.splits) == 1 and not info.bad and [p.name for p, _ in info.unlisted] == [".split-0001"]
    assert "not listed: being written, or its recorder stopped" in format_bag_info(info)

    fresh = SplitBagWriter(tmp_path / "fresh", TOPICS, {RUN_ID_KEY: "f"})  # no split closed yet: no metadata.yaml
    _put(fresh, 1)
    (info,) = bag_infos(tmp_path / "fresh")
    assert info.splits == () and [p.name for p, _ in info.unlisted] == [".split-0000"]
    assert "none closed yet" in format_bag_info(info)


def test_a_suite_bag_is_named_by_its_topics(tmp_path: Path) -> None:
    before = _tree(OLD_SUITE_BAG)
    info = bag_info(OLD_SUITE_BAG)
    assert (info.kind, info.run_id, len(info.splits), info.bad) == ("alerts", "alerts-pre-layout", 4, [])
    assert sum(t.count for t in info.topics) == info.listed_messages == 1411
    assert _tree(OLD_SUITE_BAG) == before


def test_cli_bag_info(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_bag(Path("bags/r"))
    assert main(["bag", "info", "bags/r"]) == 0
    out = capsys.readouterr().out
    assert (
        out.startswith("Bag:               bags/r\nFiles:             3 splits") and "Kind:              matrix" in out
    )

    for w in range(2):
        write_bag(Path(f"bags/w/worker-{w}"), episodes=w + 1, run_id="w")
    assert main(["bag", "info", "bags/w"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bags/w: the bag folder of a --workers run, 2 worker bags\n")
    assert "Bag:               bags/w/worker-0" in out and "Bag:               bags/w/worker-1" in out

    split = bag_splits(Path("bags/r"))[2]
    split.write_bytes(b"not an mcap")
    assert main(["bag", "info", "bags/r"]) == 1  # a finding, as in audit
    assert f"{split}: unreadable (" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda p: None, "b: no such bag"),
        (lambda p: p.mkdir(), "b: not a bag (no metadata.yaml, and no worker-k bags in it)"),
        (lambda p: (p.mkdir(), (p / "metadata.yaml").write_text("[")), "b/metadata.yaml: unreadable bag metadata"),
    ],
)
def test_cli_bag_info_user_errors_are_one_line_exit_2(
    setup, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:  # noqa: ANN001 - a lambda per case
    monkeypatch.chdir(tmp_path)
    setup(Path("b"))
    assert main(["bag", "info", "b"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(f"alpha-matrix: error: {message}")
    assert len(captured.err.splitlines()) == 1
    with pytest.raises(BagError):
        bag_infos(Path("b"))


def test_a_bag_of_many_splits_is_summed_up_and_names_no_distro_it_lacks(tmp_path: Path, capsys) -> None:
    """Issue 47: a 150-episode bag listed all its splits and "ROS distro: rosbags"."""
    bag = write_bag(tmp_path / "r", episodes=20, clocks=1)
    bag_splits(bag)[9].write_bytes(b"not mcap")  # an unreadable split in the middle is still named
    text = format_bag_info(bag_info(bag))
    listed = [line for line in text.splitlines() if line.startswith("  r_")]
    assert [line.split()[0] for line in listed] == ["r_0.mcap", "r_1.mcap", "r_2.mcap", "r_3.mcap", "r_4.mcap",
                                                   "r_9.mcap", "r_17.mcap", "r_18.mcap", "r_19.mcap"]  # fmt: skip
    assert "  ... 11 more splits (r_5.mcap .. r_16.mcap)" in text and "22 messages, all readable" in text
    assert "ROS distro:        rosbags" not in text and "ROS distro:        none recorded" in text
    assert main(["bag", "info", "--splits", str(bag)]) == 1  # the unreadable split: a finding
    assert sum(line.startswith("  r_") for line in capsys.readouterr().out.splitlines()) == 20
