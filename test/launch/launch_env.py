"""What the launch tests share: the ROS 2 launch tools (required in CI), a domain, the records."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from alpha_matrix.core.domains import DomainLease, allocate
from alpha_matrix.core.records import seeded_view

ROOT = Path(__file__).resolve().parents[2]
LAUNCH_FILE = ROOT / "launch" / "alpha_matrix.launch.py"
# .ci/run sets it: there, tests that need the tools fail instead of skipping.
REQUIRE_ENV = "ALPHA_MATRIX_REQUIRE_ROS2_TOOLS"
_leases: list[DomainLease] = []


def require_tools() -> None:
    """Skip the module without launch_testing/ros2cli (setup installs them from
    vendor/ros2-tools), unless the run requires them."""
    try:
        import launch_ros  # noqa: F401
        import launch_testing  # noqa: F401
        import ros2cli  # noqa: F401
    except ImportError as err:
        reason = (
            f"ROS 2 launch/CLI tools not installed ({err.name}): scripts/setup.sh installs them from vendor/ros2-tools"
        )
        if os.environ.get(REQUIRE_ENV):
            pytest.fail(f"{reason}, and {REQUIRE_ENV} is set", pytrace=False)
        pytest.skip(reason, allow_module_level=True)


def lease_domain() -> int:
    """A ROS domain for this test's graph, held until the test process ends."""
    lease = allocate(1)[0]
    _leases.append(lease)
    return lease.domain_id


def deterministic_records(run_dir: Path) -> dict[str, str]:
    """episode id -> the record without what differs between two runs of the same seeds
    (``records.seeded_view``: timing, run id, the checkout the run started from)."""
    out = {}
    for line in (run_dir / "episodes.jsonl").read_text().splitlines():
        rec = json.loads(line)
        out[rec["episode_id"]] = json.dumps(seeded_view(rec), sort_keys=True)
    return out
