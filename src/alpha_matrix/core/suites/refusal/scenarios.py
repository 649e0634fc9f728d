"""The refusal scenario file (config/scenarios/refusal.yaml): the generated set's seed and size,
the modes, the guard switch, and hand-written scenes on top of the generated items.

pydantic only here, at the file boundary. Every problem is one ``ConfigError`` line naming the
file and the key: unknown keys, a count that cannot be balanced, impossible scenes (objects off
the table or overlapping, a person on the table, an empty zone), a task naming an object that is
not there, predicates naming unknown properties or zones, an ``expect`` the predicates disagree
with. A hand-written scene becomes an item like a generated one: its constraint text is rendered
from its predicates and parsed back (a value the text cannot carry exactly is an error).
``families`` (default both) lists the language families every item, generated or hand-written,
is worded in (families.py): per family the whole list, the first family's first. ``jailbreak``
(absent: none, and every item is what it was before the key existed) adds the jailbreak set
after them (jailbreak.py): ``count`` violating items (default all) with their instruction wrapped
in the frame of one of ``families`` (default all four), balanced.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.suites.common import config_dir, raise_validation
from alpha_matrix.core.suites.refusal import predicates
from alpha_matrix.core.suites.refusal.embodiment import EMBODIMENT
from alpha_matrix.core.suites.refusal.families import FAMILIES, SUFFIX, Family, in_families
from alpha_matrix.core.suites.refusal.generate import RefusalItem, generate_items, instruction_of, truth
from alpha_matrix.core.suites.refusal.jailbreak import (
    JAILBREAK_FAMILIES,
    JB_SUFFIX,
    LIMIT,
    JailbreakFamily,
    jailbreak_items,
)
from alpha_matrix.core.suites.refusal.scene import Scene, Task, scene_problem
from alpha_matrix.core.suites.refusal.schema import SceneModel, to_scene
from alpha_matrix.core.suites.refusal.text import parse_constraints, render_all

PER_KIND_MIN = 15  # violating items per constraint kind, at least
BALANCE = 2 * len(predicates.KINDS)  # a count is balanced when it is a multiple of this


Mode = Literal["text", "pointing", "box", "tool_use"]
_MODES: tuple[Mode, ...] = ("text", "pointing", "box", "tool_use")  # = modes.MODES (a test keeps them equal)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Away(_Strict):
    hazard: str
    distance_m: float = Field(gt=0.0, le=5.0)


class _Constraint(_Strict):
    """Exactly one key: the predicate's kind."""

    payload: float | None = Field(None, gt=0.0)
    aperture: float | None = Field(None, gt=0.0)
    reach: float | None = Field(None, gt=0.0)
    forbid: str | None = None  # not "no": YAML reads a bare no as false
    away_from_people: _Away | None = None
    keep_out: str | None = None
    max_lift: float | None = Field(None, gt=0.0)


class _Task(_Strict):
    target: str
    place_xy: tuple[float, float]
    lift_m: float = Field(gt=0.0, le=1.0)


class _Scene(SceneModel):
    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    task: _Task
    constraints: list[_Constraint] = Field(min_length=1, max_length=5)
    expect: Literal["allowed", "violating"] | None = None


class _Jailbreak(_Strict):
    families: list[JailbreakFamily] = Field(default_factory=lambda: list(JAILBREAK_FAMILIES), min_length=1)
    count: int | None = Field(None, ge=0)  # None: every violating item


class _File(_Strict):
    seed: int = Field(7, ge=0)
    count: int = Field(280, ge=0, le=10_000)
    modes: list[Mode] = Field(default_factory=lambda: list(_MODES), min_length=1)
    guard: bool = True
    families: list[Family] = Field(default_factory=lambda: list(FAMILIES), min_length=1)
    scenes: list[_Scene] = []
    jailbreak: _Jailbreak | None = None


@dataclass(frozen=True)
class RefusalSuite:
    seed: int
    count: int
    modes: tuple[str, ...]
    guard: bool
    items: tuple[RefusalItem, ...]  # per family: the generated ones, then the hand-written ones
    path: Path
    families: tuple[str, ...] = ("templates",)
    jailbreak: tuple[str, ...] = ()  # the jailbreak families of the set's jailbreak items (none: no key)


def _predicate(c: _Constraint, scene: Scene) -> predicates.Predicate:
    given = {k: v for k, v in c.model_dump().items() if v is not None}
    if len(given) != 1:
        raise ValueError(
            f"one predicate per entry, one of: {', '.join(_Constraint.model_fields)} (got {sorted(given)})"
        )
    if c.payload is not None:
        return predicates.MaxPayload(c.payload)
    if c.aperture is not None:
        return predicates.MaxAperture(c.aperture)
    if c.reach is not None:
        return predicates.WithinReach(c.reach, EMBODIMENT.base_xy)
    if c.max_lift is not None:
        return predicates.MaxLift(c.max_lift)
    if c.forbid is not None:
        if c.forbid not in predicates.FORBIDDABLE:
            raise ValueError(f"forbid: unknown property {c.forbid!r} (known: {', '.join(predicates.FORBIDDABLE)})")
        return predicates.NoHazard(c.forbid)
    if c.away_from_people is not None:
        a = c.away_from_people
        if a.hazard not in predicates.NEAR_PERSON:
            raise ValueError(
                f"away_from_people.hazard: unknown property {a.hazard!r} (known: {', '.join(predicates.NEAR_PERSON)})"
            )
        return predicates.AwayFromPeople(a.hazard, a.distance_m)
    try:
        return predicates.KeepOut(scene.zone(str(c.keep_out)))
    except KeyError:
        known = ", ".join(z.name for z in scene.zones) or "none"
        raise ValueError(f"keep_out: unknown zone {c.keep_out!r} (zones of the scene: {known})") from None


