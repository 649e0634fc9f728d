"""`ros2 launch alpha_matrix alpha_matrix.launch.py live:=true`: the live view from the same graph entry."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

from launch_env import lease_domain, require_tools

from alpha_matrix.launcher import graph_env

require_tools()

ROS2 = Path(sys.executable).parent / "ros2"


def _launch(tmp: Path, *args: str, timeout: float = 240) -> tuple[int, str]:
    cmd = [str(ROS2), "launch", "alpha_matrix", "alpha_matrix.launch.py", *args]
    with open(tmp / "launch.log", "wb") as out:  # a file: a pipe nobody reads could stall the run
        code = subprocess.run(
            cmd, cwd=tmp, env=graph_env(lease_domain()), stdout=out, stderr=subprocess.STDOUT, timeout=timeout
        ).returncode
    return code, (tmp / "launch.log").read_text(errors="replace")


def test_live_true_serves_the_run_and_ends_clean(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, log = _launch(tmp_path, "episodes:=1", "run_id:=live", "live:=true", f"live_port:={port}")
    assert code == 0, log[-3000:]
    assert re.search(rf"\[foxglove_live-\d+\] .*live view on ws://127\.0\.0\.1:{port}", log), log[-3000:]
    assert re.search(r"\[INFO\] \[foxglove_live-\d+\]: process has finished cleanly", log), log[-3000:]
    assert "success: 1/1" in log


def test_live_port_in_use_is_refused_before_any_node_starts(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, log = _launch(tmp_path, "episodes:=1", "live:=true", f"live_port:={port}", timeout=120)
    assert code != 0 and f"cannot listen on 127.0.0.1:{port}: in use" in log, log[-3000:]
    assert "process started" not in log and not (tmp_path / "runs").exists()
