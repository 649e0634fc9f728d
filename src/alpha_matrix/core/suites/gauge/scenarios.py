"""The gauge scenario file: pydantic at the boundary, plain ``GaugeScenarios`` inside.

Every problem is one ``ConfigError`` line naming the file and the key (unknown keys, an odd or
too small set). The reader's settings are the gauge_reader node's parameters
(config/params_gauge.yaml), not the scenario's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

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


class ImageEntryModel(_Model):
    file: str = Field(min_length=1)  # a plain name in images_dir
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")  # of the decoded pixels (user_images.pixels_sha256)
    face: dict[str, Any]  # a face file's keys (user_images.FaceFile)


class GaugeFileModel(_Model):
    seed: int = Field(default=15, ge=0)
    items: int = Field(default=200, ge=MIN_ITEMS)
    faces: list[str] | None = Field(
        default=None, min_length=1
    )  # the set's faces (faces.FACES); none: the shipped three
    images_dir: str | None = None  # the user's own gauges (alpha-matrix suite gauge --images DIR)
    images: list[ImageEntryModel] | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _balanced(self) -> GaugeFileModel:
        if self.items % 2:
            raise ValueError("items must be even (half readable, half unreadable)")
        if (self.images_dir is None) != (self.images is None):
            raise ValueError("images_dir and images go together")
        if self.faces is not None and self.images_dir is not None:
            raise ValueError("faces and images_dir do not go together")
        return self

    @field_validator("faces")
    @classmethod
    def _known_faces(cls, faces: list[str] | None) -> list[str] | None:
        from alpha_matrix.core.suites.gauge.faces import FACES  # OpenCV: only when a file names faces

        for f in faces or ():
            if f not in FACES:
                raise ValueError(f"unknown face {f!r} (known: {', '.join(FACES)})")
        if faces is not None and len(set(faces)) != len(faces):
            raise ValueError("a face is listed twice")
        return faces


@dataclass(frozen=True)
class GaugeScenarios:
    seed: int
    items: int
    images_dir: Path | None = None
    images: tuple[ImageEntryModel, ...] = ()
    faces: tuple[str, ...] | None = None  # the set's faces; None: the shipped set's


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
    if m.images_dir is None:
        return GaugeScenarios(m.seed, m.items, faces=None if m.faces is None else tuple(m.faces))
    folder = Path(m.images_dir)
    folder = folder if folder.is_absolute() else path.parent / folder
    if not folder.is_dir():
        raise ConfigError(f"{path}: images_dir: {m.images_dir} is not a directory")
    return GaugeScenarios(m.seed, m.items, folder.resolve(), tuple(m.images or ()))


# ----------------------------------------------------------------------------- the requests
def scenario_requests(scenarios: Path | None, _config_file: Path | None = None) -> list[ScenarioRequest]:
    """Every item of the set as the runner sends it (built here: the rule needs the scene's rays)."""
    from alpha_matrix.core.suites.gauge.dataset import build_set
    from alpha_matrix.core.suites.gauge.run import item_name, scenario_json
    from alpha_matrix.core.suites.gauge.scene import GaugeScene

    spec = load_gauge_scenarios(scenarios)
    if spec.images_dir is not None:
        return user_requests(spec.images_dir, spec.images)
    with GaugeScene() as scene:
        items = build_set(scene, spec.seed, spec.items, spec.faces)
    return [ScenarioRequest(item_name(i.index), i.seed, scenario_json(i)) for i in items]


def graph_context(graph: Graph) -> GaugeContext:
    """gauge_reader's evidence bounds, as the resolved graph gives them (--set honoured)."""
    params = graph.node("gauge_reader").parameters
    return GaugeContext(reader={k: params[k] for k in ReaderSettings.__dataclass_fields__})


def user_requests(folder: Path, entries: tuple[ImageEntryModel, ...]) -> list[ScenarioRequest]:
    """One request per user image: its file (a plain name in ``folder``), its pixels' sha256 (checked
    against the file now: a changed image is one ConfigError line) and its face; no truth but
    the face file's optional ``value`` and ``readable``."""
    from alpha_matrix.core.records import canonical_json
    from alpha_matrix.core.suites.gauge import run
    from alpha_matrix.core.suites.gauge.user_images import FaceFile, inside, load_pixels, pixels_sha256

    out = []
    for i, e in enumerate(entries):
        path = inside(folder, e.file)
        face = FaceFile.model_validate(e.face)
        if pixels_sha256(load_pixels(path)) != e.sha256:
            raise ConfigError(f"{path}: the image changed since its scenario file was written")
        req = run.GaugeRequest(
            index=i, face=run.USER_PREFIX + e.file, degradation=face.condition or "user_image", readable=face.is_readable,
            reason="", seed=0, attempt=0, conditions={} if face.value is None else {"value": face.value},
            user={"file": e.file, "path": str(path), "sha256": e.sha256, "face": face.model_dump(exclude_none=True)},
        )  # fmt: skip
        out.append(ScenarioRequest(f"u{i:03d}", 0, canonical_json(req.model_dump(mode="json", exclude_none=True))))
    return out
