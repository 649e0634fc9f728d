"""The user's own gauges: a folder of images and small face files, checked at the boundary.

A folder ``DIR`` holds photos or frames (``.png .jpg .jpeg .bmp .tif .tiff``) and face files
(pydantic, closed): ``gauge.yaml`` for every image of the folder, ``<image stem>.yaml`` for one
image (its keys override ``gauge.yaml``'s). A face file states only what a technician knows::

    min: 0            # the range's ends, in the unit
    max: 10
    unit: bar         # one of UNITS (°C and °F taken for degC and degF)
    sweep: clockwise  # the direction the value grows (default clockwise)
    arc_start_deg: 225  # optional: where min and max sit, deg counter-clockwise from 3 o'clock
    arc_end_deg: -45
    drag_pointer: true  # optional: a red drag (max) or set pointer beside the needle (never the value)
    value: 6.3        # optional: the true value (then the reading is scored)
    readable: false   # optional: this image cannot be read; any value given for it is a hallucination
    style: brass_bezel  # optional labels of your own, for the report's tables
    condition: glare

Names come from listing ``DIR`` itself, one level deep; a name from a file (the scenario file's
``file``) is accepted only as a plain file name that lists in ``DIR``: never a path outside it.
Any problem is one ``ConfigError`` line (the command's exit 2).
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.common import raise_validation
from alpha_matrix.core.suites.gauge.dial import DialSpec

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")
UNITS = ("bar", "mbar", "kPa", "MPa", "Pa", "psi", "degC", "degF", "K", "m", "mm", "%", "rpm", "V", "A")
UNIT_SPELLINGS = {"°C": "degC", "°F": "degF"}  # as printed on a dial: taken for the unit's name
FOLDER_FACE = "gauge.yaml"
MAX_SIDE = 1024  # images are reduced to at most this many px on their long side (the bag carries them)
MAX_IMAGES = 10000
LABEL = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$"  # a style or condition label: a word, shown in tables


class FaceFile(BaseModel):
    """One dial as a technician states it."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    min: float
    max: float
    unit: Literal[UNITS]  # type: ignore[valid-type]
    sweep: Literal["clockwise", "counterclockwise"] = "clockwise"
    arc_start_deg: float | None = Field(None, ge=-360.0, le=360.0)
    arc_end_deg: float | None = Field(None, ge=-360.0, le=360.0)
    drag_pointer: bool = False  # a coloured drag (max) or set pointer beside the needle: never read
    value: float | None = None
    readable: bool | None = None  # None: readable when a value is stated (scored), else listed only
    style: str | None = Field(None, pattern=LABEL)
    condition: str | None = Field(None, pattern=LABEL)

    @field_validator("unit", mode="before")
    @classmethod
    def _spelled(cls, v: object) -> object:
        return UNIT_SPELLINGS.get(v, v) if isinstance(v, str) else v

    @model_validator(mode="after")
    def _check(self) -> FaceFile:
        if self.min >= self.max:
            raise ValueError(f"min ({self.min:g}) must be below max ({self.max:g})")
        if self.readable is True and self.value is None:
            raise ValueError("readable: true needs the true value (value)")
        if (self.arc_start_deg is None) != (self.arc_end_deg is None):
            raise ValueError("arc_start_deg and arc_end_deg go together")
        return self

    @property
    def scored(self) -> bool:
        """Whether a reading of this image is scored: a true value stated, or stated unreadable."""
        return self.value is not None or self.readable is False

    @property
    def is_readable(self) -> bool:
        return self.readable if self.readable is not None else self.value is not None

    def spec(self) -> DialSpec:
        clockwise = self.sweep == "clockwise"
        return DialSpec(
            self.min, self.max, self.unit, clockwise, self.arc_start_deg, self.arc_end_deg, self.drag_pointer
        )


@dataclass(frozen=True)
class UserImage:
    file: str  # plain name in the folder
    sha256: str  # of the decoded, reduced pixels (what the reader and the bag get)
    face: FaceFile


