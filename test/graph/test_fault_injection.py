"""Faults injected into the tool itself: signals to every node type, kill -9 mid-run, resume, audit.

What a launcher (ros2 launch, the plain launcher, a shell's Ctrl-C, systemd) does to a graph:
SIGINT or SIGTERM to every node at any moment, sometimes a second signal while the first is
being handled. Every node must exit 0 without a traceback, having flushed what it owns. And a
node killed outright (SIGKILL) mid-run must leave a run that resumes with the same command and
audits clean, the interrupted attempt reported as such.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
from pathlib import Path

import pytest

from alpha_matrix.core.graph import resolve_graph
from alpha_matrix.launcher import Launcher, graph_env
from alpha_matrix.suite_cli import suite_graph
from conftest import CONFIG, Captured, next_domain_id, wait_until

GRAPH_UP_S = 120.0


def _launch(graph) -> tuple[Launcher, Captured]:  # noqa: ANN001 - a resolved Graph
    log = Captured()
    launcher = Launcher(graph, graph_env(next_domain_id()), out=log)
    launcher.start()
    return launcher, log


def _signal_all(launcher: Launcher, first: int, second: int | None = None) -> dict[str, int]:
    """Send ``first`` to every node at once (as a launcher does), ``second`` right behind it (a
    user pressing Ctrl-C twice, a launcher escalating); return each node's exit code."""
    procs = dict(launcher.procs)
    for sig in (first, second):
        if sig is None:
            continue
        for p in procs.values():
            try:
                os.killpg(p.pid, sig)
            except ProcessLookupError:
                pass
    codes = {}
    for name, p in procs.items():
        try:
            codes[name] = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            codes[name] = "still running 30 s after the signal"
            os.kill(p.pid, signal.SIGUSR1)  # its stacks into the log (faulthandler)
    return codes


def _check_clean(codes: dict[str, int], log: Captured) -> None:
    assert codes and all(c == 0 for c in codes.values()), f"{codes}\n" + "\n".join(log.lines[-150:])
    tracebacks = [line for line in log.lines if "Traceback" in line or "error while stopping" in line]
    assert not tracebacks, "\n".join(log.lines[-80:])
    # "stopped by SIGINT" - or "stopped (rclpy was shut down)" when rclpy's handler shut the node
    # down before Python ran ours
    stopped = {n for n in codes if any(line.startswith(f"[{n}] {n}: stopped") for line in log.lines)}
    assert stopped == set(codes), f"nodes that did not report the stop: {set(codes) - stopped}"


def _matrix_graph(tmp_path: Path, arms: list[str], **runner):  # noqa: ANN003, ANN202
    overrides = {
        "episode_runner": {"arms": arms, "runs_dir": str(tmp_path / "runs"), "run_id": "sig", **runner},
        "recorder": {"bags_dir": str(tmp_path / "bags"), "run_id": "sig"},
    }
    return resolve_graph(CONFIG, overrides)


@pytest.mark.parametrize(("first", "second"), [(signal.SIGINT, signal.SIGTERM), (signal.SIGTERM, None)])
def test_every_matrix_node_exits_0_on_a_signal_mid_episode(tmp_path, first, second):
    graph = _matrix_graph(tmp_path, ["oracle", "oracle-text"], episodes=20, fault="F1+F2", intensity=0.5)
    launcher, log = _launch(graph)
    try:
        wait_until(lambda: log.has("[1/"), GRAPH_UP_S, "the first episode")  # the second one is running
        codes = _signal_all(launcher, first, second)
    finally:
        launcher.close()
    _check_clean(codes, log)
    assert log.has("recorder: bag closed")  # the recorder flushed its bag
    assert not (launcher._done_file("episode_runner")).exists()  # a stopped job does not say "done"


def test_every_node_exits_0_on_a_signal_while_idle_the_llm_planner_included(tmp_path):
    graph = resolve_graph(
        CONFIG,
        {
            "episode_runner": {"arms": ["llm"]},
            "llm_planner": {"backend": "llamacpp"},
            "recorder": {"bags_dir": str(tmp_path)},
        },
        exclude=("episode_runner",),
    )
    assert "llm_planner" in {n.name for n in graph.nodes}
    launcher, log = _launch(graph)
    try:
        wait_until(lambda: log.has("[recorder]") and log.has("[llm_planner]"), GRAPH_UP_S, "the graph to come up")
        codes = _signal_all(launcher, signal.SIGTERM)
    finally:
        launcher.close()
    _check_clean(codes, log)


@pytest.mark.parametrize(
    ("suite", "first"), [("proximity", signal.SIGINT), ("confidence", signal.SIGTERM), ("alerts", signal.SIGINT)]
)
def test_every_suite_node_exits_0_on_a_signal_mid_scenario(tmp_path, suite, first):
    bags = f"recorder.bags_dir={tmp_path / 'bags'}"
    args = argparse.Namespace(
        suite=suite, config=None, scenarios=None, set=[bags], run_id="sig", runs_dir=str(tmp_path / "runs")
    )
    graph, _run_dir = suite_graph(args)
    launcher, log = _launch(graph)
    try:
        wait_until(lambda: log.has("[suite_runner] ["), GRAPH_UP_S, "the first scenario")
        codes = _signal_all(launcher, first, signal.SIGTERM)
    finally:
        launcher.close()
    _check_clean(codes, log)
