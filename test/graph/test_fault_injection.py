"""Faults injected into the tool itself: signals to every node type, kill -9 mid-run, resume, audit.

What a launcher (ros2 launch, the plain launcher, a shell's Ctrl-C, systemd) does to a graph:
SIGINT or SIGTERM to every node at any moment, sometimes a second signal while the first is
being handled. Every node must exit 0 without a traceback, having flushed what it owns. And a
node killed outright (SIGKILL) mid-run must leave a run that resumes with the same command and
audits clean, the interrupted attempt reported as such.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
import yaml

from alpha_matrix.cli.suite import suite_graph
from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.launcher import Launcher, graph_env
from alpha_matrix.ros.shm import stale_shm
from alpha_matrix.ros.transport import PROFILE_ENV, localhost_udp, profile_path
from conftest import CONFIG, Captured, next_domain_id, run_cli, start_cli, wait_until

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


# What a node stopped mid-work must never print: a traceback, a callback's failure logged as fatal,
# a log line or message sent on a context the stop already shut down, a failed flush.
UNCLEAN = ("Traceback", "fatal:", "Failed to publish", "error while stopping")


def _check_clean(codes: dict[str, int], log: Captured) -> None:
    """Every node exited 0 (its own handler ran: a node killed by the signal would be negative),
    quietly: a stop is said at debug level only (ros/lifecycle.py)."""
    assert codes and all(c == 0 for c in codes.values()), f"{codes}\n" + "\n".join(log.lines[-150:])
    unclean = [line for line in log.lines if any(word in line for word in UNCLEAN)]
    assert not unclean, "\n".join(log.lines[-80:])
    assert not any(": stopped by SIG" in line for line in log.lines)  # not one line per node


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
    ("suite", "first", "agent"),
    [
        ("proximity", signal.SIGINT, None),
        ("proximity", signal.SIGTERM, "reference"),  # the agent and its link too
        ("confidence", signal.SIGTERM, "reference"),  # the executive asking the agent
        ("alerts", signal.SIGINT, "reference"),  # alert_guard's agent worker thread
    ],
)
def test_every_suite_node_exits_0_on_a_signal_mid_scenario(tmp_path, suite, first, agent):
    bags = f"recorder.bags_dir={tmp_path / 'bags'}"
    args = argparse.Namespace(
        suite=suite, config=None, scenarios=None, set=[bags], run_id="sig", runs_dir=str(tmp_path / "runs"), agent=agent
    )
    graph, _run_dir = suite_graph(args)
    if agent:
        assert "agent" in {n.name for n in graph.nodes}
    launcher, log = _launch(graph)
    try:
        wait_until(lambda: log.has("[suite_runner] ["), GRAPH_UP_S, "the first scenario")
        codes = _signal_all(launcher, first, signal.SIGTERM)
    finally:
        launcher.close()
    _check_clean(codes, log)


def _node_pid(parent: int, executable: str) -> int | None:
    """The pid of the node process ``executable`` started by the launcher process ``parent``."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
        if ppid == parent and f"alpha_matrix.nodes.{executable}".encode() in cmdline:
            return int(stat.parent.name)
    return None


def _progressed(log: Path, progress: str) -> bool:
    """A line saying this attempt recorded an episode (not one found recorded already)."""
    return any(progress in line and "already recorded" not in line for line in log.read_text().splitlines())