def _plain_name(name: str) -> bool:
    return bool(name) and name not in (".", "..") and "/" not in name and "\\" not in name and "\0" not in name


def inside(folder: Path, name: str) -> Path:
    """``folder/name`` for a plain name listed in the folder; ConfigError otherwise."""
    root = folder.resolve()
    if not _plain_name(name):
        raise ConfigError(f"{root}: {name!r} is not a plain file name in the folder")
    path = (root / name).resolve()
    if path.parent != root or not path.is_file():
        raise ConfigError(f"{root}: {name!r} is not a file of the folder")
    return path


def load_pixels(path: Path) -> np.ndarray:
    """The image as RGB uint8, reduced to ``MAX_SIDE``; ConfigError if it cannot be decoded."""
    data = np.fromfile(str(path), np.uint8) if path.stat().st_size else np.zeros(0, np.uint8)
    bgr = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if bgr is None or bgr.ndim != 3 or min(bgr.shape[:2]) < 16:
        raise ConfigError(f"{path}: not a readable image")
    scale = MAX_SIDE / max(bgr.shape[:2])
    if scale < 1.0:
        bgr = cv2.resize(bgr, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))


def pixels_sha256(pixels: np.ndarray) -> str:
    h = hashlib.sha256(f"{pixels.shape}".encode())
    h.update(np.ascontiguousarray(pixels, np.uint8).tobytes())
    return h.hexdigest()


def _face_raw(path: Path) -> dict[str, Any]:
    raw = load_yaml(path)
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return raw


def _face(path: Path, raw: dict[str, Any]) -> FaceFile:
    try:
        return FaceFile.model_validate(raw)
    except ValidationError as err:
        raise_validation(path, err)


def scan_folder(folder: Path) -> list[UserImage]:
    """Every image of ``folder`` with its face, checked; ConfigError (one line) on the first problem."""
    root = Path(folder)
    if not root.is_dir():
        raise ConfigError(f"--images {folder}: not a directory")
    root = root.resolve()
    entries = sorted(p for p in root.iterdir() if p.is_file())
    images = [p for p in entries if p.suffix.lower() in IMAGE_SUFFIXES]
    if not images:
        raise ConfigError(f"{root}: no images ({', '.join(IMAGE_SUFFIXES)})")
    if len(images) > MAX_IMAGES:
        raise ConfigError(f"{root}: {len(images)} images, at most {MAX_IMAGES}")
    folder_raw = _face_raw(root / FOLDER_FACE) if (root / FOLDER_FACE).is_file() else {}
    if folder_raw:
        _face(root / FOLDER_FACE, {**folder_raw, "value": None} if "value" in folder_raw else folder_raw)
    out = []
    for img in images:
        own = root / f"{img.stem}.yaml"
        raw = {**folder_raw, **(_face_raw(own) if own.is_file() else {})}
        if not raw:
            raise ConfigError(f"{img}: no face file ({FOLDER_FACE} or {img.stem}.yaml)")
        face = _face(own if own.is_file() else root / FOLDER_FACE, raw)
        out.append(UserImage(img.name, pixels_sha256(load_pixels(inside(root, img.name))), face))
    return out


def images_scenario(folder: Path) -> dict[str, Any]:
    """The scenario file's content for ``folder`` (the gauge scenario file's ``images`` form)."""
    items = scan_folder(folder)
    return {
        "images_dir": str(Path(folder).resolve()),
        "images": [{"file": i.file, "sha256": i.sha256, "face": i.face.model_dump(exclude_none=True)} for i in items],
    }


def write_images_scenario(folder: Path) -> Path:
    """Check ``folder`` and write its scenario file where the run can read it; the file is named by
    its content's sha256, so the same folder gives the same file (and a run resumes)."""
    import yaml

    text = yaml.safe_dump(images_scenario(folder), sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    out = Path(tempfile.gettempdir()) / "alpha-matrix-gauge-images" / f"{Path(folder).resolve().name}-{digest}.yaml"
    out.parent.mkdir(parents=True, exist_ok=True)
    if not out.is_file() or out.read_text() != text:
        out.write_text(text)
    return out
