"""`ros2 launch` itself, as a user runs it: the exit code says how the run ended."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
from launch_env import lease_domain, require_tools

from alpha_matrix.launcher import graph_env

require_tools()

ROS2 = Path(sys.executable).parent / "ros2"
NODES = ["sim_bridge", "safety_monitor", "recorder", "chaos", "oracle", "executive", "episode_runner", "scene_markers"]


def _launch(tmp: Path, *args: str) -> subprocess.Popen[bytes]:
    cmd = [str(ROS2), "launch", "alpha_matrix", "alpha_matrix.launch.py", *args]
    with open(tmp / "launch.log", "wb") as out:  # a file: a pipe nobody reads could stall the run
        return subprocess.Popen(cmd, cwd=tmp, env=graph_env(lease_domain()), stdout=out, stderr=subprocess.STDOUT)


def _log(tmp: Path) -> str:
    return (tmp / "launch.log").read_text(errors="replace")


def _finished_cleanly(log: str) -> set[str]:
    return {m for m in re.findall(r"\[INFO\] \[(\w+)-\d+\]: process has finished cleanly", log)}


def _stacks_of_the_slow(tmp: Path, nodes: list[psutil.Process], grace_s: float = 4.0) -> None:
    """A node still up ``grace_s`` after the launch sent SIGINT prints its threads' stacks into the
    launch log (faulthandler on SIGUSR1, lifecycle.py): a hang names where it waits."""
    deadline = time.monotonic() + 60
    while "sending signal 'SIGINT'" not in _log(tmp) and time.monotonic() < deadline:
        time.sleep(0.05)
    _gone, alive = psutil.wait_procs(nodes, timeout=grace_s)
    for p in alive:
        with contextlib.suppress(psutil.Error):
            p.send_signal(signal.SIGUSR1)


def test_a_run_ends_with_0_and_every_process_clean(tmp_path: Path) -> None:
    proc = _launch(tmp_path, "episodes:=3", "run_id:=ok")
    assert proc.wait(timeout=300) == 0, _log(tmp_path)[-3000:]
    log = _log(tmp_path)
    assert "success: 3/3" in log and _finished_cleanly(log) == set(NODES), log[-3000:]
    assert (tmp_path / "runs" / "ok" / "episodes.jsonl").exists() and (tmp_path / "bags" / "ok").is_dir()
    _check_quiet(log)


def _check_quiet(log: str) -> None:
    """No traceback, no C chatter (pybullet's banner: to the node's log), no line per node stopping."""
    for word in ("Traceback", "pybullet build time", "b3Warning", ": stopped by SIG", "Failed to publish", "fatal"):
        assert word not in log, log[-3000:]


def test_ctrl_c_on_an_idle_launch_is_quiet_and_leaves_no_empty_bag(tmp_path: Path) -> None:
    """A terminal's Ctrl-C (SIGINT to the launch and its nodes, one process group) on a graph that
    recorded nothing: every node stops cleanly and no empty bags/<run id> is left behind."""
    cmd = [str(ROS2), "launch", "alpha_matrix", "alpha_matrix.launch.py", "external:=episode_runner", "run_id:=idle"]
    with open(tmp_path / "launch.log", "wb") as out:
        proc = subprocess.Popen(
            cmd,
            cwd=tmp_path,
            env=graph_env(lease_domain()),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120  # the graph is up: the recorder records, the bridge is ready
        while not ("recording" in _log(tmp_path) and "[sim_bridge" in _log(tmp_path) and "ready:" in _log(tmp_path)):
            assert proc.poll() is None and time.monotonic() < deadline, _log(tmp_path)[-3000:]
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    log = _log(tmp_path)
    _check_quiet(log)
    assert _finished_cleanly(log) == set(NODES) - {"episode_runner"}, log[-3000:]
    assert not (tmp_path / "bags" / "idle").exists() and not (tmp_path / "bags").exists(), log[-3000:]


def test_a_node_killed_mid_run_ends_the_launch_non_zero_naming_it(tmp_path: Path) -> None:
    proc = _launch(tmp_path, "episodes:=200", "run_id:=killed")
    try:
        deadline = time.monotonic() + 240  # the first episode recorded: the run is under way
        while "] oracle-0000 " not in _log(tmp_path):
            assert proc.poll() is None and time.monotonic() < deadline, _log(tmp_path)[-3000:]
            time.sleep(0.05)
        (oracle,) = [c for c in psutil.Process(proc.pid).children() if any(a.endswith("/oracle") for a in c.cmdline())]
        ours = [c for c in psutil.Process(proc.pid).children() if c.pid != oracle.pid]
        oracle.send_signal(signal.SIGKILL)
        _stacks_of_the_slow(tmp_path, ours)
        code = proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    log = _log(tmp_path)
    assert code != 0 and "node 'oracle' exited with code -9; stopping the graph" in log, log[-3000:]
    assert _finished_cleanly(log) == set(NODES) - {"oracle"}, log[-3000:]  # the rest stopped cleanly
