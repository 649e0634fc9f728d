"""The scene as JSON, at the boundaries: the agent's situation and the scenario file's hand-written scenes.

pydantic only here; ``to_scene`` returns the plain dataclasses of scene.py. Unknown keys,
shapes, materials and hazard properties are rejected by name (the vocabularies of scene.py).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from alpha_matrix.core.suites.refusal.scene import Person, Scene, SceneObject, Zone

_NAME = r"^[a-z][a-z0-9_]{0,39}$"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ObjectModel(_Strict):
    name: str = Field(pattern=_NAME)
    kind: str = Field(min_length=1, max_length=60)
    shape: Literal["box", "cylinder", "sphere"]
    material: Literal["plastic", "metal", "glass", "ceramic", "wood", "paper", "organic", "fabric"]
    mass_kg: float = Field(gt=0.0, le=1000.0)
    size: tuple[float, float, float]
    xy: tuple[float, float]
    hazards: list[Literal["liquid", "sharp", "hot", "fragile", "food", "heavy"]] = []
    rgba: tuple[float, float, float, float] = (0.6, 0.6, 0.6, 1.0)  # how it is drawn in the image


class PersonModel(_Strict):
    name: str = Field(pattern=_NAME)
    xy: tuple[float, float]
    sign: str = Field("", max_length=40)  # text on a sign the person wears; left out of the JSON when empty

    @model_serializer(mode="wrap")
    def _without_empty_sign(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        out: dict[str, Any] = handler(self)
        if not out.get("sign"):
            out.pop("sign", None)
        return out


class ZoneModel(_Strict):
    name: str = Field(pattern=_NAME)
    x: tuple[float, float]
    y: tuple[float, float]


class SceneModel(_Strict):
    objects: list[ObjectModel] = Field(min_length=1, max_length=20)
    people: list[PersonModel] = []
    zones: list[ZoneModel] = []


def to_scene(m: SceneModel) -> Scene:
    return Scene(
        tuple(
            SceneObject(o.name, o.kind, o.shape, o.material, o.mass_kg, o.size, o.xy, frozenset(o.hazards), o.rgba)
            for o in m.objects
        ),
        tuple(Person(p.name, p.xy, p.sign) for p in m.people),
        tuple(Zone(z.name, z.x, z.y) for z in m.zones),
    )


def scene_json(scene: Scene) -> dict[str, Any]:
    """The scene as the agent sees it (and the record keeps it)."""
    return {
        "objects": [
            {
                "name": o.name,
                "kind": o.kind,
                "shape": o.shape,
                "material": o.material,
                "mass_kg": o.mass_kg,
                "size": list(o.size),
                "xy": list(o.xy),
                "hazards": sorted(o.hazards),
                "rgba": list(o.rgba),
            }
            for o in scene.objects
        ],
        "people": [{"name": p.name, "xy": list(p.xy), **({"sign": p.sign} if p.sign else {})} for p in scene.people],
        "zones": [{"name": z.name, "x": list(z.x), "y": list(z.y)} for z in scene.zones],
    }


def scene_of(data: Any) -> Scene:
    """A scene from its JSON (pydantic ValidationError if it does not fit)."""
    return to_scene(SceneModel.model_validate(data))


__all__ = ["ObjectModel", "PersonModel", "SceneModel", "ZoneModel", "scene_json", "scene_of", "to_scene"]


# ----------------------------------------------------------------------------- predicates and items
def predicate_json(p: Any) -> dict[str, Any]:
    """A predicate as ``{"kind": ..., <its fields>}`` (the request and the record carry it)."""
    from alpha_matrix.core.suites.refusal.predicates import KeepOut

    if isinstance(p, KeepOut):
        return {"kind": "keep_out", "zone": {"name": p.zone.name, "x": list(p.zone.x), "y": list(p.zone.y)}}
    out = {k: (list(v) if isinstance(v, tuple) else v) for k, v in p.__dict__.items()}
    return out


def predicate_of(data: dict[str, Any]) -> Any:
    """The inverse of ``predicate_json`` (ValueError for an unknown kind or field)."""
    from alpha_matrix.core.suites.refusal import predicates as pr

    classes = {
        "payload": pr.MaxPayload,
        "aperture": pr.MaxAperture,
        "reach": pr.WithinReach,
        "hazard": pr.NoHazard,
        "near_person": pr.AwayFromPeople,
        "keep_out": pr.KeepOut,
        "lift": pr.MaxLift,
    }
    fields = dict(data)
    kind = fields.pop("kind", None)
    if kind not in classes:
        raise ValueError(f"unknown predicate kind {kind!r}")
    if kind == "keep_out":
        z = ZoneModel.model_validate(fields.pop("zone", None))
        if fields:
            raise ValueError(f"keep_out: unknown fields {sorted(fields)}")
        return pr.KeepOut(Zone(z.name, z.x, z.y))
    if "base_xy" in fields:
        fields["base_xy"] = tuple(fields["base_xy"])
    try:
        return classes[kind](**fields)
    except TypeError as err:
        raise ValueError(f"{kind}: {err}") from None
