"""Plain-Python launcher: every node of the resolved graph in its own process.

For environments without launch_ros. Same graph description as the launch file. Logs are
forwarded line by line with a ``[node]`` prefix; Ctrl-C, SIGTERM or any node dying stops
every child (SIGINT, then SIGTERM, then SIGKILL), and the exit says which node and why.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from alpha_matrix import ctrl_c
from alpha_matrix.console import FORMAT_ENV, NODE_FORMAT, Console, clean, progress
from alpha_matrix.core.bag import holds_steps
from alpha_matrix.core.domains import DomainLease, allocate, release
from alpha_matrix.core.errors import ConfigError, GraphError
from alpha_matrix.core.graph import DONE_FILE_ENV, Graph, NodeSpec
from alpha_matrix.core.live import check_graph_ports
from alpha_matrix.core.runlock import InUseError, lock_dirs
from alpha_matrix.ros.shm import clean_stale_shm
from alpha_matrix.ros.transport import localhost_udp, use_localhost_udp

STOP_GRACE_S = 5.0
# Where a failed graph's log goes, with every other node's thread stacks (faulthandler, SIGUSR1)
# taken at the moment of the failure: set by .ci/run, so an intermittent failure shows where each
# process was waiting. Unset: nothing is written.
FAILURE_DIR_ENV = "ALPHA_MATRIX_FAILURE_DIR"
STACKS_S = 3.0  # how long the stacks of the other nodes are waited for
TAIL_LINES = 12  # a failed node's last lines, repeated after the stop so they end the output
EXTERNAL_S = 10.0  # how long a run waits to discover the external nodes it needs (a driver started apart)
# How long a domain is watched for an already running graph before ours starts there.
PROBE_S = 3.0  # discovery of a running graph took over 1 s on a loaded 2-core machine (CI, load 10), over 2 s once
# Overrides PROBE_S: the graph tests, whose domains are leased one per graph, watch 1 s.
PROBE_ENV = "ALPHA_MATRIX_DOMAIN_PROBE_S"


def probe_seconds() -> float:
    """$ALPHA_MATRIX_DOMAIN_PROBE_S (0..60 s) when set, else PROBE_S."""
    text = os.environ.get(PROBE_ENV, "").strip()
    if not text:
        return PROBE_S
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 60.0:
        raise ConfigError(f"${PROBE_ENV}={text!r}: seconds from 0 to 60")
    return value


def graph_env(domain_id: int | None = None, base: dict[str, str] | None = None) -> dict[str, str]:
    env = localhost_udp(os.environ if base is None else base)
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("RCUTILS_COLORIZED_OUTPUT", "0")
    if domain_id is not None:
        env["ROS_DOMAIN_ID"] = str(domain_id)
    return env


def graph_dirs(graph: Graph) -> list[Path]:
    """The directories the graph's nodes write: runs_dir/<run id>, bags_dir/<run id>."""
    out: list[Path] = []
    for spec in graph.nodes:
        run_id = str(spec.parameters.get("run_id") or graph.run_id).split("/", 1)[0]  # <id>/worker-k: bags/<id>
        for key in ("runs_dir", "bags_dir"):
            if key in spec.parameters and run_id and Path(spec.parameters[key]) / run_id not in out:
                out.append(Path(spec.parameters[key]) / run_id)
    return out


