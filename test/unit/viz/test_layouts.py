"""Every graph is viewable: its description runs scene_markers, its recorder records the viewer's
topics, and its shipped Foxglove layout (foxglove/<graph>.json) is current and names only topics
the graph records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.graph import VIEW_ONLY
from alpha_matrix.core.recorder_params import DEFAULT_RECORDED_TOPICS, hashed_topics
from alpha_matrix.core.resolve import resolve_graph
from alpha_matrix.core.viz.layouts import graph_name, layout, recorded_topics

ROOT = Path(__file__).resolve().parents[3]
CONFIG = ROOT / "config"
GRAPHS = sorted(CONFIG.glob("graph*.yaml"))
VIEW = {
    "/robot_description", "/tf", "/tf_static", "/scene/markers", "/scene/robot", "/scene/contact_force", "/scene/contact_threshold",
}  # fmt: skip


def _paths(config: dict) -> set[str]:
    """Every topic a layout's panels read."""
    out = set()
    for key, panel in config.items():
        if key.startswith("Plot!"):
            out |= {p["value"].rsplit(".", 1)[0] for p in panel["paths"]}
        elif key.startswith("Table!"):
            out.add(panel["topicPath"])
        elif key.startswith("Image!"):
            out.add(panel["imageMode"]["imageTopic"])
        elif key.startswith("3D!"):
            out |= set(panel["topics"])
    return out


@pytest.mark.parametrize("graph", GRAPHS, ids=[g.stem for g in GRAPHS])
def test_the_graph_runs_scene_markers_records_the_view_and_ships_its_layout(graph: Path) -> None:
    executables = {n["executable"] for n in load_yaml(graph)["nodes"]}
    assert "scene_markers" in executables
    topics = recorded_topics(CONFIG, graph)
    assert VIEW <= set(topics), sorted(VIEW - set(topics))
    shipped = json.loads((ROOT / "foxglove" / f"{graph_name(graph)}.json").read_text())
    assert shipped == layout(graph_name(graph), topics)
    assert _paths(shipped["configById"]) <= set(topics)
    assert "3D!scene" in shipped["configById"] and "Plot!contact" in shipped["configById"]
    if any(kind == "sensor_msgs/msg/Image" for kind in topics.values()):
        assert any(k.startswith("Image!") for k in shipped["configById"])


def test_the_layouts_on_disk_are_what_the_script_writes() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "foxglove_layouts.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_what_only_a_viewer_reads_is_no_part_of_the_config_hash() -> None:
    assert VIEW_ONLY == {"scene_markers"}
    shipped = resolve_graph(CONFIG)
    assert resolve_graph(CONFIG, exclude=("scene_markers",)).config_hash == shipped.config_hash
    unviewed = {"recorder": {"topics": hashed_topics(list(DEFAULT_RECORDED_TOPICS))}}
    assert resolve_graph(CONFIG, unviewed).config_hash == shipped.config_hash
    assert "scene_markers" in shipped.node("recorder").parameters["graph_nodes"]  # its topics are awaited
    kept = ["/robot/step_batch=alpha_matrix_interfaces/msg/StepBatch"]
    view = [f"{t}=x/msg/Y" for t in sorted(VIEW)] + ["/scene/person_distance=std_msgs/msg/Float64"]
    assert hashed_topics(kept + view) == kept
