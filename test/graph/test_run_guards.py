"""Two runs at once never mix: a held run directory or a busy ROS domain is refused up front."""

from __future__ import annotations

import json

from conftest import run_cli, start_cli, wait_until


def test_a_second_run_with_the_same_run_id_is_refused_and_the_first_completes(tmp_path):
    runs, log = tmp_path / "runs", tmp_path / "first.log"
    first = start_cli(["run", "--episodes", "2", "--runs-dir", str(runs), "--run-id", "t"], tmp_path, log)
    try:
        wait_until(lambda: (runs / ".t.lock").exists() or first.poll() is not None, 60, "the first run's lock")
        assert first.poll() is None, log.read_text()
        second = run_cli(["run", "--episodes", "2", "--runs-dir", str(runs), "--run-id", "t"], tmp_path)
        assert second.returncode == 2, second.stdout + second.stderr
        assert second.stderr.count("\n") == 1 and f"in use by a live run (pid {first.pid})" in second.stderr
        assert second.stdout == ""  # refused before any node started
        first.wait(timeout=300)
    finally:
        if first.poll() is None:
            first.kill()
    out = log.read_text()
    assert first.returncode == 0, out[-3000:]
    assert "success: 2/2" in out
    ids = [json.loads(line)["episode_id"] for line in (runs / "t" / "episodes.jsonl").read_text().splitlines()]
    assert ids == ["oracle-0000", "oracle-0001"]
    assert sorted(p.name for p in runs.iterdir()) == ["t"]  # the lock went with its run


def test_a_run_on_a_domain_where_a_graph_is_up_is_refused(start_graph, tmp_path):
    g = start_graph()
    wait_until(lambda: "sim_bridge" in g.node.get_node_names(), 30, "the graph on its domain")
    r = run_cli(["run", "--episodes", "1", "--domain-id", str(g.domain_id)], tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith(f"alpha-matrix: error: ROS domain {g.domain_id} already has nodes of this graph up (")
    seen = r.stderr.split(" up (", 1)[1].split(")", 1)[0].split(", ")
    assert set(seen) <= {n.name for n in g.graph.nodes} and seen, r.stderr  # the nodes seen are named
    assert r.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # no runs/, no bags/
    assert all(p.poll() is None for p in g.launcher.procs.values())  # the running graph is untouched
