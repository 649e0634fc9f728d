"""The ambiguity scene in the world, and a ``pick_and_place(object, goal)`` executed and measured.

The scene frame (``x_m`` to the operator's right, ``y_m`` away from the robot) is laid on the
table in front of the Panda: world x = ``ORIGIN_X_M`` + y_m, world y = -x_m (the operator stands
at the robot's side, facing as it does). Blocks are bodies of ``BLOCK_M`` (cube: box, cylinder,
ball: sphere). Places are table positions, not bodies: a slot or a pad is a point that holds a
block within ``PLACED_M``; a bin is a square of half-side ``BIN_HALF_M`` whose block positions
(``BIN_SPOTS``) are filled in order, the first one free of other blocks being the goal point.

A call runs the shared plan (core/robot/pick_place.py) from where the block now is to the goal
point, on whichever robot the episode has (``Robot``: the graph's driver, a plain World offline,
the bag's step stream in the audit). The episode's reset (the item's bodies spawned) comes before
its first executed call. The placement is then what the poses measured: a block is in a place
when its centre, at rest on the table, lies in the place's area; anywhere else it is on the table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from alpha_matrix.core.robot.commands import Command
from alpha_matrix.core.robot.pick_place import (
    MOTION,
    PLACED_M,
    RESTING_M,
    MotionConfig,
    OfflineRobot,
    PoseSample,
    grip_height,
    plan_pick_place,
    track_facts,
)
from alpha_matrix.core.sim.bodies import BodySpec
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.ambiguity.scene import Place, Scene

Vec3 = tuple[float, float, float]
XY = tuple[float, float]

ORIGIN_X_M = 0.54  # world x of the scene's y_m = 0: every place and block within the arm's reach
BLOCK_M = 0.04  # every block's extent (the fingers open to 0.08)
BLOCK_KG = 0.1
LIFT_M = 0.10  # the carry height over the grasp height: clears the other blocks
BIN_HALF_M = 0.08
BIN_SPOTS: tuple[XY, ...] = tuple((dx, dy) for dy in (-0.05, 0.0, 0.05) for dx in (-0.045, 0.045))  # from the centre
SPOT_FREE_M = 0.03  # a bin spot is free when no other block's centre is this close
SHAPE_BODY = {"cube": "box", "cylinder": "cylinder", "ball": "sphere"}
RGBA = {
    "red": (0.85, 0.1, 0.1, 1.0),
    "green": (0.1, 0.7, 0.2, 1.0),
    "blue": (0.15, 0.3, 0.9, 1.0),
    "yellow": (0.95, 0.85, 0.1, 1.0),
    "orange": (0.95, 0.5, 0.1, 1.0),
    "purple": (0.55, 0.2, 0.7, 1.0),
}
_REST_Z = WorldConfig().table_top_z + BLOCK_M / 2  # a block's centre at rest on the table


def to_world(xy: XY) -> XY:
    return (ORIGIN_X_M + xy[1], -xy[0])


def to_scene(world_xy: XY) -> XY:
    return (-world_xy[1], world_xy[0] - ORIGIN_X_M)


def body_specs(scene: Scene) -> tuple[BodySpec, ...]:
    """The scene's blocks as the bodies the world spawns."""
    return tuple(
        BodySpec(b.name, SHAPE_BODY[b.shape], (BLOCK_M,) * 3, BLOCK_KG, to_world((b.x_m, b.y_m)), RGBA[b.colour])
        for b in scene.blocks
    )


def declared_positions(scene: Scene) -> dict[str, Vec3]:
    """The blocks' centres as the scene declares them (before the episode's reset)."""
    return {b.name: (*to_world((b.x_m, b.y_m)), _REST_Z) for b in scene.blocks}


def inside(place: Place, xy: XY) -> bool:
    """Whether a block centred at ``xy`` (scene frame) is in ``place``."""
    dx, dy = xy[0] - place.x_m, xy[1] - place.y_m
    if place.kind == "bin":
        return abs(dx) <= BIN_HALF_M and abs(dy) <= BIN_HALF_M
    return math.hypot(dx, dy) <= PLACED_M


def placement_of(scene: Scene, positions: dict[str, Vec3]) -> dict[str, str | None]:
    """Block -> the place its measured centre is in (None: on the table, or not at rest)."""
    out: dict[str, str | None] = {}
    for b in scene.blocks:
        x, y, z = positions[b.name]
        xy = to_scene((x, y))
        rest = abs(z - _REST_Z) <= RESTING_M
        out[b.name] = next((p.name for p in scene.places if rest and inside(p, xy)), None)
    return out


def goal_point(scene: Scene, obj: str, goal: str, positions: dict[str, Vec3]) -> XY | None:
    """Where ``obj`` is set down for ``goal`` (scene frame): a slot's or pad's point, a bin's first
    spot no other block stands on; None when the bin is full."""
    p = scene.place(goal)
    if p.kind != "bin":
        return (p.x_m, p.y_m)
    others = [to_scene((v[0], v[1])) for n, v in positions.items() if n != obj]
    for dx, dy in BIN_SPOTS:
        spot = (round(p.x_m + dx, 3), round(p.y_m + dy, 3))
        if all(math.dist(spot, o) > SPOT_FREE_M for o in others):
            return spot
    return None


