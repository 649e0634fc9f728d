"""Graph tests: real node processes on their own ROS_DOMAIN_ID, localhost discovery only."""

from __future__ import annotations

import contextlib
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import psutil
import pytest
import rclpy
import yaml
from rclpy.context import Context
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node

from alpha_matrix.core.domains import DomainLease, allocate
from alpha_matrix.core.graph import Graph, default_config_dir
from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.launcher import PROBE_ENV, Launcher, graph_env
from alpha_matrix.ros.shm import clean_stale_shm

CONFIG = Path(__file__).resolve().parents[2] / "config"
STACKS_WAIT_S = 3.0  # a hung run's nodes print their stacks (faulthandler) within this
STOP_WAIT_S = 20.0  # then it stops its graph on SIGINT within this, or is killed
_leases: list[DomainLease] = []
N = TypeVar("N", bound=Node)
# One short alerts scenario (an e-stop pressed and released mid-task): the agent tests' smallest
# whole episode, decided at every alert, clear and command.
SHORT_ALERTS = """seed: 42
scenarios:
  - name: estop_short
    max_steps: 1260
    retry_every: 240
    alerts:
      - {id: es1, class: estop_button, severity: critical, at_step: 300, cleared_at_step: 500, payload: {button: pendant}}
"""


# One approach of the proximity suite: a person walks in to 0.7 m of a 1 m threshold and out again.
PROXIMITY_A02 = """seed: 42
thresholds: [1.0]
approaches:
  - {name: a02, angle_deg: 180, start_distance: 4.2, stop_distance: 0.7, speed: 2.0, posture: upright, lighting: bright, dwell_s: 0.5}
"""


def next_domain_id() -> int:
    """A domain per graph from the safe pool (1..101), held by this process until the test ends:
    concurrent test runs (and alpha-matrix runs) on this machine never share one. An
    ``alpha-matrix`` child run on it sees the lock held by its ancestor and uses it."""
    lease = allocate(1)[0]
    _leases.append(lease)
    clean_stale_shm()  # a killed node of an earlier test left its ports (ros/shm.py)
    return lease.domain_id


@pytest.fixture(autouse=True)
def _release_domains() -> Iterator[None]:
    """Set up before (so torn down after) start_graph: a domain is freed once its graph is stopped."""
    yield
    while _leases:
        _leases.pop().release()


def wait_until(cond: Callable[[], bool], timeout: float, what: str) -> None:
    """Wait on a condition (never a fixed sleep); fail with what we waited for."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(0.01)


class Captured:
    """Collects the launcher's prefixed log lines so tests can wait on them."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._lock = threading.Lock()

    def write(self, text: str) -> None:
        with self._lock:
            self.lines.extend(text.splitlines())
        sys.stdout.write(text)

    def flush(self) -> None:
        pass

    def has(self, needle: str) -> bool:
        with self._lock:
            return any(needle in line for line in self.lines)

    def tracebacks(self, context: int = 12) -> str:
        """Every Python traceback the graph printed, each with the lines after it ("" if none): a
        node stopping (signal, teardown, a peer gone) or failing says so in one line, never so."""
        with self._lock:
            lines = list(self.lines)
        hits = [i for i, line in enumerate(lines) if "Traceback" in line]
        return "\n---\n".join("\n".join(lines[i : i + context]) for i in hits)


class RunningGraph:
    def __init__(self, graph: Graph, domain_id: int) -> None:
        self.graph, self.domain_id = graph, domain_id
        self.log = Captured()
        self.launcher = Launcher(graph, graph_env(domain_id), out=self.log)
        self.context = Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.node = Node("graph_test_client", context=self.context)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._thread = threading.Thread(target=self.executor.spin, daemon=True)

    def start(self) -> RunningGraph:
        self.launcher.start()
        self._thread.start()
        return self

    def add_node(self, node: Node) -> None:
        self.executor.add_node(node)

    def stop(self) -> None:
        self.launcher.close()
        self.executor.shutdown()
        self._thread.join(timeout=10)
        for n in self.executor.get_nodes():
            n.destroy_node()
        rclpy.shutdown(context=self.context)


@pytest.fixture
def start_graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., RunningGraph]]:
    """start_graph(overrides, exclude=..., config=...) → a running graph, stopped after the test."""
    started: list[RunningGraph] = []

    def _start(
        overrides=None, exclude=("episode_runner",), config: Path = CONFIG, graph_file="graph.yaml"
    ) -> RunningGraph:
        overrides = dict(overrides or {})
        if "recorder" not in exclude:  # bags of test graphs never land in the checkout
            overrides.setdefault("recorder", {"bags_dir": str(tmp_path_factory.mktemp("bags"))})
        g = resolve_graph(config, overrides, exclude=tuple(exclude), graph_file=graph_file)
        rg = RunningGraph(g, next_domain_id())
        started.append(rg)
        return rg.start()

    yield _start
    for rg in started:
        rg.stop()
    # Checked once every graph is stopped: no node printed a Python traceback, at teardown or
    # before (graphs made to fail on purpose fail in one line: "<node>: error: ...").
    for rg in started:
        assert not (found := rg.log.tracebacks()), f"a node printed a traceback:\n{found}"


