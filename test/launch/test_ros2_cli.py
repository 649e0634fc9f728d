"""The ros2 command line against a running graph: what the README shows for watching a run."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from launch_env import ROOT, lease_domain, require_tools

from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.launcher import Launcher, graph_env

require_tools()

NODES = ["sim_bridge", "safety_monitor", "recorder", "chaos", "oracle", "executive"]
INTERFACES = ROOT / "alpha_matrix_interfaces"
ROS2 = Path(sys.executable).parent / "ros2"  # the venv's, from vendor/ros2-tools
# Without a daemon each call discovers from scratch for --spin-time (0.5 s by default): on a loaded
# 2-core machine one graph's eight participants took longer than that, call after call.
SPIN = ["--no-daemon", "--spin-time", "3"]


def ros2(args: list[str], env: dict[str, str], timeout: float = 60) -> str:
    """Run `ros2 ARGS` (no daemon: nothing outlives the test); its output, or fail with it."""
    r = subprocess.run([str(ROS2), *args], env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"ros2 {' '.join(args)}: {r.stdout[-2000:]}{r.stderr[-2000:]}"
    return r.stdout


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory):
    bags = tmp_path_factory.mktemp("bags")
    graph = resolve_graph(ROOT / "config", {"recorder": {"bags_dir": str(bags)}}, exclude=("episode_runner",))
    env = graph_env(lease_domain())
    with open(tmp_path_factory.mktemp("log") / "graph.log", "w") as log, Launcher(graph, env, out=log):
        yield env


def _until(what: str, seen, timeout: float = 60) -> str:  # noqa: ANN001 - a callable returning (ok, output)
    """Re-run a discovery command until it sees what it should: waited on, never slept."""
    deadline = time.monotonic() + timeout
    while True:
        ok, out = seen()
        if ok:
            return out
        assert time.monotonic() < deadline, f"{what} never appeared; last output:\n{out}"


def test_nodes_and_topics_are_listed(running) -> None:
    def nodes() -> tuple[bool, str]:
        out = ros2(["node", "list", *SPIN], running)
        return set(NODES) <= {n.strip("/") for n in out.split()}, out

    expected = [
        "/robot/step_batch [alpha_matrix_interfaces/msg/StepBatch]",
        "/safety/events [alpha_matrix_interfaces/msg/SafetyEvent]",
    ]

    def topics() -> tuple[bool, str]:  # discovery fills in endpoint by endpoint: wait for all of them
        out = ros2(["topic", "list", *SPIN, "-t"], running)
        return all(t in out.splitlines() for t in expected), out

    _until("the graph's nodes in `ros2 node list`", nodes)
    _until("the step stream and the safety events in `ros2 topic list`", topics)


def test_every_custom_interface_is_shown() -> None:
    paths = sorted((INTERFACES / "msg").glob("*.msg")) + sorted((INTERFACES / "srv").glob("*.srv"))
    types = [f"alpha_matrix_interfaces/{p.suffix[1:]}/{p.stem}" for p in paths]
    # One process runs `ros2 interface show` for every type (the CLI's own entry point), marked apart.
    script = (
        "import sys\nfrom ros2cli.cli import main\nfor t in sys.argv[1:]:\n"
        "    print('=== ' + t, flush=True)\n    sys.argv = ['ros2', 'interface', 'show', t]\n"
        "    assert main() in (0, None), t\n"
    )
    r = subprocess.run([sys.executable, "-c", script, *types], capture_output=True, text=True, timeout=120)
    # (sys.argv[1:] is a copy: the loop keeps its types while each call sets sys.argv)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    shown = dict(part.split("\n", 1) for part in r.stdout.split("=== ")[1:])
    assert len(types) > 30 and list(shown) == types
    for path, name in zip(paths, types, strict=True):
        lines = [ln for ln in path.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "---"))]
        fields = [ln.split()[1] for ln in lines if "=" not in ln.split("#")[0]]
        assert fields and all(f in shown[name] for f in fields), (name, shown[name])


def test_the_robot_answers_an_observe_call(running) -> None:
    out = ros2(["service", "call", "/robot/observe", "alpha_matrix_interfaces/srv/Observe", "{}"], running, timeout=120)
    assert "response:" in out and "alpha_matrix_interfaces.srv.Observe_Response(" in out, out
