"""The live view (--live) seen by a Foxglove WebSocket client nobody here wrote.

The client is @foxglove/ws-protocol from npm (with `ws`), and Foxglove's own ROS 2 decoders read
each message by the schema its channel advertised (test/graph/foxglove_client.mjs). It is installed
into build/foxglove-client by this test when missing (npm, pinned versions). Without node/npm or
the registry the test skips with the reason, unless ALPHA_MATRIX_REQUIRE_FOXGLOVE_CLIENT=1 (CI:
.ci/run installs Node.js when missing and sets it), where it fails instead. The client also asks
for the URDF's meshes as Foxglove's web app does (fetchAsset): the robot's own, nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import subprocess
from pathlib import Path

import pytest
from npm_tools import ONE_APPROACH, npm_installed, pinned
from rclpy.serialization import deserialize_message
from sensor_msgs.msg import Image, JointState

from alpha_matrix.core.viz.robot_shapes import default_mesh_root
from conftest import run_cli, start_cli, wait_until

ROOT = Path(__file__).resolve().parents[2]
CLIENT_DIR = ROOT / "build" / "foxglove-client"
CLIENT = Path(__file__).with_name("foxglove_client.mjs")
REQUIRE_ENV = "ALPHA_MATRIX_REQUIRE_FOXGLOVE_CLIENT"
PACKAGES = pinned(  # the client the test speaks to the server with
    "@foxglove/ws-protocol", "ws", "@foxglove/rosmsg", "@foxglove/rosmsg2-serialization"
)


@pytest.fixture(scope="module")
def foxglove_client() -> Path:
    """build/foxglove-client with the pinned npm packages (installed once, then reused)."""
    return npm_installed(
        CLIENT_DIR,
        {"name": "alpha-matrix-foxglove-client", "private": True, "dependencies": PACKAGES},
        REQUIRE_ENV,
        "the Foxglove client",
    )


MESH = "package://meshes/visual/link1.obj"  # as the simulated Panda's URDF names it


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_foxglove_client_watches_a_proximity_run(foxglove_client: Path, tmp_path: Path) -> None:
    port = _free_port()
    (tmp_path / "s.yaml").write_text(ONE_APPROACH)
    watched = ["/joint_states", "/robot/step_batch", "/camera/depth/image_raw"]
    # The run is held until the client watches every watched topic (--live-wait): a short run is not
    # over before a slow client has subscribed.
    args = ["suite", "proximity", "--scenarios", "s.yaml", "--run-id", "live", "--live", "--live-port", str(port)]
    args += ["--live-wait", "60", "--set", f"foxglove_live.wait_for=[{','.join(watched)}]"]
    run = start_cli(args, tmp_path, tmp_path / "run.log")
    try:
        expected = ["/camera/color/image_raw", "/proximity/estimate", "/suite/request", "/suite/result"]
        assets = [MESH, "package://meshes/../../../../../../etc/hostname.obj", "package://panda.urdf"]
        client = subprocess.run(
            ["node", str(CLIENT), f"ws://127.0.0.1:{port}", "45", "3", *watched],
            env={
                **os.environ,
                "FOXGLOVE_CLIENT_DIR": str(foxglove_client),
                "FOXGLOVE_EXPECT": ",".join(expected),
                "FOXGLOVE_ASSETS": ",".join(assets),
            },
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert client.returncode == 0, client.stderr[-2000:]
        seen = json.loads(client.stdout.strip().splitlines()[-1])
        wait_until(lambda: run.poll() is not None, 60, "the suite run to end")
    finally:
        if run.poll() is None:
            run.kill()
    log = (tmp_path / "run.log").read_text()
    assert run.returncode == 0, log[-3000:]
    counts = {t: r["count"] for t, r in seen["received"].items()}
    live_lines = [ln for ln in log.splitlines() if "live" in ln or "viewer" in ln]
    why = (seen["reason"], counts, sorted(c["topic"] for c in seen["channels"]), sorted(seen["assets"]), live_lines)
    assert seen["connected"] and seen["reason"] == "complete", why
    channels = {c["topic"]: c for c in seen["channels"]}
    # The graph's topics: joint states, the step stream, the camera, the events; never its plumbing.
    for topic in (*watched, *expected):
        assert topic in channels, sorted(channels)
    assert not {"/rosout", "/parameter_events", "/robot/step_ack"} & set(channels)
    for c in channels.values():  # CDR as ROS sent it, the .msg definition as schema, read by Foxglove's parser
        assert (c["encoding"], c["schemaEncoding"], c["schemaParses"]) == ("cdr", "ros2msg", True), c
    assert channels["/joint_states"]["schemaName"] == "sensor_msgs/msg/JointState"
    got = seen["received"]
    assert all(got[t]["count"] >= 3 for t in watched), {t: got[t]["count"] for t in watched}
    # Decoded by Foxglove's decoder and by rclpy's, from the same bytes.
    joints = deserialize_message(base64.b64decode(got["/joint_states"]["first"]), JointState)
    assert len(joints.name) == len(joints.position) == got["/joint_states"]["decoded"]["name"]["length"] == 9
    frame = deserialize_message(base64.b64decode(got["/camera/depth/image_raw"]["first"]), Image)
    decoded = got["/camera/depth/image_raw"]["decoded"]
    assert (frame.width, frame.height, frame.encoding) == (decoded["width"], decoded["height"], "32FC1")
    assert len(frame.data) == frame.step * frame.height == decoded["data"]["length"]
    assert got["/robot/step_batch"]["decoded"]["episode_id"] == "proximity-s01-1m"
    # The URDF's own mesh, as the web app fetches it, byte for byte; nothing above the meshes' folder, no other file.
    mesh = (default_mesh_root() / MESH.removeprefix("package://")).read_bytes()
    assert seen["assets"][MESH] == {"status": "ok", "size": len(mesh), "sha256": hashlib.sha256(mesh).hexdigest()}
    assert [seen["assets"][a]["status"] for a in assets[1:]] == ["error", "error"], seen["assets"]
    assert f"[foxglove_live] live view on ws://127.0.0.1:{port}" in log
    assert "live view: a viewer watches; the run starts" in log, log[-3000:]
    assert not [ln for ln in log.splitlines() if ln.startswith("[foxglove_live]") and "rror" in ln]


def test_a_run_held_for_a_viewer_who_never_comes_runs_after_its_wait(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(ONE_APPROACH)
    args = ["suite", "proximity", "--scenarios", "s.yaml", "--run-id", "alone", "--live", "--live-port"]
    done = run_cli([*args, str(_free_port()), "--live-wait", "2"], tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    waited = [i for i, ln in enumerate(lines) if "live view: waiting up to 2 s for a viewer to watch a topic" in ln]
    alone = [i for i, ln in enumerate(lines) if "live view: no viewer within 2 s; the run starts without one" in ln]
    first = [i for i, ln in enumerate(lines) if "[1/1] s01-1m:" in ln]
    assert waited and alone and first and waited[0] < alone[0] < first[0], done.stdout[-3000:]
    assert (tmp_path / "runs" / "alone" / "episodes.jsonl").is_file()
