"""The ambiguity suite's scenario file (``config/scenarios/ambiguity.yaml``) and its loader.

The file says how to generate (``seed``, ``pairs_per_category``, ``categories``, ``families``: the
language families every generated pair is written in, default both, ``templates`` and
``paraphrase``; items.py) and may add hand-written pairs (``pairs``: a scene, the task as typed
moves, the clear and the ambiguous instruction, what is missing, the operator's answer, and the
``family`` its wording belongs to, default ``templates``). pydantic lives only here, at the file
boundary; every problem is one ``ConfigError`` line naming the file and the key: unknown keys,
unknown categories, families or missing-fields, impossible scenes (a block in a place that does not exist,
a pad next to no bin) and impossible tasks (a goal that is not a place of the scene).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.suites.ambiguity.generate import generate
from alpha_matrix.core.suites.ambiguity.items import (
    CATEGORIES,
    FAMILIES,
    FIELDS,
    FIRST_FAMILY,
    NOTHING_MISSING_IN,
    Item,
    Move,
    Task,
    item_json,
)
from alpha_matrix.core.suites.ambiguity.scene import Block, Place, Scene
from alpha_matrix.core.suites.common import config_dir, raise_validation
from alpha_matrix.core.suites.suite import ScenarioRequest

MIN_PAIRS = 20  # per category, the set's floor


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Block(_Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    colour: str
    shape: str
    x_m: float
    y_m: float
    at: str | None = None


class _Place(_Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    kind: Literal["bin", "slot", "pad"]
    x_m: float
    y_m: float
    colour: str = ""
    index: int = 0
    relation: str = ""
    anchor: str = ""


class _Scene(_Strict):
    blocks: list[_Block] = Field(min_length=1)
    places: list[_Place] = Field(min_length=1)


class _Move(_Strict):
    blocks: list[str] = Field(min_length=1)
    count: int = Field(1, ge=1)
    goal: str


class _Pair(_Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    category: str
    scene: _Scene
    task: list[_Move] = Field(min_length=1)
    clear: str = Field(min_length=1)
    ambiguous: str = Field(min_length=1)
    missing: list[str] = Field(min_length=1)
    answer: str = Field(min_length=1)
    family: str = FIRST_FAMILY  # the family its wording belongs to (for the per-family report)


class _File(_Strict):
    seed: int = Field(ge=0)
    pairs_per_category: int = Field(ge=MIN_PAIRS, le=500)
    categories: list[str] = Field(default_factory=lambda: list(CATEGORIES), min_length=1)
    families: list[str] = Field(default_factory=lambda: list(FAMILIES), min_length=1)
    pairs: list[_Pair] = Field(default_factory=list)


@dataclass(frozen=True)
class AmbiguitySuite:
    seed: int
    pairs_per_category: int
    categories: tuple[str, ...]
    items: tuple[Item, ...]  # clear then ambiguous, pair by pair, family by family; generated first, then the file's
    path: Path
    families: tuple[str, ...] = FAMILIES  # the families generated pairs are written in


def _check_category(name: str) -> None:
    if name not in CATEGORIES:
        raise ValueError(f"unknown category {name!r} (known: {', '.join(CATEGORIES)})")


def _check_family(name: str) -> None:
    if name not in FAMILIES:
        raise ValueError(f"unknown family {name!r} (known: {', '.join(FAMILIES)})")


def _hand_pair(p: _Pair, seed: int) -> list[Item]:
    _check_category(p.category)
    _check_family(p.family)
    bad = [f for f in p.missing if f not in FIELDS]
    if bad:
        raise ValueError(f"missing: unknown field {bad[0]!r} (known: {', '.join(FIELDS)})")
    scene = Scene(
        tuple(Block(b.name, b.colour, b.shape, b.x_m, b.y_m, b.at) for b in p.scene.blocks),
        tuple(Place(q.name, q.kind, q.x_m, q.y_m, q.colour, q.index, q.relation, q.anchor) for q in p.scene.places),
    )
    task = Task(tuple(Move(tuple(sorted(m.blocks)), m.count, m.goal) for m in p.task))
    out = []
    for ambiguous in (False, True):
        kind = "ambiguous" if ambiguous else "clear"
        it = Item(
            item_id=f"{p.name}_{kind}",
            pair_id=p.name,
            category=p.category,
            ambiguous=ambiguous,
            generator_seed=seed,
            seed=derive_seed(seed, "ambiguity", p.name, kind),
            scene=scene,
            instruction=p.ambiguous if ambiguous else p.clear,
            missing=tuple(p.missing) if ambiguous else (),
            answer=p.answer if ambiguous else NOTHING_MISSING_IN[p.family],
            task=task,
            family=p.family,
        )
        it.check()
        out.append(it)
    return out


def load_ambiguity_scenarios(path: Path | None = None) -> AmbiguitySuite:
    path = path or config_dir() / "scenarios" / "ambiguity.yaml"
    try:
        f = _File.model_validate(load_yaml(path))
    except ValidationError as err:
        raise_validation(path, err)
    for i, c in enumerate(f.categories):
        try:
            _check_category(c)
        except ValueError as err:
            raise ConfigError(f"{path}: categories.{i}: {err}") from None
    if len(set(f.categories)) != len(f.categories):
        raise ConfigError(f"{path}: categories: a category is listed twice")
    for i, fam in enumerate(f.families):
        try:
            _check_family(fam)
        except ValueError as err:
            raise ConfigError(f"{path}: families.{i}: {err}") from None
    if len(set(f.families)) != len(f.families):
        raise ConfigError(f"{path}: families: a family is listed twice")
    items = generate(f.seed, f.pairs_per_category, f.categories, f.families)
    ids = {it.pair_id for it in items}
    for i, p in enumerate(f.pairs):
        if p.name in ids:
            raise ConfigError(f"{path}: pairs.{i}.name: {p.name!r} is already a pair's name")
        ids.add(p.name)
        try:
            items += _hand_pair(p, f.seed)
        except ValueError as err:
            raise ConfigError(f"{path}: pairs.{i}: {err}") from None
    return AmbiguitySuite(f.seed, f.pairs_per_category, tuple(f.categories), tuple(items), path, tuple(f.families))


def scenario_requests(scenarios: Path | None, config_file: Path | None = None) -> list[ScenarioRequest]:
    """Every item of the file as the runner would send it (the suite has no config file)."""
    suite = load_ambiguity_scenarios(scenarios)
    return [ScenarioRequest(it.item_id, it.seed, canonical_json(item_json(it))) for it in suite.items]


def describe(suite: AmbiguitySuite) -> dict[str, Any]:
    """Counts per category (clear, ambiguous), every family together: what the file amounts to."""
    out: dict[str, Any] = {}
    for it in suite.items:
        row = out.setdefault(it.category, {"clear": 0, "ambiguous": 0})
        row["ambiguous" if it.ambiguous else "clear"] += 1
    return out


def describe_families(suite: AmbiguitySuite) -> dict[str, dict[str, int]]:
    """Counts per family (clear, ambiguous)."""
    out: dict[str, dict[str, int]] = {}
    for it in suite.items:
        row = out.setdefault(it.family, {"clear": 0, "ambiguous": 0})
        row["ambiguous" if it.ambiguous else "clear"] += 1
    return out


__all__ = [
    "MIN_PAIRS",
    "AmbiguitySuite",
    "describe",
    "describe_families",
    "load_ambiguity_scenarios",
    "scenario_requests",
]
