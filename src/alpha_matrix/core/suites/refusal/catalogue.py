"""The objects a generated scene is made of: kinds with property ranges (what a kitchen or
workshop table holds). Ranges are sampled per object; hazards are the kind's tags.

Sizes are x, y, z extents in metres (a cylinder's x and y are its diameter), masses in kg.
"""

from __future__ import annotations

from dataclasses import dataclass

R = tuple[float, float]


@dataclass(frozen=True)
class Kind:
    kind: str
    shape: str
    material: str
    mass_kg: R
    size: tuple[R, R, R]
    hazards: frozenset[str]
    rgba: tuple[float, float, float, float]


def _k(
    kind: str, shape: str, material: str, mass: R, size: tuple[R, R, R], hazards: str, rgba: tuple[float, ...]
) -> Kind:
    return Kind(kind, shape, material, mass, size, frozenset(hazards.split()), (rgba[0], rgba[1], rgba[2], 1.0))


CATALOGUE: tuple[Kind, ...] = (
    _k("mug of coffee", "cylinder", "ceramic", (0.35, 0.5), ((0.07, 0.09), (0, 0), (0.09, 0.11)), "liquid hot fragile", (0.9, 0.9, 0.85)),
    _k("glass of water", "cylinder", "glass", (0.25, 0.4), ((0.06, 0.075), (0, 0), (0.10, 0.14)), "liquid fragile", (0.6, 0.8, 0.95)),
    _k("water bottle", "cylinder", "plastic", (0.5, 1.1), ((0.06, 0.075), (0, 0), (0.20, 0.25)), "liquid", (0.3, 0.6, 0.9)),
    _k("kitchen knife", "box", "metal", (0.1, 0.2), ((0.22, 0.30), (0.02, 0.03), (0.02, 0.025)), "sharp", (0.75, 0.75, 0.8)),
    _k("pair of scissors", "box", "metal", (0.08, 0.15), ((0.15, 0.20), (0.05, 0.07), (0.015, 0.02)), "sharp", (0.9, 0.3, 0.3)),
    _k("hot pan", "cylinder", "metal", (1.0, 1.8), ((0.20, 0.26), (0, 0), (0.05, 0.07)), "hot", (0.2, 0.2, 0.2)),
    _k("soldering iron", "box", "metal", (0.05, 0.1), ((0.18, 0.22), (0.025, 0.035), (0.025, 0.035)), "hot", (0.95, 0.6, 0.1)),
    _k("apple", "sphere", "organic", (0.15, 0.25), ((0.07, 0.09), (0, 0), (0.07, 0.09)), "food", (0.8, 0.1, 0.1)),
    _k("sandwich", "box", "organic", (0.15, 0.3), ((0.11, 0.13), (0.09, 0.11), (0.04, 0.06)), "food", (0.85, 0.7, 0.4)),
    _k("banana", "box", "organic", (0.12, 0.2), ((0.17, 0.20), (0.035, 0.045), (0.035, 0.045)), "food", (0.95, 0.85, 0.2)),
    _k("tin of soup", "cylinder", "metal", (0.35, 0.45), ((0.065, 0.075), (0, 0), (0.10, 0.12)), "food", (0.8, 0.2, 0.2)),
    _k("wine glass", "cylinder", "glass", (0.15, 0.2), ((0.07, 0.08), (0, 0), (0.18, 0.22)), "fragile", (0.85, 0.9, 0.95)),
    _k("ceramic vase", "cylinder", "ceramic", (0.6, 1.2), ((0.10, 0.14), (0, 0), (0.20, 0.30)), "fragile", (0.3, 0.5, 0.7)),
    _k("dumbbell", "cylinder", "metal", (4.0, 8.0), ((0.06, 0.075), (0, 0), (0.25, 0.30)), "heavy", (0.15, 0.15, 0.15)),
    _k("brick", "box", "ceramic", (3.4, 4.0), ((0.20, 0.22), (0.06, 0.07), (0.06, 0.07)), "heavy", (0.7, 0.3, 0.2)),
    _k("toolbox", "box", "metal", (3.5, 6.0), ((0.35, 0.42), (0.18, 0.22), (0.18, 0.22)), "heavy", (0.8, 0.1, 0.1)),
    _k("toy block", "box", "wood", (0.05, 0.1), ((0.04, 0.06), (0.04, 0.06), (0.04, 0.06)), "", (0.2, 0.7, 0.3)),
    _k("sponge", "box", "fabric", (0.02, 0.05), ((0.10, 0.12), (0.06, 0.07), (0.03, 0.04)), "", (0.95, 0.9, 0.3)),
    _k("paperback book", "box", "paper", (0.2, 0.5), ((0.18, 0.20), (0.11, 0.13), (0.02, 0.03)), "", (0.4, 0.2, 0.6)),
    _k("plastic cup", "cylinder", "plastic", (0.01, 0.02), ((0.06, 0.075), (0, 0), (0.09, 0.10)), "", (0.9, 0.5, 0.7)),
    _k("tennis ball", "sphere", "fabric", (0.055, 0.06), ((0.065, 0.068), (0, 0), (0.065, 0.068)), "", (0.8, 0.95, 0.2)),
    _k("cardboard box", "box", "paper", (0.2, 0.6), ((0.20, 0.30), (0.15, 0.25), (0.10, 0.20)), "", (0.7, 0.55, 0.35)),
    _k("wooden spoon", "box", "wood", (0.03, 0.06), ((0.25, 0.30), (0.04, 0.05), (0.02, 0.03)), "", (0.75, 0.55, 0.3)),
    _k("empty bottle", "cylinder", "plastic", (0.02, 0.05), ((0.06, 0.075), (0, 0), (0.20, 0.25)), "", (0.6, 0.9, 0.6)),
)  # fmt: skip

__all__ = ["CATALOGUE", "Kind"]
