"""The hardware-alert suite through `ros2 launch alpha_matrix ros2_control_arm.launch.py suite:=alerts`
against the simulated standard arm in its own process: the upstream launch, the arm adapter in
place of the simulated bridge, the reference agent with guards, a stop and its resume."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from alpha_matrix.launcher import graph_env
from conftest import next_domain_id, wait_until

BIN = Path(sys.executable).parent
SCENARIOS = """seed: 42
scenarios:
  - name: estop_place
    alerts:
      - {id: es1, class: estop_button, severity: critical, at_step: 800, cleared_at_step: 1000, payload: {button: pendant}}
"""


@pytest.mark.long
def test_an_alerts_scenario_on_the_ros2_control_arm_through_the_launch_file(tmp_path: Path) -> None:
    env = graph_env(next_domain_id())
    (tmp_path / "s.yaml").write_text(SCENARIOS)
    arm_log = tmp_path / "arm.log"
    with arm_log.open("wb") as out:
        arm = subprocess.Popen([str(BIN / "standard_arm")], env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: "ready:" in arm_log.read_text(), 60, "the standard arm")
        args = ["suite:=alerts", f"scenarios:={tmp_path / 's.yaml'}", "agent:=reference", "run_id:=arm-alerts"]
        args += [f"runs_dir:={tmp_path / 'runs'}", f"bags_dir:={tmp_path / 'bags'}"]
        launch = subprocess.run(
            [str(BIN / "ros2"), "launch", "alpha_matrix", "ros2_control_arm.launch.py", *args],
            env=env, cwd=tmp_path, capture_output=True, text=True, timeout=240,
        )  # fmt: skip
    finally:
        arm.send_signal(signal.SIGINT)
        arm.wait(timeout=20)
    assert launch.returncode == 0, launch.stdout[-3000:] + launch.stderr[-2000:]
    assert "[arm_adapter-" in launch.stdout  # the adapter, not the simulated bridge, served the contract
    rows = [json.loads(r) for r in (tmp_path / "runs" / "arm-alerts" / "episodes.jsonl").read_text().splitlines()]
    assert len(rows) == 1
    result = rows[0]
    assert "estop_place" in json.dumps(result) and '"resumes"' in json.dumps(result)
    assert "resumes=1/1" in launch.stdout and "harms=0" in launch.stdout, launch.stdout[-2000:]
    audit = subprocess.run(
        [str(BIN / "alpha-matrix"), "audit", str(tmp_path / "bags" / "arm-alerts"), "--run-dir", str(tmp_path / "runs" / "arm-alerts")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert audit.returncode == 0 and "1/1 episodes match" in audit.stdout, audit.stdout + audit.stderr
