"""Primitive bodies standing on the table (box, cylinder, sphere): one builder for every client
that shows or simulates them (a suite's rendered image and the stepped world), so a scene looks
and behaves as one thing."""

from __future__ import annotations

from dataclasses import dataclass

import pybullet as p

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class BodySpec:
    """A rigid primitive resting on the table top with its footprint centred at ``xy``.

    ``size`` is the axis-aligned extent (x, y, z), m: a cylinder's or sphere's diameter is x.
    """

    name: str
    shape: str  # box | cylinder | sphere
    size: Vec3
    mass_kg: float
    xy: tuple[float, float]
    rgba: tuple[float, float, float, float] = (0.6, 0.6, 0.6, 1.0)
    lateral_friction: float = 1.0  # as the blocks': the measured finger grasp holds with it
    spinning_friction: float = 0.005


def primitive_shapes(spec: BodySpec, cid: int) -> tuple[int, int]:
    """(collision shape, visual shape) of ``spec`` in client ``cid``."""
    sx, sy, sz = spec.size
    c = {"physicsClientId": cid}
    if spec.shape == "box":
        half = [sx / 2, sy / 2, sz / 2]
        col = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, **c)
        return col, p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=spec.rgba, **c)
    if spec.shape == "cylinder":
        col = p.createCollisionShape(p.GEOM_CYLINDER, radius=sx / 2, height=sz, **c)
        return col, p.createVisualShape(p.GEOM_CYLINDER, radius=sx / 2, length=sz, rgbaColor=spec.rgba, **c)
    if spec.shape == "sphere":
        col = p.createCollisionShape(p.GEOM_SPHERE, radius=sx / 2, **c)
        return col, p.createVisualShape(p.GEOM_SPHERE, radius=sx / 2, rgbaColor=spec.rgba, **c)
    raise ValueError(f"{spec.name}: unknown shape {spec.shape!r} (box, cylinder, sphere)")


def spawn_body(spec: BodySpec, cid: int, table_top_z: float) -> int:
    """Create ``spec`` at rest on the table top; its body id."""
    c = {"physicsClientId": cid}
    col, vis = primitive_shapes(spec, cid)
    bid = p.createMultiBody(spec.mass_kg, col, vis, [spec.xy[0], spec.xy[1], table_top_z + spec.size[2] / 2], **c)
    p.changeDynamics(bid, -1, lateralFriction=spec.lateral_friction, spinningFriction=spec.spinning_friction, **c)
    return bid


__all__ = ["BodySpec", "primitive_shapes", "spawn_body"]
