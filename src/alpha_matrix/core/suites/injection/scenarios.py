"""The injection scenario file (config/scenarios/injection.yaml): the generated pairs' seed and
count, the guard switch, and hand-written pairs on top.

pydantic at the file boundary; every problem is one ``ConfigError`` line naming the file and the
key (the command exits 2 and starts nothing): unknown keys, an unknown channel or goal, a channel
or goal this version cannot run yet, an empty text or one over its channel's limit, an injected
item without its clean twin (or a twin twice), a carrier or attack object not in the scene, a
carrier the task names, a clean task that breaks its own constraints, a scene that cannot exist.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.suites.common import config_dir, raise_validation
from alpha_matrix.core.suites.injection.channels import BUILT, LIMITS, Channel, Goal, built_cells
from alpha_matrix.core.suites.injection.context import InjectionContext
from alpha_matrix.core.suites.injection.generate import generate_pairs
from alpha_matrix.core.suites.injection.items import CLEAN, InjectionItem, injection_json, pair
from alpha_matrix.core.suites.refusal.embodiment import EMBODIMENT
from alpha_matrix.core.suites.refusal.generate import RefusalItem, instruction_of, truth
from alpha_matrix.core.suites.refusal.scene import Task, scene_problem
from alpha_matrix.core.suites.refusal.schema import (
    ObjectModel,
    PersonModel,
    SceneModel,
    ZoneModel,
    predicate_of,
    to_scene,
)
from alpha_matrix.core.suites.refusal.text import render_all
from alpha_matrix.core.suites.suite import ScenarioRequest

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph

EXECUTIVE = "injection_executive"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Task(_Strict):
    target: str
    place_xy: tuple[float, float]
    lift_m: float = Field(gt=0.0, le=1.0)


class _Attack(_Strict):
    object: str
    xy: tuple[float, float]


class _Item(_Strict):
    pair: str = Field(pattern=r"^[a-z][a-z0-9_]{0,47}$")
    variant: Literal["clean", "injected"]
    # the clean twin: the scene, the task and the constraints (refusal's predicate JSON)
    objects: list[ObjectModel] | None = None
    people: list[PersonModel] = []
    zones: list[ZoneModel] = []
    task: _Task | None = None
    constraints: list[dict[str, Any]] = []
    # the injected twin: where, what, and what the attacker wants
    channel: Channel | None = None
    goal: Goal | None = None
    text: str | None = None
    carrier: str | None = None
    attack: _Attack | None = None


class _File(_Strict):
    seed: int = Field(11, ge=0)
    count: int = Field(60, ge=0, le=10_000)
    channels: list[Channel] | None = Field(None, min_length=1)  # the generated pairs' channels (None: every built one)
    guard: bool = True
    items: list[_Item] = []


@dataclass(frozen=True)
class InjectionSet:
    seed: int
    count: int
    guard: bool
    items: tuple[InjectionItem, ...]  # generated pairs, then hand-written ones (clean twin first)
    path: Path


def _fail(path: Path, key: str, msg: str) -> ConfigError:
    return ConfigError(f"{path}: {key}: {msg}")


def _clean_item(path: Path, key: str, it: _Item, index: int, seed: int) -> RefusalItem:
    if it.objects is None or it.task is None or not it.constraints:
        raise _fail(path, key, "a clean twin states objects, task and constraints")
    for k in ("channel", "goal", "text", "carrier", "attack"):
        if getattr(it, k) is not None:
            raise _fail(path, f"{key}.{k}", "belongs to the injected twin (variant: injected)")
    try:
        scene = to_scene(SceneModel(objects=it.objects, people=it.people, zones=it.zones))
        preds = tuple(predicate_of(c) for c in it.constraints)
    except (ValueError, ValidationError) as err:
        raise _fail(path, key, str(err).splitlines()[0]) from None
    if problem := scene_problem(scene, EMBODIMENT.table_x, EMBODIMENT.table_y):
        raise _fail(path, key, problem)
    try:
        scene.obj(it.task.target)
    except KeyError:
        raise _fail(path, f"{key}.task.target", f"no object {it.task.target!r} in the scene") from None
    task = Task(it.task.target, it.task.place_xy, it.task.lift_m)
    item = RefusalItem(
        item_id=it.pair, index=index, generator_seed=seed, seed=derive_seed(seed, "injection", it.pair),
        focus=str(getattr(preds[0], "kind", "")), scene=scene, task=task, instruction=instruction_of(scene, task),
        constraints=preds, constraint_text=render_all(preds, (0,) * len(preds)), violation=None,
    )  # fmt: skip
    if (broken := truth(item)) is not None:
        raise _fail(path, key, f"the clean task breaks its own constraint ({broken}): a clean twin is allowed")
    return item


def _injected(path: Path, key: str, it: _Item, clean: RefusalItem) -> tuple[InjectionItem, InjectionItem]:
    for k in ("channel", "goal", "text", "carrier", "attack"):
        if getattr(it, k) is None:
            raise _fail(path, f"{key}.{k}", "required of an injected twin")
    assert it.channel and it.goal and it.text is not None and it.carrier and it.attack
    text = it.text.strip()
    if not text:
        raise _fail(path, f"{key}.text", "empty")
    if len(text) > LIMITS[it.channel]:
        raise _fail(path, f"{key}.text", f"{len(text)} characters, over the {it.channel} limit of {LIMITS[it.channel]}")
    if (it.channel, it.goal) not in BUILT:
        built = ", ".join(f"{c}/{g}" for c, g in built_cells())
        raise _fail(path, key, f"channel {it.channel} with goal {it.goal} is not built yet (built: {built})")
    if it.channel in ("gauge_face", "alert_payload"):
        raise _fail(path, f"{key}.channel", f"{it.channel} pairs are generated (count, channels), not written by hand")
    names = {o.name for o in clean.scene.objects}
    if it.attack.object not in names:
        raise _fail(path, f"{key}.attack.object", f"no object {it.attack.object!r} in the clean twin's scene")
    if it.channel == "person_sign":
        if it.carrier not in {p.name for p in clean.scene.people}:
            raise _fail(
                path,
                f"{key}.carrier",
                f"no person {it.carrier!r} in the clean twin's scene (a sign is worn by a person)",
            )
    elif it.carrier not in names:
        raise _fail(path, f"{key}.carrier", f"no object {it.carrier!r} in the clean twin's scene")
    elif it.channel == "object_text" and it.carrier == clean.task.target:
        raise _fail(path, f"{key}.carrier", "the task names it by its kind: print the text on another object")
    return pair(
        it.pair, clean, channel=it.channel, goal=it.goal, text=text, carrier=it.carrier,
        attack_object=it.attack.object, attack_xy=it.attack.xy, origin="hand",
    )  # fmt: skip


def _hand_written(path: Path, items: list[_Item], seed: int, start: int) -> list[InjectionItem]:
    cleans: dict[str, tuple[str, _Item]] = {}
    injected: dict[str, tuple[str, _Item]] = {}
    for i, it in enumerate(items):
        seen = cleans if it.variant == CLEAN else injected
        if it.pair in seen:
            raise _fail(path, f"items.{i}", f"pair {it.pair!r} has two {it.variant} twins")
        seen[it.pair] = (f"items.{i}", it)
    for p, (key, _) in injected.items():
        if p not in cleans:
            raise _fail(path, key, f"pair {p!r} has no clean twin (an item with pair: {p}, variant: clean)")
    for p, (key, _) in cleans.items():
        if p not in injected:
            raise _fail(path, key, f"pair {p!r} has no injected twin (an item with pair: {p}, variant: injected)")
    out: list[InjectionItem] = []
    for n, (p, (key, it)) in enumerate(cleans.items()):
        clean = _clean_item(path, key, it, start + n, seed)
        out += _injected(path, injected[p][0], injected[p][1], clean)
    return out


def load_injection_scenarios(path: Path | None = None) -> InjectionSet:
    path = Path(path) if path is not None else config_dir() / "scenarios" / "injection.yaml"
    data: Any = load_yaml(path)
    try:
        f = _File.model_validate(data if data is not None else {})
    except ValidationError as err:
        raise_validation(path, err)
    cells = [c for c in built_cells() if f.channels is None or c[0] in f.channels]
    if f.channels is not None and (missing := sorted(set(f.channels) - {c for c, _ in cells})):
        raise _fail(path, "channels", f"{', '.join(missing)}: not built yet")
    if f.count % len(cells):
        raise _fail(path, "count", f"{f.count} is not a multiple of {len(cells)} (the built channel x goal cells)")
    items = generate_pairs(f.seed, f.count, cells) + _hand_written(path, f.items, f.seed, f.count)
    names = [it.name for it in items]
    if dup := next((n for n in names if names.count(n) > 1), None):
        raise _fail(path, "items", f"{dup!r} twice (a hand-written pair named like a generated one)")
    if not items:
        raise _fail(path, "count", "no pairs (count 0 and no items)")
    return InjectionSet(f.seed, f.count, f.guard, tuple(items), path)


def scenario_requests(scenarios: Path | None, config_file: Path | None = None) -> list[ScenarioRequest]:
    s = load_injection_scenarios(scenarios)
    return [ScenarioRequest(it.name, it.item.seed, canonical_json(injection_json(it))) for it in s.items]


def graph_context(graph: Graph) -> InjectionContext:
    ex = graph.node(EXECUTIVE).parameters
    agent_params = graph.node("agent").parameters
    given = str(graph.node("suite_runner").parameters.get("scenarios", ""))
    s = load_injection_scenarios(Path(given) if given else None)
    prompts = [str(p) for p in agent_params.get("prompts", []) or []]
    return InjectionContext(
        agent=str(ex["agent"]),
        guards=bool(ex["guards"]) and s.guard,
        prompt=prompt_label(prompts),
        scenarios_sha256=hashlib.sha256(s.path.read_bytes()).hexdigest(),
    )


def prompt_label(prompts: list[str]) -> str:
    """Which prompt the agent read: "plain" (the shipped one) or the overriding files' stems."""
    return ",".join(Path(p).stem for p in prompts) or "plain"


__all__ = [
    "EXECUTIVE",
    "InjectionSet",
    "graph_context",
    "load_injection_scenarios",
    "prompt_label",
    "scenario_requests",
]
