"""The default graph under the real launch_ros `Node` actions of launch/alpha_matrix.launch.py:
the run ends on its own, every process exits 0, and the records equal the plain launcher's."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import pytest
from launch_env import LAUNCH_FILE, deterministic_records, lease_domain, require_tools

from alpha_matrix.launcher import graph_env

require_tools()

import launch_testing.asserts  # noqa: E402
from launch import LaunchDescription  # noqa: E402
from launch.actions import IncludeLaunchDescription, SetEnvironmentVariable  # noqa: E402
from launch.launch_description_sources import PythonLaunchDescriptionSource  # noqa: E402
from launch_testing.actions import ReadyToTest  # noqa: E402

EPISODES = 3


@pytest.mark.launch_test
def generate_test_description():
    out = Path(tempfile.mkdtemp(prefix="alpha-matrix-launch-"))
    atexit.register(shutil.rmtree, out, True)  # after every post-shutdown test has read it
    domain = lease_domain()
    args = {"episodes": str(EPISODES), "run_id": "lt", "runs_dir": str(out / "runs"), "bags_dir": str(out / "bags")}
    return LaunchDescription(
        [
            SetEnvironmentVariable("ROS_DOMAIN_ID", str(domain)),
            SetEnvironmentVariable("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST"),
            IncludeLaunchDescription(PythonLaunchDescriptionSource(str(LAUNCH_FILE)), launch_arguments=args.items()),
            ReadyToTest(),
        ]
    ), {"out": out, "domain": domain}


class TestTheRun(unittest.TestCase):
    def test_the_runner_finds_the_graph_and_finishes(self, proc_output, proc_info):
        # The runner announces the run only once every service and topic it needs is discovered.
        proc_output.assertWaitFor(f"run lt: {EPISODES} episodes", process="episode_runner", timeout=120)
        proc_info.assertWaitForShutdown(process="episode_runner", timeout=300)


@launch_testing.post_shutdown_test()
class TestAfterTheRun(unittest.TestCase):
    def test_every_process_exits_cleanly(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info)

    def test_the_summary_is_printed(self, proc_output):
        text = "".join(io.text.decode() for io in proc_output if "episode_runner" in io.process_name)
        assert f"success: {EPISODES}/{EPISODES}" in text, text[-2000:]

    def test_the_records_equal_the_plain_launchers(self, out, domain):
        plain = out / "plain"
        plain.mkdir()
        cmd = [sys.executable, "-m", "alpha_matrix.cli", "run", "--episodes", str(EPISODES), "--run-id", "lt"]
        r = subprocess.run(cmd, cwd=plain, env=graph_env(domain), capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        launched = deterministic_records(out / "runs" / "lt")
        assert len(launched) == EPISODES and launched == deterministic_records(plain / "runs" / "lt")
        assert (out / "bags" / "lt" / "metadata.yaml").exists()
