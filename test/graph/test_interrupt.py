"""Ctrl-C at any moment: quiet, exit 130, one line saying how far the run got, resumable.

SIGINT goes to the command's process group, as a terminal's Ctrl-C does (the launcher starts
each node in its own session and stops them itself). Whatever the moment - probing the domain,
the nodes still importing, mid-episode - the output holds no traceback, no node reported as
killed or failed, no "stopped by" line per node, and exactly one
``interrupted at k/n: run the same command to resume``; a run that recorded nothing leaves no
run or bag directory behind, and the same command resumes one that did.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.launcher import PROBE_ENV, graph_env
from conftest import ask_stacks, next_domain_id, run_cli, wait_until

RESUME = re.compile(r"^interrupted at (\d+)/(\d+): run the same command to resume$")
MATRIX_NODES = len(resolve_graph().nodes)  # every node process of the default graph (config/graph.yaml)
EPISODES = 6


def _nodes_started(cli: subprocess.Popen[bytes]) -> int:
    """How many node processes the command has started."""
    count = 0
    for child in psutil.Process(cli.pid).children():
        try:
            count += any("alpha_matrix.nodes." in part for part in child.cmdline())
        except psutil.Error:
            continue
    return count


def _interrupt(args: list[str], cwd: Path, when: Callable[[subprocess.Popen[bytes], Path], bool]) -> str:
    """Start ``alpha-matrix ARGS`` in its own process group, send the group SIGINT once ``when``
    holds, and return its whole output (exit code checked: 130)."""
    log = cwd / f"cli-{time.monotonic_ns()}.log"
    env = {**graph_env(next_domain_id()), PROBE_ENV: "1.0"}
    with open(log, "wb") as out:
        cli = subprocess.Popen(
            [sys.executable, "-m", "alpha_matrix.cli", *args],
            env=env,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: the SIGINT below is a terminal's Ctrl-C
        )
    try:
        wait_until(lambda: when(cli, log) or cli.poll() is not None, 120, "the moment to interrupt")
        assert cli.poll() is None, log.read_text()[-3000:]
        os.killpg(cli.pid, signal.SIGINT)
        try:
            code = cli.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(
                f"still running 60 s after the SIGINT; its output, with its thread stacks:\n{_stacks(cli, log)}"
            )
    finally:
        if cli.poll() is None:
            os.killpg(cli.pid, signal.SIGKILL)
    text = log.read_text()
    assert code == 130, text[-3000:]
    return text


def _stacks(cli: subprocess.Popen[bytes], log: Path) -> str:
    """The command's and its nodes' thread stacks (faulthandler on SIGUSR1), then its log's tail."""
    ask_stacks(cli.pid)
    with contextlib.suppress(subprocess.TimeoutExpired):
        cli.wait(timeout=3.0)  # the dumps' time: the stacks are written before the log is read
    return "\n".join(log.read_text(errors="replace").splitlines()[-300:])


def _check_quiet(text: str, planned: int) -> int:
    """No traceback, nothing reported as killed or failed, one resume line; returns k."""
    assert "Traceback" not in text, text[-4000:]
    for word in ("was killed by signal", "exited with code", "stopped before it finished", "fatal:", "Failed to"):
        assert word not in text, text[-3000:]
    assert ": stopped by SIG" not in text, text[-3000:]
    lines = [m for line in text.splitlines() if (m := RESUME.match(line))]
    assert len(lines) == 1, text[-3000:]
    done, of = int(lines[0].group(1)), int(lines[0].group(2))
    assert of == planned and 0 <= done <= planned, text[-3000:]
    return done


def _run_args(episodes: int) -> list[str]:
    return ["run", "--episodes", str(episodes), "--fault", "F1+F2", "--intensity", "0.5"]


RUN = _run_args(EPISODES)


@pytest.mark.parametrize(
    "moment",
    [
        "probing",  # the command checks the domain: no node started yet
        "importing",  # every node process started, none has announced itself yet
    ],
)
def test_ctrl_c_before_the_graph_is_up_is_one_line_and_leaves_nothing(tmp_path, moment):
    run_id = f"early-{moment}"
    if moment == "probing":

        def when(cli: subprocess.Popen[bytes], _log: Path) -> bool:
            return (tmp_path / "runs" / f".{run_id}.lock").exists() and _nodes_started(cli) == 0
    else:

        def when(cli: subprocess.Popen[bytes], _log: Path) -> bool:
            return _nodes_started(cli) == MATRIX_NODES

    text = _interrupt([*RUN, "--run-id", run_id], tmp_path, when)
    assert _check_quiet(text, EPISODES) == 0
    # nothing recorded: no run directory, no bag directory, not even the empty runs/ and bags/
    assert not (tmp_path / "runs" / run_id).exists() and not (tmp_path / "bags" / run_id).exists()
    assert not (tmp_path / "bags").exists() or not any((tmp_path / "bags").iterdir())


def test_ctrl_c_mid_episode_is_one_line_and_the_same_command_resumes(tmp_path):
    # Two arms (chaos proxies both), three episodes: the resume runs what is left after the
    # second record (4 of 6 at most; the interrupt needs no more behind it to land mid-run).
    episodes = 3
    args = [*_run_args(episodes), "--arms", "oracle,oracle-text", "--run-id", "mid"]
    text = _interrupt(args, tmp_path, lambda _cli, log: "[episode_runner] [2/" in log.read_text())
    done = _check_quiet(text, 2 * episodes)
    assert done >= 2
    again = run_cli(args, tmp_path)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr
    assert f"{done} already recorded, {2 * episodes - done} to run" in again.stdout
    assert "Traceback" not in again.stdout + again.stderr


def test_ctrl_c_on_launch_leaves_no_empty_bag(tmp_path):
    text = _interrupt(
        ["launch", "--exclude", "episode_runner"], tmp_path, lambda _cli, log: "[recorder] recording" in log.read_text()
    )
    assert "Traceback" not in text and "was killed by signal" not in text, text[-3000:]
    assert "alpha-matrix: interrupted; the graph is stopped" in text
    bags = tmp_path / "bags"
    assert not bags.exists() or not any(bags.iterdir()), list(bags.iterdir())  # an idle graph recorded nothing