def visible_nodes(domains: Iterable[int], names: Iterable[str], timeout_s: float = PROBE_S) -> dict[int, list[str]]:
    """Which of ``names`` are up on each domain: domain -> the nodes seen (domains with none left out).

    One participant per domain, all watched together for ``timeout_s`` (absence cannot be waited
    on: discovery is given that long), or until every name is seen on every domain.
    """
    import rclpy
    from rclpy.context import Context
    from rclpy.node import Node
    from rclpy.signals import SignalHandlerOptions

    use_localhost_udp()  # the graph's own transport and discovery scope (graph_env), or we could miss them
    wanted = set(names)
    contexts: list[Context] = []
    probes: dict[int, Node] = {}
    seen: dict[int, list[str]] = {}
    try:
        for domain_id in dict.fromkeys(domains):
            contexts.append(Context())
            # No signal handlers: Ctrl-C must stay a KeyboardInterrupt for the launcher.
            rclpy.init(context=contexts[-1], domain_id=domain_id, signal_handler_options=SignalHandlerOptions.NO)
            probes[domain_id] = Node(
                f"alpha_matrix_probe_{os.getpid()}",
                context=contexts[-1],
                enable_rosout=False,
                start_parameter_services=False,
            )
        deadline = time.monotonic() + timeout_s
        while True:
            ctrl_c.check()
            for domain_id, node in probes.items():
                found = wanted & set(node.get_node_names())
                if found:
                    seen[domain_id] = sorted(found | set(seen.get(domain_id, ())))
            if time.monotonic() > deadline or all(len(seen.get(d, ())) == len(wanted) for d in probes):
                return seen
            time.sleep(0.05)
    finally:
        for node in probes.values():
            node.destroy_node()
        for context in contexts:
            if context.ok():
                rclpy.shutdown(context=context)


def refuse_busy_domains(domains: Iterable[int], names: Iterable[str], timeout_s: float | None = None) -> None:
    """InUseError when any of the graph's node names is already up on one of ``domains``."""
    seen = visible_nodes(domains, names, probe_seconds() if timeout_s is None else timeout_s)
    if seen:
        domain_id, nodes = min(seen.items())
        raise InUseError(
            f"ROS domain {domain_id} already has nodes of this graph up ({', '.join(nodes)}): "
            "another graph runs there; stop it or pass another --domain-id (nothing was started)"
        )


def unmade_dirs(graph: Graph) -> list[Path]:
    """The graph's output directories that do not exist yet: the ones this run will make."""
    return [d for d in graph_dirs(graph) if not d.exists()]


def discard_unrecorded(made: Iterable[Path], run_dir: Path, interrupted: bool = False) -> list[Path]:
    """After a failed or interrupted run: the directories it made, removed when they hold nothing
    to keep (no record in ``run_dir`` and no robot step in a bag: a failed start), so a failed
    start leaves no empty bag behind. A bag of steps is evidence (an audit names what happened)
    and stays; so does a directory that was there before (a resumed run's). Names what it removed
    on stderr after a failure (never silently); after a Ctrl-C (``interrupted``) the command's
    own line says how far the run got. Returns what it removed."""
    records = run_dir / "episodes.jsonl"
    gone = [d for d in made if d.is_dir()]
    if (records.exists() and records.stat().st_size > 0) or any(holds_steps(d) for d in gone):
        return []
    for d in gone:
        shutil.rmtree(d, ignore_errors=True)
    if gone and not interrupted:
        print(
            f"alpha-matrix: removed {', '.join(map(str, gone))}: the run recorded no episode and no robot step "
            "(its error is above)",
            file=sys.stderr,
        )
    return gone


@contextlib.contextmanager
def guarded(graph: Graph, domains: int = 1, first: int | None = None, what: str = "run") -> Iterator[list[int]]:
    """Hold the graph's directories and ``domains`` ROS domains, and check no graph is up there.

    Yields the domain ids (``first`` first when given). Refuses with InUseError, nothing written
    and nothing started, when another live run holds a directory or a domain, or when the
    graph's node names already answer on a domain. Everything is released on exit.
    """
    check_graph_ports(graph)  # the live view's port free: one line, nothing started
    lock = lock_dirs(graph_dirs(graph), what)
    leases: list[DomainLease] = []
    try:
        leases = allocate(domains, first)
        ids = [lease.domain_id for lease in leases]
        clean_stale_shm()  # before any participant of ours opens a port a killed process left
        refuse_busy_domains(ids, [n.name for n in graph.nodes if not n.external])
        require_external(ids, [n.name for n in graph.nodes if n.external])
    except BaseException:
        release(leases)
        lock.discard()
        raise
    try:
        yield ids
    finally:
        release(leases)
        lock.discard()  # and the parent directories made for the locks (runs/, bags/) if still empty


