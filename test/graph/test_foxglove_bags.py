"""Our bags as Foxglove opens them: every message of a matrix bag and a proximity bag decoded by
Foxglove's own readers (test/graph/foxglove_bag_reader.mjs: @mcap/core, @mcap/nodejs,
@foxglove/wasm-zstd, @foxglove/rosmsg, @foxglove/rosmsg2-serialization from npm), the viewer's
topics included; the URDF on /robot_description parses, every link it names is a published TF
frame under ``world``, every split opens with the robot model, its fixed frames and its links as
primitives locked to their frames (/scene/robot, for a viewer without the meshes), and the
scene's markers keep pace with the robot in every split (none lags an episode behind).

The readers are installed into build/foxglove-readers by this test when missing (npm, pinned
versions). Without node/npm or the registry the test skips with the reason, unless
ALPHA_MATRIX_REQUIRE_FOXGLOVE_READERS=1 (CI: .ci/run sets it), where it fails instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from npm_tools import ONE_APPROACH, npm_installed, pinned

from conftest import run_cli

ROOT = Path(__file__).resolve().parents[2]
READERS_DIR = ROOT / "build" / "foxglove-readers"
READER = Path(__file__).with_name("foxglove_bag_reader.mjs")
REQUIRE_ENV = "ALPHA_MATRIX_REQUIRE_FOXGLOVE_READERS"
PACKAGES = pinned(  # the readers Foxglove itself opens an MCAP file with
    "@mcap/core", "@mcap/nodejs", "@foxglove/rosmsg", "@foxglove/rosmsg2-serialization", "@foxglove/wasm-zstd"
)
VIEW_TOPICS = {
    "/robot_description",
    "/tf",
    "/tf_static",
    "/scene/markers",
    "/scene/robot",
    "/scene/contact_force",
    "/scene/contact_threshold",
}


@pytest.fixture(scope="module")
def foxglove_readers() -> Path:
    """build/foxglove-readers with the pinned npm packages (installed once, then reused)."""
    return npm_installed(
        READERS_DIR,
        {"name": "alpha-matrix-foxglove-readers", "private": True, "type": "module", "dependencies": PACKAGES},
        REQUIRE_ENV,
        "Foxglove's bag readers",
    )


def _decode(readers: Path, bag: Path) -> dict[str, Any]:
    splits = sorted(bag.glob("*.mcap"))
    assert splits, f"no splits in {bag}"
    done = subprocess.run(
        ["node", str(READER), *map(str, splits)],
        env={**os.environ, "FOXGLOVE_READERS_DIR": str(readers)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _check_viewable(seen: dict[str, Any], topics: set[str]) -> None:
    assert not seen["errors"], seen["errors"]
    totals: dict[str, int] = {}
    for name, split in seen["files"].items():
        assert not split["failed"], (name, split["failed"])
        for topic in ("/robot_description", "/tf_static", "/scene/robot"):  # each split opened alone shows the robot
            assert split["counts"].get(topic) == 1, (name, topic, split["counts"])
        for topic, n in split["counts"].items():
            totals[topic] = totals.get(topic, 0) + n
        batches = split["counts"].get("/robot/step_batch", 0)  # the markers keep pace with the robot
        assert batches < 10 or split["counts"].get("/scene/markers", 0) >= batches // 2, (name, split["counts"])
    assert topics <= {t for t, n in totals.items() if n}, sorted(topics - set(totals))
    urdf = ET.fromstring(seen["robot_description"])
    links = {link.get("name", "") for link in urdf.findall("link")}
    frames = set(seen["tf_frames"]) | set(seen["tf_static_frames"])
    assert links <= frames, sorted(links - frames)
    assert set(seen["tf_parents"]) <= frames | {"world"}, sorted(set(seen["tf_parents"]) - frames)
    assert set(seen["marker_frames"]) <= frames | {"world"}
    assert {"table", "workspace", "zone", "objects", "robot"} <= set(seen["marker_ns"])
    # the robot without its meshes: every link that has geometry is drawn, locked to its frame
    solid = {
        k.get("name", "")
        for k in urdf.findall("link")
        if k.find("collision") is not None or k.find("visual") is not None
    }
    assert len(solid) >= 10 and set(seen["robot_locked_frames"]) == solid, sorted(
        solid ^ set(seen["robot_locked_frames"])
    )


@pytest.mark.alone  # the markers keep pace only with the machine's headroom: scene_markers gates nothing
def test_foxglove_decodes_every_message_of_a_matrix_bag(foxglove_readers: Path, tmp_path: Path) -> None:
    done = run_cli(["run", "--episodes", "2", "--run-id", "fox"], tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = _decode(foxglove_readers, tmp_path / "bags" / "fox")
    _check_viewable(seen, VIEW_TOPICS | {"/robot/step_batch", "/episode/result"})


@pytest.mark.alone  # the markers keep pace only with the machine's headroom: scene_markers gates nothing
def test_foxglove_decodes_every_message_of_a_proximity_bag(foxglove_readers: Path, tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(ONE_APPROACH)
    done = run_cli(["suite", "proximity", "--scenarios", "s.yaml", "--run-id", "fox"], tmp_path, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = _decode(foxglove_readers, tmp_path / "bags" / "fox")
    _check_viewable(seen, VIEW_TOPICS | {"/camera/depth/image_raw", "/scene/person_distance", "/scene/person_limit"})
    assert {"camera_optical", "person"} <= set(seen["tf_frames"]) | set(seen["tf_static_frames"])
    assert {"person", "events"} <= set(seen["marker_ns"])  # the person came within the limit: a stop is drawn
