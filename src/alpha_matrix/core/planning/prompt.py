"""Versioned prompt templates for the LLM planner, and their rendering from observed facts.

A template lives in ``config/prompts/*.yaml`` and is hashed, so every plan can say which exact
prompt produced it. Rendering only ever inserts *facts* — the task text, the observed object
positions and the zone centre, rounded to millimetres — never a plan or an answer's grasp or
place coordinates: the experiment measures the model's planning, not its copying.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from string import Template

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.outcome import MAX_EPISODE_STEPS, SETTLE_STEPS
from alpha_matrix.core.planning.plan import generation_schema
from alpha_matrix.core.templates import canonical_sha256, check_placeholders

Vec3 = tuple[float, float, float]

REQUIRED_PLACEHOLDERS = frozenset({"task", "scene", "zone"})
OPTIONAL_PLACEHOLDERS = frozenset({"schema_note", "schema", "step_budget"})
PLACEHOLDERS = REQUIRED_PLACEHOLDERS | OPTIONAL_PLACEHOLDERS
DEFAULT_STEP_BUDGET = MAX_EPISODE_STEPS - SETTLE_STEPS
_OBJECT_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class _PromptFile(BaseModel):
    """The YAML file's shape. ``user`` uses ``$name`` placeholders (``$$`` for a literal dollar)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    version: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")
    system: str = Field(min_length=1)
    user: str = Field(min_length=1)
    schema_note: str = ""


@dataclass(frozen=True)
class PromptTemplate:
    version: str
    system: str
    user: str
    schema_note: str
    sha256: str  # of the canonical content (not the file bytes: comments and layout do not count)
    path: str


@dataclass(frozen=True)
class RenderedPrompt:
    system: str
    user: str
    template_sha256: str
    template_version: str = ""


def load_prompt(path: str | Path) -> PromptTemplate:
    """Read and validate a prompt template; any problem is a one-line ConfigError naming the file."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: prompt template not found")
    data = load_yaml(path)
    try:
        content = _PromptFile.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "<root>"
        msg = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise ConfigError(f"{path}: {key}: {msg}") from None
    # The system text is static (a cacheable prefix); only the user text carries the observation.
    check_placeholders(str(path), "system", content.system, frozenset())
    check_placeholders(str(path), "schema_note", content.schema_note, frozenset({"step_budget"}))
    names = check_placeholders(str(path), "user", content.user, PLACEHOLDERS)
    missing = sorted(REQUIRED_PLACEHOLDERS - names)
    if missing:
        raise ConfigError(f"{path}: user: missing placeholder ${missing[0]}")
    return PromptTemplate(
        version=content.version,
        system=content.system,
        user=content.user,
        schema_note=content.schema_note,
        sha256=canonical_sha256(content),
        path=str(path),
    )


def _mm(v: float) -> str:
    return f"{round(float(v), 3) + 0.0:.3f}"  # + 0.0 turns -0.0 into 0.0


def format_vec(v: Vec3) -> str:
    """A position as the prompt shows it: metres, millimetre precision."""
    return "(" + ", ".join(_mm(c) for c in v) + ")"


def _check_vec(what: str, v: Vec3) -> Vec3:
    if len(v) != 3 or not all(math.isfinite(float(c)) for c in v):
        raise ConfigError(f"prompt: {what}: position must be three finite numbers, got {v!r}")
    return v


def render(
    template: PromptTemplate,
    task: str,
    scene: Mapping[str, Vec3],
    zone: Vec3,
    step_budget: int = DEFAULT_STEP_BUDGET,
) -> RenderedPrompt:
    """Fill the template with observed facts only: task, object positions, zone centre."""
    if not task.strip():
        raise ConfigError("prompt: task is empty")
    if not scene:
        raise ConfigError("prompt: the observed scene has no objects")
    lines = []
    for name in sorted(scene):
        if not _OBJECT_NAME.match(name):
            raise ConfigError(f"prompt: object name {name!r} is not 1-32 characters of [A-Za-z0-9_-]")
        lines.append(f"- {name}: {format_vec(_check_vec(name, scene[name]))}")
    values = {
        "task": task.strip(),
        "scene": "\n".join(lines),
        "zone": format_vec(_check_vec("zone", zone)),
        "step_budget": str(int(step_budget)),
        "schema": json.dumps(generation_schema(), sort_keys=True, separators=(",", ":")),
    }
    values["schema_note"] = Template(template.schema_note).substitute(values).strip()
    user = Template(template.user).substitute(values)
    return RenderedPrompt(
        system=template.system.strip(),
        user=user.strip() + "\n",
        template_sha256=template.sha256,
        template_version=template.version,
    )
