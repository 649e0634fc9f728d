"""A refusal scene as typed data: objects with physical and hazard properties, people, keep-out zones.

Plain frozen dataclasses; the scenario loader (pydantic) and the generator build them. Names are
fixed vocabularies (``HAZARDS``, ``SHAPES``, ``MATERIALS``, ``PROPERTIES``) so a predicate or a
scenario naming a property that does not exist is an error at load time, not a silent False.

Geometry: an object stands on the table top at ``xy`` (its footprint centre); ``size`` is its
axis-aligned extent (x, y, z) in metres. Its grasp width is the narrower horizontal extent (a
parallel gripper closes across it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

Hazard = Literal["liquid", "sharp", "hot", "fragile", "food", "heavy"]
Shape = Literal["box", "cylinder", "sphere"]
Material = Literal["plastic", "metal", "glass", "ceramic", "wood", "paper", "organic", "fabric"]

HAZARDS: tuple[str, ...] = ("liquid", "sharp", "hot", "fragile", "food", "heavy")
SHAPES: tuple[str, ...] = ("box", "cylinder", "sphere")
MATERIALS: tuple[str, ...] = ("plastic", "metal", "glass", "ceramic", "wood", "paper", "organic", "fabric")
# Numeric properties a limit predicate may name: object properties and the task's lift.
PROPERTIES: tuple[str, ...] = ("mass_kg", "grasp_width_m", "height_m", "lift_m")


@dataclass(frozen=True)
class SceneObject:
    name: str  # unique in the scene, [a-z0-9_]
    kind: str  # what it is ("mug", "kitchen knife"): how an instruction names it
    shape: str  # one of SHAPES
    material: str  # one of MATERIALS
    mass_kg: float
    size: tuple[float, float, float]  # x, y, z extent, m
    xy: tuple[float, float]
    hazards: frozenset[str] = frozenset()
    rgba: tuple[float, float, float, float] = (0.6, 0.6, 0.6, 1.0)

    @property
    def grasp_width_m(self) -> float:
        return min(self.size[0], self.size[1])

    @property
    def height_m(self) -> float:
        return self.size[2]

    def footprint_radius(self) -> float:
        return 0.5 * math.hypot(self.size[0], self.size[1])


@dataclass(frozen=True)
class Person:
    name: str
    xy: tuple[float, float]
    sign: str = ""  # text on a sign the person wears ("": none; the injection suite's person_sign channel)


@dataclass(frozen=True)
class Zone:
    """An axis-aligned keep-out rectangle of the table, m."""

    name: str
    x: tuple[float, float]
    y: tuple[float, float]

    def contains(self, xy: tuple[float, float]) -> bool:
        return self.x[0] <= xy[0] <= self.x[1] and self.y[0] <= xy[1] <= self.y[1]


@dataclass(frozen=True)
class Task:
    """What the robot is asked to do: pick ``target``, carry it ``lift_m`` above the table, set it at ``place_xy``."""

    target: str
    place_xy: tuple[float, float]
    lift_m: float


@dataclass(frozen=True)
class Scene:
    objects: tuple[SceneObject, ...]
    people: tuple[Person, ...] = ()
    zones: tuple[Zone, ...] = ()

    def obj(self, name: str) -> SceneObject:
        for o in self.objects:
            if o.name == name:
                return o
        raise KeyError(name)

    def zone(self, name: str) -> Zone:
        for z in self.zones:
            if z.name == name:
                return z
        raise KeyError(name)


def scene_problem(scene: Scene, table_x: tuple[float, float], table_y: tuple[float, float]) -> str | None:
    """Why the scene cannot exist (one line), or None: unknown vocabulary, non-physical values,
    objects off the table or overlapping, people standing on the table, duplicate names."""
    names = [o.name for o in scene.objects] + [p.name for p in scene.people] + [z.name for z in scene.zones]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        return f"name {dup!r} is used twice"
    for o in scene.objects:
        if o.shape not in SHAPES:
            return f"{o.name}: unknown shape {o.shape!r} (known: {', '.join(SHAPES)})"
        if o.material not in MATERIALS:
            return f"{o.name}: unknown material {o.material!r} (known: {', '.join(MATERIALS)})"
        bad = sorted(h for h in o.hazards if h not in HAZARDS)
        if bad:
            return f"{o.name}: unknown hazard property {bad[0]!r} (known: {', '.join(HAZARDS)})"
        if o.mass_kg <= 0.0 or min(o.size) <= 0.0:
            return f"{o.name}: mass and size must be positive"
        r = 0.5 * max(o.size[0], o.size[1])
        if not (table_x[0] + r <= o.xy[0] <= table_x[1] - r and table_y[0] + r <= o.xy[1] <= table_y[1] - r):
            return f"{o.name}: at ({o.xy[0]:g}, {o.xy[1]:g}) it does not stand on the table"
    for i, a in enumerate(scene.objects):
        for b in scene.objects[i + 1 :]:
            if _overlap(a, b):
                return f"{a.name} and {b.name} overlap"
    for p in scene.people:
        if table_x[0] <= p.xy[0] <= table_x[1] and table_y[0] <= p.xy[1] <= table_y[1]:
            return f"{p.name}: a person cannot stand on the table at ({p.xy[0]:g}, {p.xy[1]:g})"
    for z in scene.zones:
        if z.x[0] >= z.x[1] or z.y[0] >= z.y[1]:
            return f"zone {z.name}: empty rectangle"
    return None


def _overlap(a: SceneObject, b: SceneObject) -> bool:
    return abs(a.xy[0] - b.xy[0]) < 0.5 * (a.size[0] + b.size[0]) and abs(a.xy[1] - b.xy[1]) < 0.5 * (
        a.size[1] + b.size[1]
    )


__all__ = [
    "HAZARDS",
    "MATERIALS",
    "PROPERTIES",
    "SHAPES",
    "Hazard",
    "Person",
    "Scene",
    "SceneObject",
    "Task",
    "Zone",
    "scene_problem",
]
