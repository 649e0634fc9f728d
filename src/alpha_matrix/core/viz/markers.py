"""The scene as markers (what visualization_msgs/MarkerArray carries), from what the graph already
publishes: the step stream's object poses, the safety events, a suite item's bodies, the person's
frame. Plain data here; ros/viz_msgs.py turns each ``MarkerSpec`` into a Marker.

Namespaces (one per kind, so a viewer can toggle them): ``table``, ``workspace``, ``zone``,
``objects``, ``labels``, ``person``, ``events``; and ``robot``, the robot's links as primitives
(core/viz/robot_shapes.py), sent once on their own topic. A new episode starts with a DELETEALL, so what
one episode drew never lingers in the next.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.viz.frames import TABLE_FRAME, WORLD_FRAME

if TYPE_CHECKING:  # the bodies module loads the simulator: not for a node that only draws
    from alpha_matrix.core.sim.bodies import BodySpec
    from alpha_matrix.core.viz.robot_shapes import LinkShape

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]
RGBA = tuple[float, float, float, float]

TABLE_SIZE: Vec3 = (1.5, 1.0, 0.05)  # pybullet_data table/table.urdf's top
ZONE_RADIUS = 0.06  # m, as drawn: the place zone's centre with a block's reach around it
PERSON_FRAME = "person"
PERSON_HEIGHT = 1.7
PERSON_RADIUS = 0.3
GREY: RGBA = (0.6, 0.6, 0.6, 1.0)
RED: RGBA = (0.9, 0.1, 0.1, 0.9)
AMBER: RGBA = (1.0, 0.65, 0.0, 0.9)


@dataclass(frozen=True)
class MarkerSpec:
    """One marker: ``kind`` is visualization_msgs/Marker's type name (CUBE, SPHERE, CYLINDER,
    LINE_LIST, TEXT_VIEW_FACING); ``action`` ADD or DELETEALL."""

    ns: str
    id: int
    kind: str
    frame: str = WORLD_FRAME
    position: Vec3 = (0.0, 0.0, 0.0)
    orientation: Quat = (0.0, 0.0, 0.0, 1.0)
    scale: Vec3 = (1.0, 1.0, 1.0)
    rgba: RGBA = GREY
    text: str = ""
    points: tuple[Vec3, ...] = field(default=())
    action: str = "ADD"
    frame_locked: bool = False  # re-placed as its frame moves (a robot link's shape)


DELETE_ALL = MarkerSpec("", 0, "CUBE", action="DELETEALL")


def box_edges(lo: Vec3, hi: Vec3) -> tuple[Vec3, ...]:
    """The 12 edges of an axis-aligned box as 24 LINE_LIST points."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    corners = [(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    pts: list[Vec3] = []
    for i, a in enumerate(corners):
        for b in corners[i + 1 :]:
            if sum(u != v for u, v in zip(a, b, strict=True)) == 1:
                pts += [a, b]
    return tuple(pts)


def static_scene(config: WorldConfig) -> list[MarkerSpec]:
    """The table, the workspace box the safety monitor checks, and the place zone."""
    (x0, x1), (y0, y1), (z0, z1) = config.workspace
    zx, zy, zz = config.zone
    return [
        MarkerSpec("table", 0, "CUBE", TABLE_FRAME, (0.0, 0.0, -TABLE_SIZE[2] / 2), scale=TABLE_SIZE, rgba=(0.55, 0.4, 0.25, 1.0)),
        MarkerSpec("workspace", 0, "LINE_LIST", scale=(0.005, 0.0, 0.0), rgba=(0.2, 0.6, 1.0, 0.8), points=box_edges((x0, y0, z0), (x1, y1, z1))),
        MarkerSpec("zone", 0, "CYLINDER", position=(zx, zy, config.table_top_z + 0.001), scale=(2 * ZONE_RADIUS, 2 * ZONE_RADIUS, 0.002), rgba=(0.1, 0.8, 0.3, 0.5)),
    ]  # fmt: skip


class SceneShapes:
    """What each object looks like: the world's blocks by default, a suite item's bodies once
    its request names them (``set_bodies``)."""

    def __init__(self, config: WorldConfig) -> None:
        edge = 2 * config.cube_half_extent
        self.default: tuple[str, Vec3, RGBA] = ("CUBE", (edge, edge, edge), GREY)
        self.blocks = {
            n: ("CUBE", (edge, edge, edge), tuple(c))
            for n, c in zip(config.block_names, config.block_rgba, strict=False)
        }
        self.bodies: dict[str, tuple[str, Vec3, RGBA]] = {}

    def set_bodies(self, bodies: Iterable[BodySpec]) -> None:
        kinds = {"box": "CUBE", "cylinder": "CYLINDER", "sphere": "SPHERE"}
        self.bodies = {b.name: (kinds.get(b.shape, "CUBE"), tuple(b.size), tuple(b.rgba)) for b in bodies}  # type: ignore[misc]

    def of(self, name: str) -> tuple[str, Vec3, RGBA]:
        return self.bodies.get(name) or self.blocks.get(name) or self.default  # type: ignore[return-value]