def require_external(domains: list[int], names: list[str], timeout_s: float = EXTERNAL_S) -> None:
    """Every external node (a driver brought up on its own) is up on every domain, or one line."""
    if not names:
        return
    seen = visible_nodes(domains, names, timeout_s)  # returns as soon as every one is seen
    for domain_id in domains:
        if missing := sorted(set(names) - set(seen.get(domain_id, []))):
            raise GraphError(
                f"external node(s) {', '.join(missing)} not visible on ROS_DOMAIN_ID {domain_id} within "
                f"{timeout_s:.0f} s: start them first (same domain, ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST)"
            )


def node_command(spec: NodeSpec, params_file: Path) -> list[str]:
    cmd = [
        *([sys.executable, "-m", spec.module] if spec.module else [foreign_executable(spec)]),
        "--ros-args",
        "-r",
        f"__node:={spec.name}",
        "--params-file",
        str(params_file),
    ]
    for src, dst in spec.remappings:
        cmd += ["-r", f"{src}:={dst}"]
    return cmd


def foreign_executable(spec: NodeSpec) -> str:
    """Another package's node executable, where ROS 2 installs it: <prefix>/lib/<package>/<executable>."""
    from ament_index_python.packages import PackageNotFoundError, get_package_prefix

    try:
        path = Path(get_package_prefix(spec.package)) / "lib" / spec.package / spec.executable
    except (PackageNotFoundError, OSError, ValueError) as err:
        raise GraphError(f"node '{spec.name}': package {spec.package!r} not found in the ament index ({err})") from None
    if not os.access(path, os.X_OK):
        raise GraphError(f"node '{spec.name}': no executable {path}")
    return str(path)


STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def held_stop_signals(hold: bool = True) -> Iterator[None]:
    """SIGINT and SIGTERM blocked in this thread while a node of ours is started: the child
    inherits the mask through exec, so a stop sent while its interpreter starts stays pending
    until alpha_matrix.nodes installs the handler that ends a starting node quietly (exit 0) and
    unblocks them. Python's own handler would have turned it into a KeyboardInterrupt traceback
    from whatever module was importing, and a death by signal 2. Here a signal is only deferred
    (the mask is this thread's, for the Popen call)."""
    if not hold:
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def exit_text(code: int) -> str:
    """How a process ended, from its return code (negative: the signal that killed it)."""
    return f"exited with code {code}" if code >= 0 else f"was killed by signal {-code}"


