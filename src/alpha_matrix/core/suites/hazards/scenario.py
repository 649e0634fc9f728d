"""The canonical scenario record z (ICAT's O, T, a, U, e) and the physics outcome it is scored against.

pydantic here: a record crosses files (the generator writes it, the runner and the scorer read
it) and its JSON schema is published. Names in relations and actions must name an object of O
(or the robot), so a record that cannot be played is refused when it is read, not when it runs.

``Shown`` is the part of z a system under test may see: everything but the consequence. The
world-model prompt and the reference predictor are built from it alone, so the answer key cannot
reach them by construction.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.common import raise_validation
from alpha_matrix.core.suites.hazards.taxonomy import BENIGN, Consequence, Mechanism, Severity

NAME = r"^[a-z][a-z0-9_]{0,39}$"
ID = r"^[a-z0-9][a-z0-9_.-]{0,79}$"
Name = Annotated[str, StringConstraints(pattern=NAME)]
Text = Annotated[str, StringConstraints(min_length=1, max_length=600)]
Finite = Annotated[float, Field(allow_inf_nan=False)]
Vec3 = tuple[Finite, Finite, Finite]
Size3 = tuple[
    Annotated[float, Field(gt=0.0, le=10.0)],
    Annotated[float, Field(gt=0.0, le=10.0)],
    Annotated[float, Field(gt=0.0, le=10.0)],
]
Measured = dict[Annotated[str, StringConstraints(pattern=NAME)], Finite]


class Property(StrEnum):
    """What an object is, beyond its mass and size."""

    FRAGILE = "fragile"
    HEAVY = "heavy"
    FIXED = "fixed"  # does not move (table, wall): a clamping surface
    PERSON_REGION = "person_region"  # a body region of a person (carries ``body_region``)
    KEEP_OUT = "keep_out"  # a zone the robot must not enter (its box is the zone)
    HOT = "hot"
    LIQUID = "liquid"
    SHARP = "sharp"


Relation = Literal["on", "under", "above", "beside", "near", "inside", "held_by", "touching", "against"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ObjectSpec(_Strict):
    name: Name
    kind: Text
    mass_kg: float = Field(ge=0.0, le=1000.0)  # 0 for zones
    size_m: Size3  # box extents x, y, z
    position: Vec3  # box centre, world frame, m
    properties: tuple[Property, ...] = ()
    body_region: Name | None = None  # ISO/TS 15066 body region, exactly when PERSON_REGION

    @model_validator(mode="after")
    def _region(self) -> ObjectSpec:
        if (Property.PERSON_REGION in self.properties) != (self.body_region is not None):
            raise ValueError("body_region is set exactly when properties has person_region")
        return self


class RelationSpec(_Strict):
    subject: Name
    relation: Relation
    object: Name


class RobotSpec(_Strict):
    name: Literal["panda"]
    payload_kg: float = Field(gt=0.0, le=100.0)
    reach_m: float = Field(gt=0.0, le=5.0)
    base: Vec3  # the arm's base in the world frame, m


class MoveTo(_Strict):
    op: Literal["move_to"]
    x: Finite
    y: Finite
    z: Finite
    speed_m_s: float = Field(gt=0.0, le=3.0)


class Press(_Strict):
    op: Literal["press"]
    region: Name  # the object of O pressed (a person region, or any object)
    force_n: float = Field(gt=0.0, le=5000.0)


class Grip(_Strict):
    op: Literal["grip"]
    object: Name


class Release(_Strict):
    op: Literal["release"]
    object: Name


class Push(_Strict):
    op: Literal["push"]
    object: Name
    direction: tuple[Finite, Finite]  # in the table plane; normalised by whoever executes it
    distance_m: float = Field(gt=0.0, le=2.0)

    @model_validator(mode="after")
    def _nonzero(self) -> Push:
        if self.direction[0] ** 2 + self.direction[1] ** 2 < 1e-12:
            raise ValueError("direction must not be zero")
        return self


Action = Annotated[MoveTo | Press | Grip | Release | Push, Field(discriminator="op")]


class Fact(_Strict):
    """One structured statement of the initial state, e.g. (hand_1, resting_on, table) or (box_1, mass_kg, 4.2)."""

    subject: Name
    predicate: Name
    value: str | float | bool


class InitialState(_Strict):
    text: Text
    facts: tuple[Fact, ...] = ()


class Trigger(_Strict):
    mechanism: Mechanism
    text: Text  # the event, not its outcome ("the gripper presses the hand onto the table")


class ConsequenceSpec(_Strict):
    """The graded consequence: the unit's documented one, or the physics' once measured."""

    type: Consequence
    severity: Severity
    text: Text
    measured: Measured = {}

    @model_validator(mode="after")
    def _benign(self) -> ConsequenceSpec:
        _check_benign(self.type, self.severity)
        return self


class CausalChain(_Strict):
    initial_state: InitialState
    trigger: Trigger
    consequence: ConsequenceSpec


class Provenance(_Strict):
    unit_id: Annotated[str, StringConstraints(pattern=ID)]
    sources: tuple[Text, ...] = Field(min_length=1, max_length=10)
    seed: int | None = None  # the generator's seed (generate.py); None for a hand-written record
    redraw: int = Field(0, ge=0, le=1000)  # the generator's redraw that fit the robot (generate.aimed); 0: first


class Shown(_Strict):
    """What a system under test is shown: z without the consequence (no answer key by construction)."""

    objects: tuple[ObjectSpec, ...]
    relations: tuple[RelationSpec, ...]
    robot: RobotSpec
    actions: tuple[Action, ...]
    initial_state: InitialState
    trigger: Trigger

    def obj(self, name: str) -> ObjectSpec:
        return next(o for o in self.objects if o.name == name)


class Scenario(_Strict):
    """One canonical record z."""

    scenario_id: Annotated[str, StringConstraints(pattern=ID)]
    provenance: Provenance
    objects: tuple[ObjectSpec, ...] = Field(min_length=1, max_length=30)
    relations: tuple[RelationSpec, ...] = Field(default=(), max_length=60)
    robot: RobotSpec
    actions: tuple[Action, ...] = Field(min_length=1, max_length=12)
    chain: CausalChain

    @property
    def unit_id(self) -> str:
        return self.provenance.unit_id

    @property
    def mechanism(self) -> Mechanism:
        return self.chain.trigger.mechanism

    @model_validator(mode="after")
    def _names(self) -> Scenario:
        names = [o.name for o in self.objects]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup is not None:
            raise ValueError(f"duplicate object name {dup!r}")
        if self.robot.name in names:
            raise ValueError(f"object name {self.robot.name!r} is the robot's")
        known = set(names) | {self.robot.name}
        for i, r in enumerate(self.relations):
            for n in (r.subject, r.object):
                if n not in known:
                    raise ValueError(f"relations[{i}] names {n!r}, not an object")
        for i, a in enumerate(self.actions):
            target = action_object(a)
            if target is not None and target not in names:
                raise ValueError(f"actions[{i}] ({a.op}) names {target!r}, not an object")
        for i, f in enumerate(self.chain.initial_state.facts):
            if f.subject not in known:
                raise ValueError(f"chain.initial_state.facts[{i}] names {f.subject!r}, not an object")
        return self


def action_object(a: MoveTo | Press | Grip | Release | Push) -> str | None:
    """The object of O a step acts on (None for a move)."""
    if isinstance(a, Press):
        return a.region
    if isinstance(a, Grip | Release | Push):
        return a.object
    return None


def _check_benign(c: Consequence, s: Severity) -> None:
    if c in BENIGN and s is not Severity.NONE:
        raise ValueError(f"consequence {c.value!r} is benign: severity must be 'none', got {s.value!r}")


def shown_of(z: Scenario) -> Shown:
    """The part of z a system under test may see."""
    c = z.chain
    return Shown(
        objects=z.objects,
        relations=z.relations,
        robot=z.robot,
        actions=z.actions,
        initial_state=c.initial_state,
        trigger=c.trigger,
    )


class ScenarioOutcome(_Strict):
    """The physics' ground truth for one z. An infeasible z (U could not execute) is counted, never scored."""

    initial_state_kept: bool
    trigger_happened: bool
    consequence: Consequence
    severity: Severity
    measured: Measured = {}
    feasible: bool = True
    force_stream_n: tuple[Finite, ...] = ()  # contact force on the person, every physics step (audit recomputes)
    pressure_stream_n_cm2: tuple[Finite, ...] = ()  # the same steps' contact pressure

    @model_validator(mode="after")
    def _benign(self) -> ScenarioOutcome:
        _check_benign(self.consequence, self.severity)
        return self


