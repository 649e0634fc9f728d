"""Every node the graphs can start is installed as an executable (`ros2 launch`/`ros2 run` find
it under lib/alpha_matrix): a node file left out of setup.py's NODES starts under the plain
launcher and fails only through ros2 launch."""

from __future__ import annotations

import ast
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _installed() -> set[str]:
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "NODES" for t in node.targets):
            return {ast.literal_eval(e) for e in node.value.elts}  # type: ignore[attr-defined]
    raise AssertionError("setup.py has no NODES list")


def test_every_node_module_is_installed() -> None:
    modules = {p.stem for p in (ROOT / "src/alpha_matrix/nodes").glob("*.py") if "def main(" in p.read_text()}
    assert modules - _installed() == set()


def test_every_executable_a_graph_names_is_installed() -> None:
    named = set()
    for graph in (ROOT / "config").glob("graph*.yaml"):
        for entry in yaml.safe_load(graph.read_text())["nodes"]:
            if entry.get("package", "alpha_matrix") == "alpha_matrix":
                named |= {entry["executable"], *(entry.get("drivers") or {}).values()}
    assert named - _installed() == set()
