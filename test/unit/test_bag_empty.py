"""A recorder's bag that recorded nothing (a graph stopped at start-up, an idle `launch`) leaves no directory."""

from __future__ import annotations

from alpha_matrix.core.bag import SplitBagWriter


def test_a_bag_that_recorded_nothing_leaves_no_directory(tmp_path):
    topics = {"/clock": "rosgraph_msgs/msg/Clock"}
    empty = SplitBagWriter(tmp_path / "bags" / "run-a", topics)
    assert (tmp_path / "bags" / "run-a").is_dir()  # made at start: an unwritable place fails the start
    empty.close()
    assert not (tmp_path / "bags").exists()  # the directories it made, gone again
    used = SplitBagWriter(tmp_path / "bags" / "run-b", topics)
    used.write("/clock", 1, bytes.fromhex("0001000000000000000000000000"))
    used.close()
    assert (tmp_path / "bags" / "run-b" / "metadata.yaml").exists()
    again = SplitBagWriter(tmp_path / "bags" / "run-b", topics)  # a resumed bag: it holds a run's steps
    again.close()
    assert (tmp_path / "bags" / "run-b" / "metadata.yaml").exists()
