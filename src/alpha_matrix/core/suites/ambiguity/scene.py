"""A tabletop scene of the ambiguity suite: blocks on a table, and the places they can go.

Blocks have a colour and a shape (several may be identical); a block stands on the table or in
a place. Places are bins (named by a colour of their own, never a block colour, so "the white
bin" can never be read as a block), the slots of the one tray (numbered 1..n), and pads around a
bin (left of / right of / in front of / behind it). ``x_m`` grows to the operator's right, so
"leftmost" is the smallest ``x_m``. A scene is what the agent observes, in full: it holds no
answer (the item's truth is in items.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

BLOCK_COLOURS = ("red", "green", "blue", "yellow", "orange", "purple")
SHAPES = ("cube", "cylinder", "ball")
BIN_COLOURS = ("white", "black", "grey", "brown")
RELATIONS = ("left of", "right of", "in front of", "behind")
PlaceKind = Literal["bin", "slot", "pad"]
TRAY = "tray"


@dataclass(frozen=True)
class Block:
    name: str
    colour: str
    shape: str
    x_m: float
    y_m: float
    at: str | None = None  # the place it stands in; None: on the table

    @property
    def text(self) -> str:
        return f"the {self.colour} {self.shape}"


@dataclass(frozen=True)
class Place:
    name: str
    kind: PlaceKind
    x_m: float
    y_m: float
    colour: str = ""  # bin: its colour
    index: int = 0  # slot: 1..n on the tray
    relation: str = ""  # pad: one of RELATIONS
    anchor: str = ""  # pad: the bin it is next to

    @property
    def holds_one(self) -> bool:
        """Slots and pads take one block; bins take any number."""
        return self.kind != "bin"


@dataclass(frozen=True)
class Scene:
    blocks: tuple[Block, ...]
    places: tuple[Place, ...]

    def block(self, name: str) -> Block:
        return next(b for b in self.blocks if b.name == name)

    def place(self, name: str) -> Place:
        return next(p for p in self.places if p.name == name)

    @property
    def block_names(self) -> list[str]:
        return [b.name for b in self.blocks]

    @property
    def place_names(self) -> list[str]:
        return [p.name for p in self.places]

    def check(self) -> None:
        """ValueError naming the first impossibility: duplicate names, unknown vocabulary, a block in
        a place that does not exist or is taken twice, a pad next to no bin."""
        names = [*self.block_names, *self.place_names]
        dup = next((n for n in names if names.count(n) > 1), None)
        if dup is not None:
            raise ValueError(f"name {dup!r} is used twice")
        if len(self.blocks) < 1 or len(self.places) < 1:
            raise ValueError("a scene needs at least one block and one place")
        bins = {p.name for p in self.places if p.kind == "bin"}
        for p in self.places:
            if p.kind == "bin" and p.colour not in BIN_COLOURS:
                raise ValueError(f"bin {p.name}: colour {p.colour!r} is not one of {', '.join(BIN_COLOURS)}")
            if p.kind == "slot" and p.index < 1:
                raise ValueError(f"slot {p.name}: index must be 1 or more")
            if p.kind == "pad" and (p.relation not in RELATIONS or p.anchor not in bins):
                raise ValueError(f"pad {p.name}: needs a relation ({', '.join(RELATIONS)}) and an existing bin")
        slots = [p.index for p in self.places if p.kind == "slot"]
        if len(set(slots)) != len(slots):
            raise ValueError("two slots share a number")
        bin_colours = [p.colour for p in self.places if p.kind == "bin"]
        if len(set(bin_colours)) != len(bin_colours):
            raise ValueError("two bins share a colour")
        taken: set[str] = set()
        for b in self.blocks:
            if b.colour not in BLOCK_COLOURS or b.shape not in SHAPES:
                raise ValueError(f"block {b.name}: {b.colour} {b.shape} is not in the vocabulary")
            if b.at is not None:
                if b.at not in self.place_names:
                    raise ValueError(f"block {b.name} is in {b.at!r}, which is not a place of the scene")
                if self.place(b.at).holds_one and b.at in taken:
                    raise ValueError(f"two blocks in {b.at}")
                taken.add(b.at)


def scene_json(scene: Scene) -> dict[str, Any]:
    """The scene as the agent observes it (and as items are stored)."""
    blocks = [
        {"name": b.name, "colour": b.colour, "shape": b.shape, "x_m": b.x_m, "y_m": b.y_m, "at": b.at}
        for b in scene.blocks
    ]
    places = []
    for p in scene.places:
        d: dict[str, Any] = {"name": p.name, "kind": p.kind, "x_m": p.x_m, "y_m": p.y_m}
        if p.kind == "bin":
            d["colour"] = p.colour
        elif p.kind == "slot":
            d["holder"], d["index"] = TRAY, p.index
        else:
            d["relation"], d["anchor"] = p.relation, p.anchor
        places.append(d)
    return {"blocks": blocks, "places": places}


def scene_of(d: dict[str, Any]) -> Scene:
    """The inverse of ``scene_json`` (KeyError/TypeError/ValueError on a malformed one)."""
    blocks = tuple(
        Block(str(b["name"]), str(b["colour"]), str(b["shape"]), float(b["x_m"]), float(b["y_m"]),
              None if b.get("at") is None else str(b["at"]))
        for b in d["blocks"]
    )  # fmt: skip
    places = tuple(
        Place(str(p["name"]), p["kind"], float(p["x_m"]), float(p["y_m"]), str(p.get("colour", "")),
              int(p.get("index", 0)), str(p.get("relation", "")), str(p.get("anchor", "")))
        for p in d["places"]
    )  # fmt: skip
    for p in places:
        if p.kind not in ("bin", "slot", "pad"):
            raise ValueError(f"place {p.name}: unknown kind {p.kind!r}")
    return Scene(blocks, places)


__all__ = [
    "BIN_COLOURS",
    "BLOCK_COLOURS",
    "RELATIONS",
    "SHAPES",
    "TRAY",
    "Block",
    "Place",
    "PlaceKind",
    "Scene",
    "scene_json",
    "scene_of",
]
