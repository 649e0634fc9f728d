"""The driver conformance check as a launch test, the form a driver author runs in their own CI:
replace the `Node` below with your driver's launch. Here: sim_bridge as an external driver
passes every clause, and a broken variant (stops applied 40 steps after the decision instead of
L = 24) fails the clauses that name it."""

from __future__ import annotations

import subprocess
import sys
import unittest

import pytest
from launch_env import lease_domain, require_tools

from alpha_matrix.launcher import graph_env

require_tools()

import launch_testing  # noqa: E402
from launch import LaunchDescription  # noqa: E402
from launch_ros.actions import Node  # noqa: E402
from launch_testing.actions import ReadyToTest  # noqa: E402

BROKEN = {"bounded lookahead: never beyond ack + L", "stops land at decision + L (L = 24)"}


@launch_testing.parametrize("latency, failing", [(24, set()), (40, BROKEN)])
@pytest.mark.launch_test
def generate_test_description(latency, failing):
    domain = lease_domain()
    driver = Node(
        package="alpha_matrix",
        executable="sim_bridge",
        # the driver gates on the checker, so bounded lookahead is checked too (--gating)
        parameters=[{"gating_consumers": ["check_driver"], "reaction_latency_steps": latency}],
        additional_env={"ROS_DOMAIN_ID": str(domain), "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"},
        output="screen",
    )
    return LaunchDescription([driver, ReadyToTest()]), {"domain": domain}


class TestTheDriver(unittest.TestCase):
    def test_check_driver(self, domain, failing):
        cmd = [sys.executable, "-m", "alpha_matrix.cli", "check-driver", "--gating", "--timeout", "60"]
        r = subprocess.run(cmd, env=graph_env(domain), capture_output=True, text=True, timeout=300)
        rows = [line for line in r.stdout.splitlines() if line[:4] in ("pass", "FAIL", "n/a ")]
        assert len(rows) == 10, r.stdout + r.stderr
        failed = {line[6:].split("  ")[0] for line in rows if line.startswith("FAIL")}
        assert failed == failing and r.returncode == (1 if failing else 0), r.stdout + r.stderr