def scenario_json_schema() -> dict[str, Any]:
    """The published JSON schema of z (draft 2020-12, as pydantic writes it)."""
    return Scenario.model_json_schema()


def scenario_of(data: Any, where: Path) -> Scenario:
    """z from its JSON; a misfit is one ConfigError line naming ``where`` and the key."""
    try:
        return Scenario.model_validate(data)
    except ValidationError as err:
        raise_validation(where, err)


def load_scenarios(path: Path) -> tuple[Scenario, ...]:
    """A scenario file: a JSON (or YAML) list of records, ids unique; every problem one ConfigError line."""
    data = load_yaml(path)
    if not isinstance(data, list):
        raise ConfigError(f"{path}: expected a list of scenarios, got {type(data).__name__}")
    out = tuple(scenario_of(d, Path(f"{path}[{i}]")) for i, d in enumerate(data))
    ids = [z.scenario_id for z in out]
    dup = next((i for i in ids if ids.count(i) > 1), None)
    if dup is not None:
        raise ConfigError(f"{path}: duplicate scenario_id {dup!r}")
    return out


__all__ = [
    "Action",
    "CausalChain",
    "ConsequenceSpec",
    "Fact",
    "Grip",
    "InitialState",
    "MoveTo",
    "ObjectSpec",
    "Press",
    "Property",
    "Provenance",
    "Push",
    "RelationSpec",
    "Release",
    "RobotSpec",
    "Scenario",
    "ScenarioOutcome",
    "Shown",
    "Trigger",
    "action_object",
    "load_scenarios",
    "scenario_json_schema",
    "scenario_of",
    "shown_of",
]
