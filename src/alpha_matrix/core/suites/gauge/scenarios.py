"""The gauge scenario file: pydantic at the boundary, plain ``GaugeScenarios`` inside.

Every problem is one ``ConfigError`` line naming the file and the key (unknown keys, an odd or
too small set, reader settings out of range).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.common import config_dir, raise_validation
from alpha_matrix.core.suites.gauge.reader import ReaderSettings

MIN_ITEMS = 20  # one readable and one unreadable item of every degradation


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


_D = ReaderSettings()  # the defaults live in one place: the reader's own settings


class ReaderModel(_Model):
    min_contrast: float = Field(default=_D.min_contrast, gt=0.0, le=255.0)
    noise_k: float = Field(default=_D.noise_k, ge=0.0)
    min_ticks: int = Field(default=_D.min_ticks, ge=2)
    tip_share: float = Field(default=_D.tip_share, gt=0.0, le=1.0)
    ambiguity: float = Field(default=_D.ambiguity, gt=0.0, le=1.0)
    min_px_per_2pct: float = Field(default=_D.min_px_per_2pct, gt=0.0)


class GaugeFileModel(_Model):
    seed: int = Field(default=15, ge=0)
    items: int = Field(default=200, ge=MIN_ITEMS)
    examples_per_degradation: int = Field(default=2, ge=0, le=10)
    reader: ReaderModel = Field(default_factory=ReaderModel)

    @model_validator(mode="after")
    def _balanced(self) -> GaugeFileModel:
        if self.items % 2:
            raise ValueError("items must be even (half readable, half unreadable)")
        return self


@dataclass(frozen=True)
class GaugeScenarios:
    seed: int
    items: int
    examples_per_degradation: int
    reader: ReaderSettings


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
    return GaugeScenarios(m.seed, m.items, m.examples_per_degradation, ReaderSettings(**m.reader.model_dump()))
