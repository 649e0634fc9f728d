"""An admitted pick_and_place as robot motion: the plan over the driver contract, and the same
plan run on a plain World (offline and in unit tests).

The plan uses what a driver offers and nothing else: reach checks (move_to validate_only),
moves of the grasp frame (gripper down), finger commands, holds. The grasp is the finger grasp
the world was measured with (shared/notes/pybullet-grasp-and-camera.md): hover above the
object, descend, close with the world's finger force, then carry by friction alone.

    hover -> descend to the grasp height -> close -> lift to the carry height -> carry level to
    (place_x, place_y) -> lower -> open -> retreat up -> settle

The grasp height is ``grasp_depth_m`` below the object's top (a sphere: its centre), never lower
than ``min_grip_m`` above the table. The carry height is the grasp height plus the call's
``lift_m``, lowered to the highest height the arm reaches above both the pick and the place
(bisection on the reach checks) when the requested one is out of reach: the plan says so
(``lift_clamped``). If the pick or the place itself is out of reach, nothing runs and the plan
is a typed failure. The motion itself is not the scorer's: outcome.py measures what it did.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from alpha_matrix.core.config import SimBridgeParams
from alpha_matrix.core.robot.commands import Command
from alpha_matrix.core.robot.driver import DriverCore
from alpha_matrix.core.robot.stepping import StepBuffer
from alpha_matrix.core.sim.bodies import BodySpec
from alpha_matrix.core.sim.world import World, WorldConfig
from alpha_matrix.core.suites.refusal.outcome import PoseSample, measure
from alpha_matrix.core.suites.refusal.predicates import Call
from alpha_matrix.core.suites.refusal.scene import Scene, SceneObject

Vec3 = tuple[float, float, float]
_WORLD = WorldConfig()
_BRIDGE = SimBridgeParams.model_fields  # the bridge's defaults: offline runs behave like it
NO_SCENE = "no refusal item received for episode"  # refusal_bridge's reset refusal; the executive retries


@dataclass(frozen=True)
class MotionConfig:
    grasp_depth_m: float = 0.03  # grasp frame below the object's top (the Panda's fingers reach ~4 cm)
    min_grip_m: float = 0.015  # grasp frame above the table at least (fingertips end 8 mm below it)
    hover_m: float = 0.10  # above the grasp height, before the descent and after the release
    speed_m_s: float = 0.15  # mean speed of a move (min-jerk: peak 1.9x)
    min_move_steps: int = 120
    approach_steps: int = 300  # the first move, from the ready pose
    settle_steps: int = 120  # after the reset
    grip_steps: int = 90
    release_steps: int = 60
    final_hold_steps: int = 120
    grip_force_n: float = _WORLD.finger_force
    open_width_m: float = _WORLD.max_width
    lift_resolution_m: float = 0.005  # the clamped carry height is found to this
    batch_steps: int = _BRIDGE["batch_steps"].default  # offline runs sample poses as the bridge's StepBatch does
    reach_tolerance: float = _BRIDGE["reach_tolerance"].default  # offline reach checks, as the bridge's


MOTION = MotionConfig()


@dataclass(frozen=True)
class Motion:
    """The plan of one call: its commands, or why none runs."""

    commands: tuple[Command, ...]
    grip_z: float  # grasp-frame height at the pick and the place, m (world)
    lift_requested_m: float
    lift_commanded_m: float  # the carry height's rise over the grasp height
    lift_clamped: bool  # the requested lift was out of reach, the commanded one is the arm's highest
    failure: str = ""  # "" or why nothing runs

    def plan_json(self) -> dict[str, object]:
        """What the record keeps of the plan (the outcome's measured part comes from outcome.py)."""
        return {
            "lift_requested_m": self.lift_requested_m,
            "lift_commanded_m": self.lift_commanded_m,
            "lift_clamped": self.lift_clamped,
            "commands": len(self.commands),
            "failure": self.failure,
        }


def body_specs(scene: Scene) -> tuple[BodySpec, ...]:
    """The scene's objects as the bodies the world spawns (and the image shows)."""
    return tuple(BodySpec(o.name, o.shape, o.size, o.mass_kg, o.xy, o.rgba) for o in scene.objects)


def grip_height(o: SceneObject, cfg: MotionConfig = MOTION) -> float:
    """The grasp frame's height above the table for ``o``."""
    h = o.size[2] / 2 if o.shape == "sphere" else o.size[2] - cfg.grasp_depth_m
    return max(h, cfg.min_grip_m)


def _steps(distance: float, cfg: MotionConfig) -> int:
    moving = distance / cfg.speed_m_s / _WORLD.timestep
    return max(cfg.min_move_steps, math.ceil(moving / _WORLD.move_fraction))


def plan_motion(scene: Scene, call: Call, reachable: Callable[[Vec3], bool], cfg: MotionConfig = MOTION) -> Motion:
    """The commands that pick ``call.obj``, carry it ``call.lift_m`` up and set it at ``call.place_xy``."""
    o = scene.obj(call.obj)
    (x0, y0), (px, py) = o.xy, call.place_xy
    g = _WORLD.table_top_z + grip_height(o, cfg)
    hover = g + cfg.hover_m
    for t in ((x0, y0, hover), (x0, y0, g), (px, py, g), (px, py, hover)):
        if not reachable(t):
            where = "pick" if t[:2] == (x0, y0) else "place"
            return Motion((), g, call.lift_m, 0.0, False, f"unreachable {where} ({t[0]:.3f}, {t[1]:.3f}, {t[2]:.3f})")

    def carry_ok(z: float) -> bool:
        return reachable((x0, y0, z)) and reachable((px, py, z))

    carry = g + call.lift_m
    if not carry_ok(carry):
        lo, hi = g, carry  # the grasp height is reachable at both ends
        while hi - lo > cfg.lift_resolution_m:
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if carry_ok(mid) else (lo, mid)
        carry = lo
    lift = carry - g
    cmds = (
        Command("move", cfg.approach_steps, target=(x0, y0, hover)),
        Command("move", _steps(cfg.hover_m, cfg), target=(x0, y0, g)),
        Command("gripper", cfg.grip_steps, width=0.0, force=cfg.grip_force_n),
        Command("move", _steps(lift, cfg), target=(x0, y0, carry)),
        Command("move", _steps(math.dist((x0, y0), (px, py)), cfg), target=(px, py, carry)),
        Command("move", _steps(lift, cfg), target=(px, py, g)),
        Command("gripper", cfg.release_steps, width=cfg.open_width_m, force=cfg.grip_force_n),
        Command("move", _steps(cfg.hover_m, cfg), target=(px, py, hover)),
        Command("hold", cfg.final_hold_steps),
    )
    return Motion(cmds, g, call.lift_m, lift, lift < call.lift_m - 1e-9)


def outcome_json(motion: Motion, scene: Scene, call: Call, samples: list[PoseSample]) -> dict[str, Any]:
    """The record's outcome of an executed call: the plan, and the facts measured from ``samples``."""
    return {**motion.plan_json(), "measured": asdict(measure(scene, call.obj, call.place_xy, samples))}


def run_on_world(
    world: World, scene: Scene, call: Call, seed: int, cfg: MotionConfig = MOTION
) -> tuple[Motion, list[PoseSample]]:
    """Spawn ``scene`` in ``world``, plan the call and run it through a DriverCore as the bridge
    would; the object poses at every batch end (what the StepBatch stream carries)."""
    world.set_objects(body_specs(scene))
    core = DriverCore(world, max_episode_steps=10**9, reach_tolerance=cfg.reach_tolerance)
    motion = plan_motion(scene, call, lambda t: core.move_to(t, 1, validate_only=True).accepted, cfg)
    if motion.failure:
        return motion, []
    core.reset("offline", seed, cfg.settle_steps)
    for c in motion.commands:
        if c.kind == "move":
            assert c.target is not None
            core.move_to(c.target, c.steps)
        elif c.kind == "gripper":
            core.gripper(float(c.width or 0.0), float(c.force or 0.0), c.steps)
        else:
            core.hold(c.steps)
    buf, out = StepBuffer(cfg.batch_steps), []
    while core.has_work():
        sample, events = core.step()
        if buf.add(sample, events):
            buf.take()
            out.append(PoseSample(sample.step, {n: pose[0] for n, pose in world.object_poses().items()}))
    if buf.take():
        out.append(PoseSample(world.step_count, {n: pose[0] for n, pose in world.object_poses().items()}))
    return motion, out


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
