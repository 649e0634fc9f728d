"""What a confidence run is asked to do: loaders of ``config/skills.yaml`` and
``config/scenarios/confidence.yaml``, a scenario as ``SuiteRequest`` JSON, and the context the
request carries (``graph_context``: the one skills file the suite's nodes read).

pydantic lives only here, at the file boundary; everything returned is a plain dataclass. Every
problem is one ``ConfigError`` line naming the file and the key: unknown keys, thresholds
outside (0, 1], zones out of reach, tasks naming unknown objects or zones, stacking cycles.

Each task also gets its *expected* outcome per goal, derived statically from the declared
training distribution (never from running the agent): a goal should be achieved when its pick
and at least one of its targets are in distribution and free when the goal comes up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.planning.oracle import OracleConfig
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.common import config_dir, raise_validation
from alpha_matrix.core.suites.confidence.agent import Goal, Task
from alpha_matrix.core.suites.confidence.context import ConfidenceContext
from alpha_matrix.core.suites.confidence.emulator import ConfidenceConfig, ReachEnvelope, Region, TrainingEntry
from alpha_matrix.core.suites.confidence.skills import VERBS, SceneGeometry, Skill, place
from alpha_matrix.core.suites.context import RecordedFile, node_file
from alpha_matrix.core.suites.suite import ScenarioRequest

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph

_WORLD = WorldConfig()
_ORACLE = OracleConfig()


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Range(_Strict):
    x: tuple[float, float]
    y: tuple[float, float]

    @field_validator("x", "y")
    @classmethod
    def _ordered(cls, v: tuple[float, float]) -> tuple[float, float]:
        if v[0] >= v[1]:
            raise ValueError("range must be [low, high] with low < high")
        return v


class _Reach(_Strict):
    base_xy: tuple[float, float]
    r_min: float = Field(ge=0.0)
    r_max: float = Field(gt=0.0)
    z: tuple[float, float]


class _Training(_Strict):
    skill: Literal[VERBS]  # type: ignore[valid-type]
    objects: list[str] = Field(min_length=1)
    regions: list[str] = Field(min_length=1)
    max_level: int = Field(0, ge=0, le=3)


class _SkillsFile(_Strict):
    threshold: float = Field(gt=0.0, le=1.0)
    noise_sigma: float = Field(ge=0.0, le=0.5)
    in_distribution: float = Field(gt=0.0, le=1.0)
    out_of_distribution: float = Field(ge=0.0, le=1.0)
    infeasible_factor: float = Field(ge=0.0, le=1.0)
    edge_band: float = Field(gt=0.0, le=0.2)
    max_attempts: int = Field(2, ge=1, le=5)
    blocks: dict[str, tuple[float, float, float, float]] = Field(min_length=1)
    spawn_region: str
    regions: dict[str, _Range] = Field(min_length=1)
    zones: dict[str, tuple[float, float, float]]
    reach: _Reach
    training: list[_Training] = Field(min_length=1)


@dataclass(frozen=True)
class SkillsSuite:
    """The resolved skills.yaml: emulator config, the suite's blocks, the agent's retry budget."""

    confidence: ConfidenceConfig
    blocks: dict[str, tuple[float, float, float, float]]
    spawn_region: str
    max_attempts: int
    path: Path

    @property
    def geometry(self) -> SceneGeometry:
        return self.confidence.geometry

    def world_config(self) -> WorldConfig:
        return WorldConfig(block_names=tuple(self.blocks), block_rgba=tuple(self.blocks.values()))


def load_skills_config(path: Path | None = None) -> SkillsSuite:
    path = path or config_dir() / "skills.yaml"
    try:
        f = _SkillsFile.model_validate(load_yaml(path))
    except ValidationError as err:
        raise_validation(path, err)
    if f.spawn_region not in f.regions:
        raise ConfigError(f"{path}: spawn_region: unknown region {f.spawn_region!r}")
    reach = ReachEnvelope(f.reach.base_xy, f.reach.r_min, f.reach.r_max, f.reach.z)
    for name, z in f.zones.items():
        if reach.margin(z) < 0.0 or reach.margin((z[0], z[1], _ORACLE.lift_z)) < 0.0:
            raise ConfigError(f"{path}: zones.{name}: ({z[0]}, {z[1]}, {z[2]}) is out of reach")
    for i, t in enumerate(f.training):
        for obj in t.objects:
            if obj not in f.blocks:
                raise ConfigError(f"{path}: training.{i}.objects: unknown object {obj!r}")
        for reg in t.regions:
            if reg not in f.regions:
                raise ConfigError(f"{path}: training.{i}.regions: unknown region {reg!r}")
    geo = SceneGeometry(
        zones=dict(f.zones),
        half_extent=_WORLD.cube_half_extent,
        rest_z=_WORLD.table_top_z + _WORLD.cube_half_extent,
    )
    cfg = ConfidenceConfig(
        threshold=f.threshold,
        noise_sigma=f.noise_sigma,
        in_distribution=f.in_distribution,
        out_of_distribution=f.out_of_distribution,
        infeasible_factor=f.infeasible_factor,
        edge_band=f.edge_band,
        regions=tuple(Region(n, r.x, r.y) for n, r in f.regions.items()),
        training=tuple(
            TrainingEntry(t.skill, frozenset(t.objects), frozenset(t.regions), t.max_level) for t in f.training
        ),
        geometry=geo,
        reach=reach,
        hover_height=_ORACLE.hover_height + _ORACLE.grasp_dz,
        lift_z=_ORACLE.lift_z,
    )
    return SkillsSuite(cfg, dict(f.blocks), f.spawn_region, f.max_attempts, path)


# --------------------------------------------------------------------------- scenarios
class _TaskModel(_Strict):
    name: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_]+$")
    instruction: str = ""
    goals: list[str] = Field(min_length=1, max_length=8)
    expect: dict[str, Literal["achieve", "skip"]] | None = None


class _ScenarioFile(_Strict):
    seed: int = Field(42, ge=0)
    tasks: list[_TaskModel] = Field(min_length=1)


@dataclass(frozen=True)
class ConfidenceScenario:
    task: Task
    seed: int  # per task, derived from the file's master seed and the task name
    expected: dict[str, bool]  # goal object -> should be achieved


def parse_goal(text: str) -> Goal:
    """'red -> zone_far | zone_a' or 'red -> on=blue' -> Goal; ValueError on bad syntax."""
    obj, sep, rest = (s.strip() for s in text.partition("->"))
    targets = [t.strip() for t in rest.split("|")]
    if not sep or not obj or not all(targets):
        raise ValueError(f"goal {text!r} is not 'object -> target | target ...'")
    return Goal(obj, tuple(place(obj, on=t[3:].strip()) if t.startswith("on=") else place(obj, t) for t in targets))


def static_expectation(task: Task, suite: SkillsSuite) -> dict[str, bool]:
    """Goals in dependency order: achievable iff pick and some free target are in distribution."""
    cfg = suite.confidence
    spawn = cfg.regions[[r.name for r in cfg.regions].index(suite.spawn_region)]
    where: dict[str, tuple[str | None, int]] = {g.obj: (spawn.name, 0) for g in task.goals}
    occupied: set[str] = set()
    out: dict[str, bool] = {}

    def trained(verb: str, obj: str, region: str | None, level: int) -> bool:
        return any(
            e.skill == verb and obj in e.objects and region in e.regions and level <= e.max_level for e in cfg.training
        )

    todo = list(task.goals)
    while todo:
        goal = next(g for g in todo if all(t.on is None or t.on not in {h.obj for h in todo} for t in g.targets))
        todo.remove(goal)
        out[goal.obj] = False
        if not trained("pick", goal.obj, *where[goal.obj]):
            continue
        for t in goal.targets:
            if t.zone is not None:
                z = cfg.geometry.zones[t.zone]
                spot, key = (cfg.region_of(z[0], z[1]), 0), t.zone
            else:
                region, level = where.get(t.on or "", (spawn.name, 0))
                spot, key = (region, level + 1), f"on={t.on}"
            if key not in occupied and trained("place", goal.obj, *spot):
                occupied.add(key)
                where[goal.obj], out[goal.obj] = spot, True
                break
    return out


def _check_task(t: _TaskModel, suite: SkillsSuite) -> Task:
    goals = tuple(parse_goal(g) for g in t.goals)
    objs = [g.obj for g in goals]
    if len(set(objs)) != len(objs):
        raise ValueError("an object has two goals")
    for g in goals:
        if g.obj not in suite.blocks:
            raise ValueError(f"unknown object {g.obj!r} (known: {', '.join(suite.blocks)})")
        for s in g.targets:
            if s.zone is not None and s.zone not in suite.geometry.zones:
                raise ValueError(f"unknown zone {s.zone!r} (known: {', '.join(suite.geometry.zones)})")
            if s.on is not None and (s.on not in suite.blocks or s.on == g.obj):
                raise ValueError(f"cannot stack {g.obj} on {s.on!r}")
    _check_acyclic(goals)
    return Task(t.name, goals, t.instruction)


def _check_acyclic(goals: tuple[Goal, ...]) -> None:
    left = list(goals)
    while left:
        free = [g for g in left if all(s.on is None or s.on not in {h.obj for h in left} for s in g.targets)]
        if not free:
            raise ValueError("stacking goals wait on each other in a cycle")
        left = [g for g in left if g not in free]


def load_confidence_scenarios(path: Path | None = None, suite: SkillsSuite | None = None) -> list[ConfidenceScenario]:
    path = path or config_dir() / "scenarios" / "confidence.yaml"
    suite = suite or load_skills_config()
    try:
        f = _ScenarioFile.model_validate(load_yaml(path))
    except ValidationError as err:
        raise_validation(path, err)
    out: list[ConfidenceScenario] = []
    names: set[str] = set()
    for i, t in enumerate(f.tasks):
        if t.name in names:
            raise ConfigError(f"{path}: tasks.{i}.name: duplicate task name {t.name!r}")
        names.add(t.name)
        try:
            task = _check_task(t, suite)
        except ValueError as err:
            raise ConfigError(f"{path}: tasks.{i}.goals: {err}") from None
        expected = static_expectation(task, suite)
        for obj, want in (t.expect or {}).items():
            if obj not in expected:
                raise ConfigError(f"{path}: tasks.{i}.expect: {obj!r} has no goal")
            if (want == "achieve") != expected[obj]:
                raise ConfigError(
                    f"{path}: tasks.{i}.expect: {obj} declared {want!r} but the training distribution says "
                    f"{'achieve' if expected[obj] else 'skip'}"
                )
        out.append(ConfidenceScenario(task, derive_seed(f.seed, "confidence", t.name), expected))
    return out


# --------------------------------------------------------------------------- the request
def confidence_scenario_json(s: ConfidenceScenario) -> str:
    return canonical_json(
        {
            "name": s.task.name,
            "instruction": s.task.instruction,
            "goals": [g.text for g in s.task.goals],
            "expected": s.expected,
            "seed": s.seed,
        }
    )


def scenario_requests(scenarios: Path | None, skills_file: Path | None) -> list[ScenarioRequest]:
    """Every task of the file, validated against the skills file, as the runner sends it."""
    skills = load_skills_config(skills_file)
    return [
        ScenarioRequest(s.task.name, s.seed, confidence_scenario_json(s))
        for s in load_confidence_scenarios(scenarios, skills)
    ]


def graph_context(graph: Graph) -> ConfidenceContext:
    """The skills file skill_confidence reads; the executive and the bridge must read the same content."""
    skills = RecordedFile.read(node_file(graph, "skill_confidence", "skills_file", "skills.yaml"))
    for other in ("skill_executive", "sim_bridge"):
        if "skills_file" in graph.node(other).parameters:
            theirs = RecordedFile.read(node_file(graph, other, "skills_file", "skills.yaml"))
            if theirs.sha256 != skills.sha256:
                raise ConfigError(
                    f"{other}.skills_file ({theirs.path}) differs from skill_confidence's ({skills.path}):"
                    " the suite's nodes must read one skills file"
                )
    return ConfidenceContext(skills=skills)


__all__ = [
    "ConfidenceScenario",
    "SkillsSuite",
    "Skill",
    "confidence_scenario_json",
    "graph_context",
    "load_confidence_scenarios",
    "load_skills_config",
    "parse_goal",
    "scenario_requests",
    "static_expectation",
]
