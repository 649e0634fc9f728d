"""Plain-Python launcher: every node of the resolved graph in its own process.

For environments without launch_ros. Same graph description as the launch file. Logs are
forwarded line by line with a ``[node]`` prefix; Ctrl-C, SIGTERM or any node dying stops
every child (SIGINT, then SIGTERM, then SIGKILL), and the exit says which node and why.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO

import yaml

from alpha_matrix.core.errors import GraphError
from alpha_matrix.core.graph import Graph, NodeSpec

STOP_GRACE_S = 5.0


def graph_env(domain_id: int | None = None, base: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    env.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    env["PYTHONUNBUFFERED"] = "1"
    env.setdefault("RCUTILS_COLORIZED_OUTPUT", "0")
    if domain_id is not None:
        env["ROS_DOMAIN_ID"] = str(domain_id)
    return env


def node_command(spec: NodeSpec, params_file: Path) -> list[str]:
    cmd = [
        sys.executable,
        "-m",
        spec.module,
        "--ros-args",
        "-r",
        f"__node:={spec.name}",
        "--params-file",
        str(params_file),
    ]
    for src, dst in spec.remappings:
        cmd += ["-r", f"{src}:={dst}"]
    return cmd


class Launcher:
    """Starts the graph; ``wait()`` supervises it. Use as a context manager to always stop it."""

    def __init__(
        self, graph: Graph, env: dict[str, str] | None = None, out: IO[str] | None = None, tag: str = ""
    ) -> None:
        self.graph = graph
        self.tag = f"{tag} " if tag else ""
        self.env = env or graph_env()
        self.out = out or sys.stdout
        self.procs: dict[str, subprocess.Popen[str]] = {}
        self._threads: list[threading.Thread] = []
        self._exits: queue.Queue[tuple[str, int]] = queue.Queue()
        self._out_lock = threading.Lock()
        self._tmp = tempfile.TemporaryDirectory(prefix="alpha_matrix_")
        self.params_file = Path(self._tmp.name) / "params.yaml"
        self.params_file.write_text(yaml.safe_dump(graph.ros_params(), sort_keys=True))

    def __enter__(self) -> Launcher:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _print(self, text: str) -> None:
        with self._out_lock:
            self.out.write(text)
            self.out.flush()

    def start(self) -> None:
        for spec in self.graph.nodes:
            try:
                proc = subprocess.Popen(
                    node_command(spec, self.params_file),
                    env=self.env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                    bufsize=1,
                    start_new_session=True,
                )
            except OSError as err:
                self.stop()
                raise GraphError(f"node '{spec.name}' failed to start: {err.strerror}") from None
            self.procs[spec.name] = proc
            for target in (self._forward, self._watch):
                t = threading.Thread(target=target, args=(spec.name, proc), daemon=True)
                t.start()
                self._threads.append(t)

    def _forward(self, name: str, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            text = f"[{self.tag}{name}] {line}"
            self._print(text if text.endswith("\n") else text + "\n")

    def _watch(self, name: str, proc: subprocess.Popen[str]) -> None:
        self._exits.put((name, proc.wait()))

    def wait(self) -> int:
        """Block until a job finishes (0) or any node exits otherwise (1). Stops the graph."""
        roles = {n.name: n.role for n in self.graph.nodes}
        jobs = [n for n, r in roles.items() if r == "job"]
        try:
            while True:
                name, code = self._exits.get()
                if roles[name] == "job" and code == 0:
                    jobs.remove(name)
                    if not jobs:
                        return 0
                    continue
                what = f"exited with code {code}" if code >= 0 else f"was killed by signal {-code}"
                self._print(f"alpha-matrix: node '{name}' {what}; stopping the graph\n")
                return 1
        except KeyboardInterrupt:
            self._print("alpha-matrix: interrupted; stopping the graph\n")
            return 130
        finally:
            self.stop()

    def stop(self) -> None:
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


def run_graph(graph: Graph, env: dict[str, str] | None = None) -> int:
    """Start, supervise and stop a graph; SIGTERM behaves like Ctrl-C."""
    return run_graphs([(graph, env or graph_env(), "")])


def run_graphs(runs: list[tuple[Graph, dict[str, str], str]]) -> int:
    """Several graphs side by side (graph, env with its own ROS_DOMAIN_ID, log tag).

    Returns 0 when every graph's jobs finished; the first failure stops them all.
    """
    launchers = [Launcher(g, env, tag=tag) for g, env, tag in runs]
    codes: queue.Queue[int] = queue.Queue()

    def _term(_sig: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _term)
    try:
        for launcher in launchers:
            launcher.start()
        for launcher in launchers:
            threading.Thread(target=lambda lr=launcher: codes.put(lr.wait()), daemon=True).start()
        worst = 0
        for _ in launchers:
            code = codes.get()
            worst = max(worst, code)
            if code != 0:
                for launcher in launchers:
                    launcher.stop()
        return worst
    except KeyboardInterrupt:
        sys.stdout.write("alpha-matrix: interrupted; stopping the graph\n")
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        for launcher in launchers:
            launcher.close()
