"""Each suite's graph under the real launch_ros `Node` actions of launch/suite.launch.py, on a
short scenario file: the suite runner finishes, every process exits 0, every scenario is recorded."""

from __future__ import annotations

import atexit
import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import pytest
from launch_env import ROOT, lease_domain, require_tools

require_tools()

import launch_testing  # noqa: E402
import launch_testing.asserts  # noqa: E402
from launch import LaunchDescription  # noqa: E402
from launch.actions import IncludeLaunchDescription, SetEnvironmentVariable  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402
from launch_testing.actions import ReadyToTest  # noqa: E402

# One or two scenarios each: the graph and its exits are under test here, not the suite's figures.
SCENARIOS = {
    "proximity": """seed: 42
thresholds: [1.0]
approaches:
  - {name: a02, angle_deg: 180, start_distance: 4.2, stop_distance: 0.7, speed: 2.0, posture: upright, lighting: bright, dwell_s: 0.5}
""",
    "alerts": """seed: 42
scenarios:
  - name: battery_critical_descend
    phase: descend
    alerts:
      - {id: bc1, class: battery_critical, severity: critical, at_step: 480, cleared_at_step: 760, payload: {battery_pct: 6.5}}
""",
    "confidence": """seed: 42
tasks:
  - name: sort_one
    goals: ["red -> zone_a"]
""",
}


@launch_testing.parametrize("suite", list(SCENARIOS))
@pytest.mark.launch_test
def generate_test_description(suite):
    out = Path(tempfile.mkdtemp(prefix=f"alpha-matrix-launch-{suite}-"))
    atexit.register(shutil.rmtree, out, True)  # after every post-shutdown test has read it
    (out / "s.yaml").write_text(SCENARIOS[suite])
    args = {"suite": suite, "scenarios": str(out / "s.yaml"), "run_id": suite, "runs_dir": str(out / "runs")}
    args["bags_dir"] = str(out / "bags")
    return LaunchDescription(
        [
            SetEnvironmentVariable("ROS_DOMAIN_ID", str(lease_domain())),
            SetEnvironmentVariable("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST"),
            IncludeLaunchDescription(
                PythonLaunchDescriptionSource(str(ROOT / "launch" / "suite.launch.py")), launch_arguments=args.items()
            ),
            ReadyToTest(),
        ]
    ), {"out": out}


class TestTheSuite(unittest.TestCase):
    def test_the_suite_runner_finishes(self, proc_info):
        proc_info.assertWaitForShutdown(process="suite_runner", timeout=300)


@launch_testing.post_shutdown_test()
class TestAfterTheSuite(unittest.TestCase):
    def test_every_process_exits_cleanly(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info)

    def test_every_scenario_is_recorded_and_reported(self, out, suite):
        run_dir = out / "runs" / suite
        rows = [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]
        assert rows and all(r["suite"] == suite and r["ok"] for r in rows), rows
        assert (out / "bags" / suite / "metadata.yaml").exists()
        # Under ros2 launch nobody writes the report at the end: `alpha-matrix report` does, from the records.
        r = subprocess.run(
            [sys.executable, "-m", "alpha_matrix.cli", "report", str(run_dir)], capture_output=True, text=True
        )
        assert r.returncode == 0 and (run_dir / "report.md").exists(), r.stdout + r.stderr