class Robot(Protocol):
    """Plans and runs one pick-and-place (world frame); resets the episode before its first run.
    Returns the plan's record (core/robot/pick_place.Motion.plan_json) and the pose samples of the
    steps it ran (none when the plan failed)."""

    def pick_place(
        self, pick_xy: XY, grip_m: float, place_xy: XY, lift_m: float
    ) -> tuple[dict[str, Any], list[PoseSample]]: ...


@dataclass(frozen=True)
class Moved:
    """What one executed call did: the turn's record, the placement and positions after it."""

    record: dict[str, Any]
    placement: dict[str, str | None]
    positions: dict[str, Vec3]
    event: str


def _r(v: float) -> float:
    return round(v, 4)


@dataclass
class DriverRobot:
    """A ``Robot`` over the driver contract's pieces: reach checks, the episode's reset, commands
    run to their end (their pose samples). The graph's executive and the offline World both give them."""

    reachable: Callable[[Vec3], bool]
    reset: Callable[[], None]
    run: Callable[[tuple[Command, ...]], list[PoseSample]]
    cfg: MotionConfig = MOTION
    was_reset: bool = False

    def pick_place(
        self, pick_xy: XY, grip_m: float, place_xy: XY, lift_m: float
    ) -> tuple[dict[str, Any], list[PoseSample]]:
        motion = plan_pick_place(pick_xy, grip_m, place_xy, lift_m, self.reachable, self.cfg)
        if motion.failure:
            return motion.plan_json(), []
        if not self.was_reset:
            self.reset()
            self.was_reset = True
        return motion.plan_json(), self.run(motion.commands)


def world_robot(world: World, scene: Scene, seed: int, cfg: MotionConfig = MOTION) -> DriverRobot:
    """The robot of an offline episode: ``world`` (reused across items) driven as the bridge drives it."""
    robot = OfflineRobot(world, cfg)
    return DriverRobot(robot.reachable, lambda: robot.reset(body_specs(scene), seed), robot.run, cfg)


class PhysicalMoves:
    """The episode's physical side: the blocks' measured positions, one call at a time."""

    def __init__(self, scene: Scene, robot: Robot) -> None:
        self.scene, self.robot = scene, robot
        self.positions = declared_positions(scene)
        self.last_step = 0

    def __call__(self, obj: str, goal: str, placement: dict[str, str | None]) -> Moved:
        call = f"pick_and_place({obj}, {goal})"
        target = goal_point(self.scene, obj, goal, self.positions)
        if target is None:
            full = {"target_xy": None, "failure": f"{goal} has no free spot"}
            return Moved(full, dict(placement), self.positions, f"{call} not executed: {goal} has no free spot")
        start = self.positions[obj]
        b = self.scene.block(obj)
        plan, samples = self.robot.pick_place(
            (start[0], start[1]), grip_height(SHAPE_BODY[b.shape], BLOCK_M), to_world(target), LIFT_M
        )
        record: dict[str, Any] = {"target_xy": list(target), "plan": plan}
        new = [s for s in samples if s.step > self.last_step]
        if plan.get("failure") or not new:
            record["failure"] = plan.get("failure") or "no poses in the step stream"
            return Moved(record, dict(placement), self.positions, f"{call} not executed: {record['failure']}")
        self.last_step = new[-1].step
        self.positions = {n: new[-1].positions[n] for n in self.positions}
        facts = track_facts([s.positions[obj] for s in new if obj in s.positions], to_world(target))
        after = placement_of(self.scene, self.positions)
        record["end_step"] = self.last_step
        record["facts"] = {k: _r(v) if isinstance(v, float) else v for k, v in asdict(facts).items()}
        record["positions"] = {n: [_r(c) for c in v] for n, v in sorted(self.positions.items())}
        where = after[obj]
        said = f"{obj} is in {goal}" if where == goal else f"{obj} is not in {goal} ({where or 'on the table'})"
        return Moved(record, after, self.positions, f"{call} done: {said}")

    def scene_positions(self) -> dict[str, XY]:
        """The blocks' measured centres in the scene frame (mm), as the agent is shown them."""
        return {n: tuple(round(c, 3) for c in to_scene((v[0], v[1]))) for n, v in self.positions.items()}  # type: ignore[misc]


__all__ = [
    "BIN_HALF_M",
    "BIN_SPOTS",
    "BLOCK_M",
    "DriverRobot",
    "LIFT_M",
    "ORIGIN_X_M",
    "Moved",
    "PhysicalMoves",
    "Robot",
    "body_specs",
    "declared_positions",
    "goal_point",
    "inside",
    "placement_of",
    "to_scene",
    "to_world",
    "world_robot",
]
