"""The plain launcher: a dying node stops the graph with a clear message."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from alpha_matrix.launcher import graph_env
from conftest import next_domain_id, wait_until


def test_killing_one_node_stops_the_graph(start_graph):
    g = start_graph()
    wait_until(lambda: g.log.has("[sim_bridge]") and g.node.count_publishers("robot/step_batch") > 0, 30, "the graph")
    oracle = g.launcher.procs["oracle"]
    assert g.launcher.exited() == {}
    oracle.send_signal(signal.SIGKILL)
    wait_until(lambda: g.launcher.exited(), 10, "the oracle's exit")
    assert g.launcher.exited() == {"oracle": "was killed by signal 9"}  # what a benchmark driving the graph reports
    assert g.launcher.wait() == 1
    assert g.log.has("alpha-matrix: node 'oracle' was killed by signal 9; stopping the graph")
    assert all(p.poll() is not None for p in g.launcher.procs.values())


def _shm_mappings(pid: int) -> list[str]:
    """The Fast DDS shared-memory segments and ports a process has mapped."""
    return [
        line.split()[-1] for line in Path(f"/proc/{pid}/maps").read_text().splitlines() if "/dev/shm/fastdds" in line
    ]


def test_the_graph_talks_over_udp_without_shared_memory(start_graph):
    """Every node, and this process's own participant, discovers and answers with no Fast DDS
    shared-memory port mapped: a port rebuilt under load loses messages for good (ros/transport.py)."""
    from alpha_matrix_interfaces.srv import Observe

    from alpha_matrix.ros.services import call_service

    g = start_graph()
    wait_until(lambda: g.node.count_publishers("robot/step_batch") > 0, 30, "the graph")
    reply = call_service(g.node.create_client(Observe, "robot/observe"), Observe.Request(), 30)
    assert reply.step == 0  # a round trip to sim_bridge (no episode yet)
    pids = {name: proc.pid for name, proc in g.launcher.procs.items()} | {"this test": os.getpid()}
    assert {name: _shm_mappings(pid) for name, pid in pids.items() if _shm_mappings(pid)} == {}


def test_node_failing_at_start_is_named(start_graph, tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    monkeypatch.setenv("ALPHA_MATRIX_FAILURE_DIR", str(tmp_path / "failures"))  # as .ci/run sets it
    g = start_graph({"episode_runner": {"runs_dir": str(blocker)}}, exclude=())
    assert g.launcher.wait() == 1
    assert g.log.has("episode_runner: error:")
    assert g.log.has("alpha-matrix: node 'episode_runner' exited with code 2; stopping the graph")
    # The failure log: the whole graph's output, with the stacks of the nodes still up at the failure.
    (log,) = (tmp_path / "failures").iterdir()
    text = log.read_text()
    assert "episode_runner: error:" in text and "[sim_bridge] " in text and "(most recent call first)" in text
    assert g.log.has(f"with each node's stacks at the failure: {log}")
    # The cause again at the very end, after every other node's shutdown output and stacks.
    tail = "\n".join(g.log.lines).rsplit("alpha-matrix: node 'episode_runner' exited with code 2; its last lines:", 1)[
        1
    ]
    assert "episode_runner: error:" in tail and "[sim_bridge]" not in tail


def _nodes_on_domain(domain_id: int) -> list[int]:
    pids = []
    for proc in Path("/proc").iterdir():
        try:
            cmd = (proc / "cmdline").read_bytes()
            env = (proc / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"alpha_matrix.nodes" in cmd and f"ROS_DOMAIN_ID={domain_id}".encode() in env:
            pids.append(int(proc.name))
    return pids


def test_nodes_die_with_a_killed_launcher():
    """An orphaned node would keep serving its domain and silently join the next graph there."""
    domain_id = next_domain_id()
    launcher = subprocess.Popen(
        [sys.executable, "-m", "alpha_matrix.cli", "launch", "--exclude", "episode_runner"],
        env=graph_env(domain_id),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(lambda: len(_nodes_on_domain(domain_id)) >= 5, 30, "the node processes")
        launcher.kill()
        launcher.wait(timeout=10)
        wait_until(lambda: not _nodes_on_domain(domain_id), 30, "every node to exit with its launcher")
    finally:
        if launcher.poll() is None:
            launcher.kill()
        for pid in _nodes_on_domain(domain_id):
            os.kill(pid, signal.SIGKILL)