class Launcher:
    """Starts the graph; ``wait()`` supervises it. Use as a context manager to always stop it."""

    def __init__(
        self,
        graph: Graph,
        env: dict[str, str] | None = None,
        out: IO[str] | None = None,
        tag: str = "",
        console: Console | None = None,
    ) -> None:
        self.graph = graph
        self.tag = f"{tag} " if tag else ""
        self.env = {FORMAT_ENV: NODE_FORMAT, **(env or graph_env())}  # the user's own format wins
        self._own_console = console is None
        self.console = console or Console(out or sys.stdout)
        self.procs: dict[str, subprocess.Popen[str]] = {}
        self._threads: list[threading.Thread] = []
        self._exits: queue.Queue[tuple[str, int]] = queue.Queue()
        self._stopping = False  # stop() began: a node's exit from now on is the stop's, not news
        self._out_lock = threading.Lock()
        # The graph's output, kept only for a failure log ($ALPHA_MATRIX_FAILURE_DIR).
        self._failure_dir = os.environ.get(FAILURE_DIR_ENV, "")
        self._lines: collections.deque[str] = collections.deque(maxlen=20000 if self._failure_dir else 0)
        self._tails: dict[str, collections.deque[str]] = {}
        self._tmp = tempfile.TemporaryDirectory(prefix="alpha_matrix_")
        self.params_file = Path(self._tmp.name) / "params.yaml"
        self.params_file.write_text(graph.params_yaml())

    def __enter__(self) -> Launcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _print(self, text: str) -> None:
        with self._out_lock:
            self._lines.append(text)
        self.console.write(text)

    def _ask_stacks(self) -> None:
        """With $ALPHA_MATRIX_FAILURE_DIR set: every node still up prints its thread stacks now
        (faulthandler on SIGUSR1), waited for a bounded time before the graph is stopped."""
        if not self._failure_dir:
            return
        ours = {n.name for n in self.graph.nodes if n.module}  # another package's node may die of SIGUSR1
        alive = {name: p for name, p in self.procs.items() if p.poll() is None and name in ours}
        for p in alive.values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, signal.SIGUSR1)
        deadline = time.monotonic() + STACKS_S
        while time.monotonic() < deadline:
            with self._out_lock:
                dumped = {ln.split("] ", 1)[0] for ln in self._lines if "(most recent call first)" in ln}
            if all(f"[{self.tag}{n}" in dumped or p.poll() is not None for n, p in alive.items()):
                return
            time.sleep(0.05)

    def _write_failure_log(self, failed: str) -> None:
        """The whole graph's log, stacks included, to $ALPHA_MATRIX_FAILURE_DIR (after the stop:
        every line has been forwarded)."""
        if not self._failure_dir:
            return
        path = Path(self._failure_dir) / f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}-{failed}.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        with self._out_lock:
            path.write_text("".join(self._lines))
        self._print(f"alpha-matrix: the graph's log, with each node's stacks at the failure: {path}\n")

    def start(self) -> None:
        for spec in self.graph.nodes:
            if spec.external:  # brought up on its own: neither started nor stopped here
                continue
            ctrl_c.check()
            try:
                with held_stop_signals(bool(spec.module)):
                    proc = subprocess.Popen(
                        node_command(spec, self.params_file),
                        env=self._node_env(spec),
                        stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT,
                        text=True,
                        bufsize=1,
                        start_new_session=True,
                    )
                    self.procs[spec.name] = proc  # in the block: a Ctrl-C held for its end still stops it
            except OSError as err:
                self.stop()
                raise GraphError(f"node '{spec.name}' failed to start: {err.strerror}") from None
            for target in (self._forward, self._watch):
                t = threading.Thread(target=target, args=(spec.name, proc), daemon=True)
                t.start()
                self._threads.append(t)

    def _done_file(self, name: str) -> Path:
        return Path(self._tmp.name) / f"{name}.done"

    def _node_env(self, spec: NodeSpec) -> dict[str, str]:
        """A job node is told where to say it finished: a signal also ends it with exit 0."""
        if spec.role != "job":
            return self.env
        return {**self.env, DONE_FILE_ENV: str(self._done_file(spec.name))}

    def _forward(self, name: str, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        job = self.graph.node(name).role == "job"
        tail = self._tails.setdefault(name, collections.deque(maxlen=TAIL_LINES))
        for line in proc.stdout:
            if (text := clean(line)) is None:
                continue
            tail.append(text)
            self._print(f"[{self.tag}{name}] {text}\n")
            if job and (kn := progress(text)):
                self.console.advance(f"{self.tag}{name}", *kn)

    def _watch(self, name: str, proc: subprocess.Popen[str]) -> None:
        self._exits.put((name, proc.wait()))

    def wait(self) -> int:
        """Block until a job finishes (0) or any node exits otherwise (1). Stops the graph.

        Once the graph is being stopped from outside (``stop()``: the user's Ctrl-C, another
        worker's failure), the nodes' exits are that stop's: 1 (the jobs did not finish), nothing
        said, no node reported as failed or killed."""
        roles = {n.name: n.role for n in self.graph.nodes}
        jobs = [n for n, r in roles.items() if r == "job"]
        failed: tuple[str, str] | None = None
        try:
            while True:
                name, code = self._exits.get()
                if self._stopping:
                    return 1
                if roles[name] == "job" and code == 0 and not self._done_file(name).exists():
                    self._print(f"alpha-matrix: job '{name}' was stopped before it finished; stopping the graph\n")
                    return 1
                if roles[name] == "job" and code == 0:
                    jobs.remove(name)
                    if not jobs:
                        return 0
                    continue
                what = exit_text(code)
                self._print(f"alpha-matrix: node '{name}' {what}; stopping the graph\n")
                self._ask_stacks()
                failed = (name, what)
                return 1
        except KeyboardInterrupt:
            self._print("alpha-matrix: interrupted; stopping the graph\n")
            return 130
        finally:
            self.stop()
            if failed:
                self._write_failure_log(failed[0])
                self._repeat_cause(*failed)

    def exited(self) -> dict[str, str]:
        """The nodes started here that have ended, each with how: for a caller that drives the
        graph itself (a benchmark) rather than ``wait()`` on it."""
        return {name: exit_text(code) for name, p in self.procs.items() if (code := p.poll()) is not None}

    def last_lines(self, name: str) -> list[str]:
        """The last lines a node printed (kept whatever ``out`` is)."""
        return list(self._tails.get(name, ()))

    def _repeat_cause(self, name: str, what: str) -> None:
        """The failed node's last lines again, after every other node's shutdown output: whoever
        reads only the end of the output (a CI log, a test's assertion message) sees the cause."""
        lines = "".join(f"  {ln}\n" for ln in self.last_lines(name)) or "  (none)\n"
        self._print(f"alpha-matrix: node '{self.tag}{name}' {what}; its last lines:\n{lines}")

    def stop(self) -> None:
        self._stopping = True
        last = {n.name for n in self.graph.nodes if n.stop_last}
        self._stop([p for name, p in self.procs.items() if name not in last])
        self._stop([p for name, p in self.procs.items() if name in last])
        for t in self._threads:
            t.join(timeout=STOP_GRACE_S)
        self._threads.clear()

    def _stop(self, procs: list[subprocess.Popen[str]]) -> None:
        alive = [p for p in procs if p.poll() is None]
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            for p in alive:
                try:
                    os.killpg(p.pid, sig)
                except ProcessLookupError:
                    pass
            for p in alive:
                try:
                    p.wait(timeout=STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    pass
            alive = [p for p in alive if p.poll() is None]
            if not alive:
                break

    def close(self) -> None:
        self.stop()
        self._tmp.cleanup()
        if self._own_console:
            self.console.close()


def _next_code(codes: queue.Queue[int]) -> int:
    """The next graph's exit code; a Ctrl-C that Python swallowed is raised here (ctrl_c.py)."""
    while True:
        ctrl_c.check()
        with contextlib.suppress(queue.Empty):
            return codes.get(timeout=ctrl_c.POLL_S)


def run_graph(graph: Graph, env: dict[str, str] | None = None) -> int:
    """Start, supervise and stop a graph; SIGTERM behaves like Ctrl-C."""
    return run_graphs([(graph, env or graph_env(), "")])


def run_graphs(runs: list[tuple[Graph, dict[str, str], str]]) -> int:
    """Several graphs side by side (graph, env with its own ROS_DOMAIN_ID, log tag).

    Returns 0 when every graph's jobs finished; the first failure stops them all. Ctrl-C (or
    SIGTERM) stops them all and returns 130, saying nothing: the command says how far it got.
    """
    console = Console(sys.stdout)
    launchers = [Launcher(g, env, tag=tag, console=console) for g, env, tag in runs]
    codes: queue.Queue[int] = queue.Queue()

    previous = signal.signal(signal.SIGTERM, ctrl_c.on_signal)
    try:
        for launcher in launchers:
            launcher.start()
        for launcher in launchers:
            threading.Thread(target=lambda lr=launcher: codes.put(lr.wait()), daemon=True).start()
        worst = 0
        for _ in launchers:
            code = _next_code(codes)
            worst = max(worst, code)
            if code != 0:
                for launcher in launchers:
                    launcher.stop()
        return worst
    except KeyboardInterrupt:
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        for launcher in launchers:
            launcher.close()
        console.close()