def _kill_each_then_resume(tmp_path: Path, args: list[str], nodes: list[str], progress: str) -> str:
    """Run ``args`` once per node type, kill -9 that node once the run is under way, then run the
    same command to the end; return the final run's output."""
    for n, node in enumerate(nodes):
        log = tmp_path / f"kill-{n}-{node}.log"
        cli = start_cli(args, tmp_path, log)
        try:
            # the first record of this attempt is written: the next episode is under way
            wait_until(lambda lg=log, c=cli: _progressed(lg, progress) or c.poll() is not None, 240, "progress")
            assert cli.poll() is None, log.read_text()[-3000:]
            pid = _node_pid(cli.pid, node)
            assert pid is not None, f"no {node} process under the launcher"
            os.kill(pid, signal.SIGKILL)
            assert cli.wait(timeout=120) == 1, log.read_text()[-3000:]
        finally:
            if cli.poll() is None:
                cli.kill()
        out = log.read_text()
        assert "' was killed by signal 9; stopping the graph" in out, out[-3000:]  # named by node name
        assert "Traceback" not in out, out[-3000:]  # the other nodes stopped cleanly
        stale, fresh = stale_shm()
        left = set(stale) | set(fresh)  # the killed node's DDS shared-memory files, its lock gone with it
        if not OVER_UDP:  # our UDP profile (ros/transport.py) opens no shared memory at all
            assert left, "a node killed with -9 left no shared-memory files: is this still Fast DDS?"
    done = run_cli(args, tmp_path, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    stale, fresh = stale_shm()
    assert not left & (set(stale) | set(fresh))  # removed before the next graph started (ros/shm.py)
    return done.stdout


def _audit(tmp_path: Path, bag: str) -> str:
    audit = run_cli(["audit", f"bags/{bag}"], tmp_path)
    assert audit.returncode == 0, audit.stdout[-4000:] + audit.stderr
    assert "MISMATCH" not in audit.stdout
    return audit.stdout


# The graph talks over our UDP profile unless this environment chose another transport.
OVER_UDP = localhost_udp(os.environ).get(PROFILE_ENV) == str(profile_path())
MATRIX_NODES = ["sim_bridge", "safety_monitor", "chaos", "oracle", "executive", "episode_runner", "recorder"]


@pytest.mark.soak
def test_kill_9_of_each_matrix_node_then_resume_audits_clean_with_the_interrupted_attempts(tmp_path):
    args = ["run", "--arms", "oracle,oracle-text", "--episodes", "6", "--fault", "F1+F2", "--intensity", "0.5"]
    args += ["--run-id", "k9"]
    out = _kill_each_then_resume(tmp_path, args, MATRIX_NODES, "[episode_runner] [1/")
    assert "success: " in out
    records = (tmp_path / "runs" / "k9" / "episodes.jsonl").read_text().splitlines()
    assert len(records) == len(set(records)) == 12  # every episode once, none lost, none twice
    audit = _audit(tmp_path, "k9")
    assert "12/12 episodes match" in audit
    assert "interrupted attempt" in audit  # the killed episodes' partial streams, named, not audited


@pytest.mark.soak
@pytest.mark.parametrize(
    ("suite", "nodes"),
    [
        ("proximity", ["proximity_bridge", "proximity_detector", "proximity_executive"]),  # suite_runner: below
        ("proximity-agent", ["agent", "proximity_agent_link"]),  # --agent reference
        ("confidence", ["suite_bridge", "skill_confidence", "skill_executive"]),
        ("alerts", ["alert_source", "alert_guard", "alert_executive", "suite_runner"]),
    ],
)
def test_kill_9_of_each_suite_node_then_resume_audits_clean(tmp_path, suite, nodes):
    suite, _, variant = suite.partition("-")
    scenarios = _small_scenarios(suite, len(nodes) + 1, tmp_path)
    args = ["suite", suite, "--scenarios", str(scenarios), "--run-id", f"k9-{suite}"]
    args += ["--agent", "reference"] if variant == "agent" else []
    _kill_each_then_resume(tmp_path, args, nodes, "[suite_runner] [")
    records = (tmp_path / "runs" / f"k9-{suite}" / "episodes.jsonl").read_text().splitlines()
    runs = len(nodes) + 1
    assert len(records) == len(set(records)) == runs
    audit = _audit(tmp_path, f"k9-{suite}")
    assert f"{runs}/{runs} episodes match" in audit
    assert "interrupted attempt" in audit


def _small_scenarios(suite: str, n: int, tmp_path: Path) -> Path:
    """The suite's own scenario file cut to ``n`` runs (proximity: one threshold)."""
    data = yaml.safe_load((CONFIG / "scenarios" / f"{suite}.yaml").read_text())
    if suite == "proximity":  # the quickest approaches: a proximity run costs its camera frames
        quick = sorted(data["approaches"], key=lambda a: (a["start_distance"] - a["stop_distance"]) / a["speed"])
        data.update(thresholds=data["thresholds"][1:2], approaches=quick[:n], passers=[])
    else:
        key = "tasks" if suite == "confidence" else "scenarios"
        data[key] = data[key][:n]
    path = tmp_path / f"{suite}-small.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


# Two runs at once never mix: a held run directory or a busy ROS domain is refused up front.


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
    r = run_cli(
        ["run", "--episodes", "1", "--domain-id", str(g.domain_id)], tmp_path, probe_s=3.0
    )  # alpha-matrix's own
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith(f"alpha-matrix: error: ROS domain {g.domain_id} already has nodes of this graph up (")
    seen = r.stderr.split(" up (", 1)[1].split(")", 1)[0].split(", ")
    assert set(seen) <= {n.name for n in g.graph.nodes} and seen, r.stderr  # the nodes seen are named
    assert r.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # no runs/, no bags/
    assert all(p.poll() is None for p in g.launcher.procs.values())  # the running graph is untouched
