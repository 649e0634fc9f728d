"""Foxglove's own npm packages for the graph tests (installed once under build/, then reused),
and the proximity suite's shortest camera run that those tests play."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

# One approach of the walking person (the SSM policy): the proximity suite's shortest run with a
# camera, a step stream and /joint_states, about 20 s on a loaded 2-core machine.
ONE_APPROACH = """seed: 7
thresholds: [1.0]
policy: {mode: ssm}
approaches:
  - {name: s01, angle_deg: 90, start_distance: 4.0, stop_distance: 0.9, speed: 2.0, posture: upright, dwell_s: 0.5}
"""


# Every npm package a graph test installs, pinned once (a test takes the ones it needs by name).
PINS = {
    "@mcap/core": "2.2.2",
    "@mcap/nodejs": "1.0.2",
    "@foxglove/rosmsg": "5.0.5",
    "@foxglove/rosmsg2-serialization": "3.1.0",
    "@foxglove/wasm-zstd": "1.0.1",
    "@foxglove/ws-protocol": "0.8.0",
    "ws": "8.18.3",
}


def pinned(*names: str) -> dict[str, str]:
    """The pinned versions of ``names``, in that order."""
    return {n: PINS[n] for n in names}


def unavailable(require_env: str, reason: str) -> None:
    """Skip, or fail where ``require_env`` is 1 (CI: .ci/run sets it)."""
    if os.environ.get(require_env) == "1":
        pytest.fail(f"{require_env}=1 but {reason}")
    pytest.skip(reason)


def npm_installed(directory: Path, package: dict[str, Any], require_env: str, what: str) -> Path:
    """``directory`` with ``package`` (a package.json: its pinned dependencies) installed; npm runs
    only when the spec changed or a dependency is missing."""
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        unavailable(require_env, f"no Node.js (node and npm) on PATH for {what}")
    spec = json.dumps(package, indent=2) + "\n"
    manifest = directory / "package.json"
    installed = all((directory / "node_modules" / name / "package.json").exists() for name in package["dependencies"])
    if installed and manifest.exists() and manifest.read_text() == spec:
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    manifest.write_text(spec)
    try:
        done = subprocess.run(
            [str(npm), "install", "--no-audit", "--no-fund", "--no-package-lock"],
            cwd=directory, capture_output=True, text=True, timeout=180,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        unavailable(require_env, f"npm install of {what} took over 180 s")
    if done.returncode != 0:
        unavailable(require_env, f"npm install of {what} failed: {done.stderr.strip().splitlines()[-1:]}")
    return directory