def _item(s: _Scene, i: int, seed: int, path: Path) -> RefusalItem:
    where = f"{path}: scenes.{i}"
    scene = to_scene(s)
    problem = scene_problem(scene, EMBODIMENT.table_x, EMBODIMENT.table_y)
    if problem:
        raise ConfigError(f"{where}: impossible scene: {problem}")
    kinds = [o.kind for o in scene.objects]
    twice = next((k for k in kinds if kinds.count(k) > 1), None)
    if twice is not None:
        raise ConfigError(f"{where}.objects: two objects are a {twice!r}: the task would not name one")
    if s.task.target not in {o.name for o in scene.objects}:
        raise ConfigError(f"{where}.task.target: no object {s.task.target!r} in the scene")
    x, y = s.task.place_xy
    if not (
        EMBODIMENT.table_x[0] <= x <= EMBODIMENT.table_x[1] and EMBODIMENT.table_y[0] <= y <= EMBODIMENT.table_y[1]
    ):
        raise ConfigError(f"{where}.task.place_xy: ({x:g}, {y:g}) is not on the table")
    preds: list[predicates.Predicate] = []
    for j, c in enumerate(s.constraints):
        try:
            preds.append(_predicate(c, scene))
        except ValueError as err:
            raise ConfigError(f"{where}.constraints.{j}: {err}") from None
    text = render_all(tuple(preds), (0,) * len(preds))
    if parse_constraints(text) != tuple(preds):
        raise ConfigError(f"{where}.constraints: a value has more digits than the constraint text carries")
    task = Task(s.task.target, (x, y), s.task.lift_m)
    item = RefusalItem(
        item_id=s.name,
        index=-1,
        generator_seed=seed,
        seed=derive_seed(seed, "refusal", s.name),
        focus=preds[0].kind,
        scene=scene,
        task=task,
        instruction=instruction_of(scene, task),
        constraints=tuple(preds),
        constraint_text=text,
        violation=None,
    )
    violated = truth(item)
    focus = violated or preds[0].kind
    item = replace(item, violation=violated, focus=focus)
    if s.expect is not None and s.expect != item.label:
        raise ConfigError(f"{where}.expect: declared {s.expect!r} but the predicates say {item.label!r}")
    return item


def load_refusal_scenarios(path: Path | None = None) -> RefusalSuite:
    path = path or config_dir() / "scenarios" / "refusal.yaml"
    data: Any = load_yaml(path)
    try:
        f = _File.model_validate(data if data is not None else {})
    except ValidationError as err:
        raise_validation(path, err)
    if f.count and (f.count % BALANCE or f.count < BALANCE * PER_KIND_MIN):
        raise ConfigError(
            f"{path}: count: {f.count} cannot be balanced: a multiple of {BALANCE} (2 labels x {len(predicates.KINDS)} kinds), "
            f"at least {BALANCE * PER_KIND_MIN} ({PER_KIND_MIN} violating items per kind), or 0"
        )
    names = [s.name for s in f.scenes]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise ConfigError(f"{path}: scenes: duplicate name {dup!r}")
    generated = generate_items(f.seed, f.count)
    taken = {it.item_id for it in generated}
    clash = next((n for n in names if n in taken), None)
    if clash is not None:
        raise ConfigError(f"{path}: scenes: name {clash!r} is a generated item's id")
    families = tuple(dict.fromkeys(f.families))
    hand = [_item(s, i, f.seed, path) for i, s in enumerate(f.scenes)]
    ids = [it.item_id for it in generated + hand]
    worded = {n + SUFFIX[fam]: n for fam in families if SUFFIX[fam] for n in ids}
    clash = next((n for n in names if n in worded), None)
    if clash is not None:
        raise ConfigError(f"{path}: scenes: name {clash!r} is the id of {worded[clash]!r} in another language family")
    items = in_families(generated + hand, families)
    attacks: tuple[str, ...] = ()
    if f.jailbreak is not None:
        attacks = tuple(dict.fromkeys(f.jailbreak.families))
        items += _jailbreak(generated + hand, f.seed, attacks, f.jailbreak.count, set(names), path)
    return RefusalSuite(f.seed, f.count, tuple(dict.fromkeys(f.modes)), f.guard, tuple(items), path, families, attacks)


def _jailbreak(
    items: list[RefusalItem], seed: int, families: tuple[str, ...], count: int | None, taken: set[str], path: Path
) -> list[RefusalItem]:
    """The jailbreak items of ``items`` (their templates words), or one ConfigError line (``taken``:
    the hand-written scenes' names, which no jailbreak id may be)."""
    try:
        out = jailbreak_items(items, seed, families, count)
    except ValueError as err:
        raise ConfigError(f"{path}: jailbreak.count: {err}") from None
    clash = next((it.item_id for it in out if it.item_id in taken), None)
    if clash is not None:
        raise ConfigError(f"{path}: scenes: name {clash!r} is the id of a jailbreak item (its item + {JB_SUFFIX!r})")
    long = next((it for it in out if len(it.instruction) > LIMIT), None)
    if long is not None:
        raise ConfigError(
            f"{path}: jailbreak: the wrapped instruction of {long.item_id!r} has {len(long.instruction)} characters "
            f"(at most {LIMIT}): a shorter object kind"
        )
    return out


__all__ = ["BALANCE", "PER_KIND_MIN", "RefusalSuite", "load_refusal_scenarios"]
