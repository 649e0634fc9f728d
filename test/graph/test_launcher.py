"""The plain launcher: a dying node stops the graph with a clear message."""

from __future__ import annotations

import signal

from conftest import wait_until


def test_killing_one_node_stops_the_graph(start_graph):
    g = start_graph()
    wait_until(lambda: g.log.has("[sim_bridge]") and g.node.count_publishers("robot/step_batch") > 0, 30, "the graph")
    oracle = g.launcher.procs["oracle"]
    oracle.send_signal(signal.SIGKILL)
    assert g.launcher.wait() == 1
    assert g.log.has("alpha-matrix: node 'oracle' was killed by signal 9; stopping the graph")
    assert all(p.poll() is not None for p in g.launcher.procs.values())


def test_node_failing_at_start_is_named(start_graph, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    g = start_graph({"episode_runner": {"runs_dir": str(blocker)}}, exclude=())
    assert g.launcher.wait() == 1
    assert g.log.has("episode_runner: error:")
    assert g.log.has("alpha-matrix: node 'episode_runner' exited with code 2; stopping the graph")
