"""What the matrix adds to a graph's resolution: the arms its runner will run (which decide the
nodes a run starts), the LLM planner's prompt template and whether an episode may have F1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.graph import NodeEntry, NodeSpec
from alpha_matrix.core.matrix.cells import Cell, arm_family, matrix_cells
from alpha_matrix.core.planning.params import LLMPlannerParams
from alpha_matrix.core.planning.prompt import load_prompt


def runner_arms(entries: list[NodeEntry], params_raw: dict, overrides: dict[str, dict[str, Any]]) -> list[str]:
    """The arms the episode runner will run (what ``when_arms`` nodes are judged by)."""
    for e in entries:
        if e.executable == "episode_runner":
            section = (params_raw.get(e.name) or {}).get("ros__parameters") or {}
            arms = overrides.get(e.name, {}).get("arms", section.get("arms", ["oracle"]))
            return [arm_family(str(a)) for a in arms] if isinstance(arms, list) else []
    return []


def resolve_prompt(config_dir: Path, values: dict[str, Any], where: str) -> dict[str, str]:
    """The prompt template as an absolute path, and its content hash (checked by the node at start)."""
    name = values.get("prompt", LLMPlannerParams.model_fields["prompt"].default)
    if not isinstance(name, str):
        raise ConfigError(f"{where}: prompt: expected a path")
    path = Path(name) if Path(name).is_absolute() else config_dir / name
    template = load_prompt(path)
    return {"prompt": str(path.resolve()), "prompt_sha256": template.sha256}


def f1_possible(specs: list[NodeSpec]) -> bool:
    """Whether an episode of this graph may have F1 (observations from the past): the runner's
    cells say; without a runner, whoever drives the graph may configure it."""
    runner = next((s.parameters for s in specs if s.executable == "episode_runner"), None)
    if runner is None:
        return True
    cells = matrix_cells() if runner["matrix"] else [Cell(str(runner["fault"]), 0.0, 0)]
    return bool(runner["chaos"]) and any("F1" in c.faults for c in cells)
