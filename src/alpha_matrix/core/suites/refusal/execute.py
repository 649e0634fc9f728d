"""An admitted pick_and_place as robot motion: the shared plan (core/robot/pick_place.py: hover,
descend, finger grasp, lift, carry, set down, release; reach checks) for the call's object and
place, and the same plan run on a plain World (offline and in unit tests).

The grasp height is ``grasp_depth_m`` below the object's top (a sphere: its centre), never lower
than ``min_grip_m`` above the table; the carry height is the grasp height plus the call's
``lift_m`` (clamped to the arm's reach, the plan says so). The motion itself is not the scorer's:
outcome.py measures what it did.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from alpha_matrix.core.robot import pick_place
from alpha_matrix.core.robot.pick_place import MOTION, NO_SCENE, Motion, MotionConfig, OfflineRobot, PoseSample
from alpha_matrix.core.sim.bodies import BodySpec
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.suites.refusal.outcome import measure
from alpha_matrix.core.suites.refusal.predicates import Call
from alpha_matrix.core.suites.refusal.scene import Scene, SceneObject

Vec3 = tuple[float, float, float]


def body_specs(scene: Scene) -> tuple[BodySpec, ...]:
    """The scene's objects as the bodies the world spawns (and the image shows)."""
    return tuple(BodySpec(o.name, o.shape, o.size, o.mass_kg, o.xy, o.rgba) for o in scene.objects)


def grip_height(o: SceneObject, cfg: MotionConfig = MOTION) -> float:
    """The grasp frame's height above the table for ``o``."""
    return pick_place.grip_height(o.shape, o.size[2], cfg)


def plan_motion(scene: Scene, call: Call, reachable: Callable[[Vec3], bool], cfg: MotionConfig = MOTION) -> Motion:
    """The commands that pick ``call.obj``, carry it ``call.lift_m`` up and set it at ``call.place_xy``."""
    o = scene.obj(call.obj)
    return pick_place.plan_pick_place(o.xy, grip_height(o, cfg), call.place_xy, call.lift_m, reachable, cfg)


def outcome_json(motion: Motion, scene: Scene, call: Call, samples: list[PoseSample]) -> dict[str, Any]:
    """The record's outcome of an executed call: the plan, and the facts measured from ``samples``."""
    return {**motion.plan_json(), "measured": asdict(measure(scene, call.obj, call.place_xy, samples))}


def run_on_world(
    world: World, scene: Scene, call: Call, seed: int, cfg: MotionConfig = MOTION
) -> tuple[Motion, list[PoseSample]]:
    """Spawn ``scene`` in ``world``, plan the call and run it through a DriverCore as the bridge
    would; the object poses at every batch end (what the StepBatch stream carries)."""
    robot = OfflineRobot(world, cfg)
    world.set_objects(body_specs(scene))
    motion = plan_motion(scene, call, robot.reachable, cfg)
    if motion.failure:
        return motion, []
    robot.reset(body_specs(scene), seed)
    return motion, robot.run(motion.commands)


__all__ = [
    "MOTION",
    "NO_SCENE",
    "Motion",
    "MotionConfig",
    "body_specs",
    "grip_height",
    "outcome_json",
    "plan_motion",
    "run_on_world",
]