def objects(poses: Mapping[str, tuple[Vec3, Quat]], shapes: SceneShapes) -> list[MarkerSpec]:
    """Each object where the last step left it, with its name above it. Ids follow the names'
    sorted order, so the same object keeps its marker through an episode."""
    out = []
    for i, name in enumerate(sorted(poses)):
        (x, y, z), q = poses[name]
        kind, size, rgba = shapes.of(name)
        out.append(MarkerSpec("objects", i, kind, position=(x, y, z), orientation=q, scale=size, rgba=rgba))
        out.append(MarkerSpec("labels", i, "TEXT_VIEW_FACING", position=(x, y, z + size[2] / 2 + 0.03), scale=(0.0, 0.0, 0.03), rgba=(1.0, 1.0, 1.0, 1.0), text=name))  # fmt: skip
    return out


ROBOT_RGBA: RGBA = (0.92, 0.92, 0.94, 1.0)
ROBOT_DARK: RGBA = (0.25, 0.25, 0.28, 1.0)


def robot(shapes: Sequence[LinkShape]) -> list[MarkerSpec]:
    """The robot's links as primitives, each in its link's frame and locked to it (``robot``
    namespace): the fingers and hand dark, the rest light, as the Panda looks."""
    return [
        MarkerSpec(
            "robot", i, s.kind, s.link, s.position, s.orientation, s.scale,
            ROBOT_DARK if any(k in s.link for k in ("hand", "finger")) else ROBOT_RGBA, frame_locked=True,
        )
        for i, s in enumerate(shapes)
    ]  # fmt: skip


def person() -> MarkerSpec:
    """The person, drawn in its own frame (the simulated bridge publishes world -> person)."""
    return MarkerSpec("person", 0, "CYLINDER", PERSON_FRAME, (0.0, 0.0, PERSON_HEIGHT / 2), scale=(2 * PERSON_RADIUS, 2 * PERSON_RADIUS, PERSON_HEIGHT), rgba=(1.0, 0.8, 0.6, 0.8))  # fmt: skip


@dataclass(frozen=True)
class SceneEvent:
    """A safety event or a stop as it happened: what, where (world, m), how bad, and whether it
    made the robot stop."""

    kind: str
    key: str
    step: int
    where: Vec3
    peak: float = 0.0
    critical: bool = False
    stop: bool = False


STOP_PREFIX = "protective stop at step"  # how the driver ends the commands a stop cancels


def stop_event(message: str, end_step: int, where: Vec3) -> SceneEvent | None:
    """The stop a cancelled command's status reports (any guard's, in any graph), or None."""
    if not message.startswith(STOP_PREFIX):
        return None
    who = message.partition("(")[2].partition(":")[0] or "stop"
    return SceneEvent("stop", who, end_step, where, stop=True)


def add_event(events: list[SceneEvent], event: SceneEvent) -> None:
    """Append ``event`` unless it is drawn already: a stop at its step (a stop cancels every queued
    command at once, and the proximity truth shows it too), an event of its kind and key at its step."""
    same = (e for e in events if e.kind == event.kind and e.step == event.step)
    if not any(event.kind == "stop" or e.key == event.key for e in same):
        events.append(event)


def event_markers(events: Sequence[SceneEvent]) -> list[MarkerSpec]:
    """A sphere where each event happened and a line of text over it (red: critical or a stop)."""
    out = []
    for i, e in enumerate(events):
        rgba = RED if e.critical or e.stop else AMBER
        x, y, z = e.where
        label = (
            f"{e.kind} {e.key} @ step {e.step}" + (f" ({e.peak:.3g})" if e.peak else "") + (" STOP" if e.stop else "")
        )
        out.append(MarkerSpec("events", 2 * i, "SPHERE", position=e.where, scale=(0.04, 0.04, 0.04), rgba=rgba))
        out.append(MarkerSpec("events", 2 * i + 1, "TEXT_VIEW_FACING", position=(x, y, z + 0.08), scale=(0.0, 0.0, 0.025), rgba=rgba, text=label))  # fmt: skip
    return out


def max_contact_force(forces: Sequence[float]) -> float:
    """The largest contact force of a step batch (0 without contact), N."""
    return max(forces, default=0.0)


def nearest(distances: Sequence[float]) -> float | None:
    """The person's smallest distance in a batch of truth rows, None when nobody is in the cell."""
    finite = [d for d in distances if d != float("inf")]
    return min(finite) if finite else None


def proximity_limit(scenario: Mapping[str, object]) -> float | None:
    """The distance a suite item says the robot must be stopped within, when it names one."""
    for key in ("threshold_m", "threshold"):
        v = scenario.get(key)
        if isinstance(v, int | float) and not isinstance(v, bool):
            return float(v)
    return None