@pytest.fixture(scope="session")
def proximity_a02(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory of one run of PROXIMITY_A02 through the graph as a user starts it (no agent,
    the guard on: ``suite proximity --scenarios a02.yaml --run-id a02``), recorded and its bag
    audited clean: runs/a02, bags/a02. Run once for the session; the tests that take it only read
    it (the audit's tampering works on copies; the agent study compares against its record)."""
    d = tmp_path_factory.mktemp("proximity-a02")
    (d / "a02.yaml").write_text(PROXIMITY_A02)
    proc = run_cli(["suite", "proximity", "--scenarios", "a02.yaml", "--run-id", "a02"], d, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    audit = run_cli(["audit", str(d / "bags" / "a02"), "--runs-dir", str(d / "runs")], d, timeout=120)
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "suite proximity" in audit.stdout and "1/1 episodes match" in audit.stdout, audit.stdout
    return d


def start_cli(
    args: list[str], cwd: Path, log: Path, domain: int | None = None, probe_s: float | None = None
) -> subprocess.Popen[bytes]:
    """Start `alpha-matrix ARGS` in the background (on ``domain``, else one of its own; in ``cwd``,
    output to ``log``: a pipe nobody reads while the test waits could fill and stall the run); the
    caller waits. ``probe_s`` cuts the run's watch for a graph already up, as ``run_cli`` does."""
    env = graph_env(next_domain_id() if domain is None else domain)
    if probe_s is not None:
        env[PROBE_ENV] = str(probe_s)
    with open(log, "wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "alpha_matrix.cli", *args], env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT
        )


@contextlib.contextmanager
def cli_beside(
    make_node: Callable[[Context], N], args: list[str], cwd: Path, log: Path
) -> Iterator[tuple[N, subprocess.Popen[bytes]]]:
    """`alpha-matrix ARGS` started as ``start_cli`` does, on the domain of a node of this test
    (``make_node(context)``, spun in a thread of its own): yields (node, process). At the end the
    process is killed if still running and the node torn down."""
    domain = next_domain_id()
    context = Context()
    rclpy.init(context=context, domain_id=domain)
    node = make_node(context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    try:
        proc = start_cli(args, cwd, log, domain=domain, probe_s=1.0)
        try:
            yield node, proc
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    finally:
        executor.shutdown()
        spinner.join(timeout=10)
        node.destroy_node()
        rclpy.shutdown(context=context)


def remapped_config(dest: Path, graph_file: str, node: str, remappings: dict[str, str]) -> Path:
    """A copy of the shipped config in ``dest`` whose ``node`` in ``graph_file`` has ``remappings``."""
    shutil.copytree(default_config_dir(), dest)
    path = dest / graph_file
    graph = yaml.safe_load(path.read_text())
    (spec,) = [n for n in graph["nodes"] if n["name"] == node]
    spec["remappings"] = remappings
    path.write_text(yaml.safe_dump(graph, sort_keys=False))
    return dest


def run_cli(args: list[str], cwd: Path, timeout: float = 300, probe_s: float = 1.0) -> subprocess.CompletedProcess[str]:
    """Run `alpha-matrix ARGS` in a fresh process on its own domain, in ``cwd`` (bags/ and runs/ go there).

    The domain is leased to this test alone, so the run's watch for a graph already up there is
    cut to ``probe_s`` (3 s by default in alpha-matrix): it still catches a graph an earlier test
    leaked when its discovery is quick. A run still going after ``timeout`` fails the test with
    where each of its nodes was (``_stop_hung``).
    """
    env = {**graph_env(next_domain_id()), PROBE_ENV: str(probe_s)}
    cmd = [sys.executable, "-m", "alpha_matrix.cli", *args]
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        out, err = _stop_hung(proc)
        tail = "\n".join((out + err).splitlines()[-300:])
        pytest.fail(
            f"alpha-matrix {' '.join(args)}: still running after {timeout:.0f} s; its output, "
            f"with each node's thread stacks at the timeout:\n{tail}"
        )
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def ask_stacks(pid: int) -> list[psutil.Process]:
    """An `alpha-matrix` command (``pid``) and each node under it print their thread stacks
    (faulthandler on SIGUSR1: the command's main, ros/lifecycle.py for a node, whose output the
    launcher forwards). Returns the command's process tree."""
    tree = psutil.Process(pid).children(recursive=True)
    for proc in [psutil.Process(pid), *tree]:
        with contextlib.suppress(psutil.Error):
            if proc.pid == pid or any(part.startswith("alpha_matrix.nodes.") for part in proc.cmdline()):
                proc.send_signal(signal.SIGUSR1)
    return tree


def _stop_hung(proc: subprocess.Popen[str]) -> tuple[str, str]:
    """A run that hangs: the command and each of its nodes print their thread stacks
    (``ask_stacks``), then the run is interrupted as a user would (SIGINT: it stops its graph)
    and killed with whatever is left of it if that does not end it.
    A SIGKILL alone, as ``subprocess.run``'s timeout sends, would lose all of that."""
    tree = ask_stacks(proc.pid)
    with contextlib.suppress(subprocess.TimeoutExpired):  # the stacks' time (retried, nothing is lost)
        return proc.communicate(timeout=STACKS_WAIT_S)
    proc.send_signal(signal.SIGINT)
    with contextlib.suppress(subprocess.TimeoutExpired):
        return proc.communicate(timeout=STOP_WAIT_S)
    for child in tree:
        with contextlib.suppress(psutil.Error):
            child.kill()
    proc.kill()
    return proc.communicate()
