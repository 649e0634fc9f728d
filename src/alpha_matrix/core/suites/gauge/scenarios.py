"""The gauge scenario file: pydantic at the boundary, plain ``GaugeScenarios`` inside.

Every problem is one ``ConfigError`` line naming the file and the key (unknown keys, an odd or
too small set). The reader's settings are the gauge_reader node's parameters
(config/params_gauge.yaml), not the scenario's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.common import config_dir, raise_validation
from alpha_matrix.core.suites.gauge.context import GaugeContext
from alpha_matrix.core.suites.gauge.settings import ReaderSettings
from alpha_matrix.core.suites.suite import ScenarioRequest

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph

MIN_ITEMS = 20  # one readable and one unreadable item of every degradation


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GaugeFileModel(_Model):
    seed: int = Field(default=15, ge=0)
    items: int = Field(default=200, ge=MIN_ITEMS)

    @model_validator(mode="after")
    def _balanced(self) -> GaugeFileModel:
        if self.items % 2:
            raise ValueError("items must be even (half readable, half unreadable)")
        return self


@dataclass(frozen=True)
class GaugeScenarios:
    seed: int
    items: int


def default_path() -> Path:
    return config_dir() / "scenarios" / "gauge.yaml"


def load_gauge_scenarios(path: Path | None) -> GaugeScenarios:
    """Validate the file (None: the package's); any problem is one ConfigError line."""
    path = path or default_path()
    raw = load_yaml(path)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    try:
        m = GaugeFileModel.model_validate(raw)
    except ValidationError as err:
        raise_validation(path, err)
    return GaugeScenarios(m.seed, m.items)


# ----------------------------------------------------------------------------- the requests
def scenario_requests(scenarios: Path | None, _config_file: Path | None = None) -> list[ScenarioRequest]:
    """Every item of the set as the runner sends it (built here: the rule needs the scene's rays)."""
    from alpha_matrix.core.suites.gauge.dataset import build_set
    from alpha_matrix.core.suites.gauge.run import item_name, scenario_json
    from alpha_matrix.core.suites.gauge.scene import GaugeScene

    spec = load_gauge_scenarios(scenarios)
    with GaugeScene() as scene:
        items = build_set(scene, spec.seed, spec.items)
    return [ScenarioRequest(item_name(i.index), i.seed, scenario_json(i)) for i in items]


def graph_context(graph: Graph) -> GaugeContext:
    """gauge_reader's evidence bounds, as the resolved graph gives them (--set honoured)."""
    params = graph.node("gauge_reader").parameters
    return GaugeContext(reader={k: params[k] for k in ReaderSettings.__dataclass_fields__})
