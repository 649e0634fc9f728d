"""Foxglove layouts, one per graph, from the topics its recorder records (docs/foxglove.md).

Each layout is the JSON Foxglove imports (Layouts -> Import from file): a 3D panel in the world
frame with the Panda (its URDF from /robot_description, placed by /tf and /tf_static) and the
scene's markers; the camera images where the graph records them; a plot of the largest contact
force against the monitor's threshold, and, where a person walks, of the person's distance against
the limit; and a table of each decision and verdict topic the graph records. Written by
scripts/foxglove_layouts.py into foxglove/<graph>.json; a unit test keeps them current.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.recorder_params import DEFAULT_RECORDED_TOPICS

# Decisions and verdicts, in the order their tables are stacked.
TABLE_TOPICS = (
    "/agent/decisions",
    "/gauge/readings",
    "/refusal/verdicts",
    "/injection/verdicts",
    "/suite/result",
    "/episode/result",
    "/safety/events",
)
IMAGE_TYPE = "sensor_msgs/msg/Image"


def graph_name(graph_file: Path) -> str:
    """config/graph.yaml -> matrix, config/graph_<suite>.yaml -> <suite>."""
    stem = graph_file.stem
    return "matrix" if stem == "graph" else stem.removeprefix("graph_")


def recorded_topics(config_dir: Path, graph_file: Path) -> dict[str, str]:
    """The graph's recorded topics (name -> type), from its params file (or the recorder's defaults)."""
    params_file = load_yaml(graph_file).get("params_file", "params.yaml")
    params = load_yaml(config_dir / params_file)
    items = (params.get("recorder") or {}).get("ros__parameters", {}).get("topics") or DEFAULT_RECORDED_TOPICS
    return dict(item.split("=", 1) for item in items)


def _plot(paths: Sequence[tuple[str, str]]) -> dict[str, Any]:
    return {
        "paths": [
            {"value": v, "enabled": True, "timestampMethod": "receiveTime", "label": label} for v, label in paths
        ],
        "showXAxisLabels": True,
        "showYAxisLabels": True,
        "showLegend": True,
        "legendDisplay": "floating",
        "isSynced": True,
        "xAxisVal": "timestamp",
    }


def _three_d() -> dict[str, Any]:
    """The 3D panel. The camera follows the world frame, so it is aimed by ``targetOffset`` (a
    ``target`` is reset to the followed frame), and the frame labels are set under ``scene``: the
    keys the viewer reads (checked in Lichtblick 1.10.8)."""
    return {
        "followTf": "world",
        "followMode": "follow-none",
        "cameraState": {
            "distance": 3.0, "perspective": True, "phi": 55.0, "thetaOffset": 135.0,
            "target": [0, 0, 0], "targetOffset": [0.5, 0.0, 0.7], "targetOrientation": [0, 0, 0, 1], "fovy": 45, "near": 0.01, "far": 5000,
        },
        "scene": {"enableStats": False, "transforms": {"showLabel": False, "axisScale": 0.5}},
        "topics": {"/robot_description": {"visible": True}, "/scene/markers": {"visible": True}, "/scene/robot": {"visible": True}},
        "layers": {
            "grid": {"layerId": "foxglove.Grid", "visible": True, "frameId": "world", "size": 4, "divisions": 8, "position": [0, 0, 0], "rotation": [0, 0, 0], "order": 1},
            "panda": {"layerId": "foxglove.Urdf", "visible": True, "sourceType": "topic", "topic": "/robot_description", "label": "Panda (/robot_description)", "order": 2},
        },
    }  # fmt: skip


def _stack(panels: Sequence[str], direction: str = "column") -> Any:
    """A mosaic of ``panels`` split evenly along ``direction``."""
    if len(panels) == 1:
        return panels[0]
    half = len(panels) // 2
    return {
        "first": _stack(panels[:half], direction),
        "second": _stack(panels[half:], direction),
        "direction": direction,
        "splitPercentage": 100.0 * half / len(panels),
    }


def layout(name: str, topics: dict[str, str]) -> dict[str, Any]:
    """The layout of graph ``name`` recording ``topics`` (name -> type)."""
    config: dict[str, Any] = {"3D!scene": _three_d()}
    side: list[str] = []
    for i, topic in enumerate(t for t, kind in topics.items() if kind == IMAGE_TYPE):
        config[f"Image!camera{i}"] = {"imageMode": {"imageTopic": topic}, "cameraState": {}}
        side.append(f"Image!camera{i}")
    plots = []
    if "/scene/contact_force" in topics:
        config["Plot!contact"] = _plot(
            [
                ("/scene/contact_force.data", "largest contact force (N)"),
                ("/scene/contact_threshold.data", "threshold (N)"),
            ]
        )
        plots.append("Plot!contact")
    if "/scene/person_distance" in topics:
        config["Plot!person"] = _plot(
            [("/scene/person_distance.data", "person's distance (m)"), ("/scene/person_limit.data", "limit (m)")]
        )
        plots.append("Plot!person")
    tables = []
    for topic in (t for t in TABLE_TOPICS if t in topics):
        key = "Table!" + topic.strip("/").replace("/", "_")
        config[key] = {"topicPath": topic}
        tables.append(key)
    left = _stack(["3D!scene", *side]) if side else "3D!scene"
    right = _stack([*plots, *tables]) if plots or tables else None
    mosaic = {"first": left, "second": right, "direction": "row", "splitPercentage": 60.0} if right else left
    return {
        "configById": config,
        "globalVariables": {},
        "userNodes": {},
        "playbackConfig": {"speed": 1.0},
        "layout": mosaic,
        "alpha_matrix": {"graph": name, "how": "docs/foxglove.md"},
    }
