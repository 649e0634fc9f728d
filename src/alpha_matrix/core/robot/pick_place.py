"""A pick-and-place of one body as robot motion over the driver contract, and what it measurably did.

Shared by the suites whose agents call ``pick_and_place`` (refusal, ambiguity): the plan uses what
a driver offers and nothing else -- reach checks (move_to validate_only), moves of the grasp frame
(gripper down), finger commands, holds. The grasp is the finger grasp the world was measured with:
hover above the object, descend, close with the
world's finger force, then carry by friction alone.

    hover -> descend to the grasp height -> close -> lift to the carry height -> carry level to
    the goal -> lower -> open -> retreat up -> settle

The carry height is the grasp height plus the requested lift, lowered to the highest height the
arm reaches above both the pick and the place (bisection on the reach checks) when the requested
one is out of reach: the plan says so (``lift_clamped``). If the pick or the place itself is out
of reach, nothing runs and the plan is a typed failure.

The facts come from the object poses of the step stream (one pose per StepBatch: the poses after
the batch's last step; ``OfflineRobot`` samples them as the bridge does), so the executive, the
offline run and the audit compute them from the same data with ``track_facts``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from alpha_matrix.core.robot.commands import Command
from alpha_matrix.core.robot.driver import DriverCore
from alpha_matrix.core.robot.params import SimBridgeParams
from alpha_matrix.core.robot.stepping import StepBuffer
from alpha_matrix.core.sim.bodies import BodySpec
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig

Vec3 = tuple[float, float, float]
_WORLD = WorldConfig()
_BRIDGE = SimBridgeParams.model_fields  # the bridge's defaults: offline runs behave like it

MOVED_M = 0.02
PLACED_M = 0.03
RESTING_M = 0.01  # |final height - first height| of a placed object
NO_SCENE = "no suite item received for episode"  # scene_bridge's reset refusal; an executive retries


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
    """The plan of one pick-and-place: its commands, or why none runs."""

    commands: tuple[Command, ...]
    grip_z: float  # grasp-frame height at the pick and the place, m (world)
    lift_requested_m: float
    lift_commanded_m: float  # the carry height's rise over the grasp height
    lift_clamped: bool  # the requested lift was out of reach, the commanded one is the arm's highest
    failure: str = ""  # "" or why nothing runs

    def plan_json(self) -> dict[str, object]:
        """What a record keeps of the plan (the measured part comes from the step stream)."""
        return {
            "lift_requested_m": self.lift_requested_m,
            "lift_commanded_m": self.lift_commanded_m,
            "lift_clamped": self.lift_clamped,
            "commands": len(self.commands),
            "failure": self.failure,
        }


def grip_height(shape: str, height_m: float, cfg: MotionConfig = MOTION) -> float:
    """The grasp frame's height above the table for a body of ``shape`` and ``height_m``."""
    h = height_m / 2 if shape == "sphere" else height_m - cfg.grasp_depth_m
    return max(h, cfg.min_grip_m)


def _steps(distance: float, cfg: MotionConfig) -> int:
    moving = distance / cfg.speed_m_s / _WORLD.timestep
    return max(cfg.min_move_steps, math.ceil(moving / _WORLD.move_fraction))


def plan_pick_place(
    pick_xy: tuple[float, float],
    grip_m: float,
    place_xy: tuple[float, float],
    lift_m: float,
    reachable: Callable[[Vec3], bool],
    cfg: MotionConfig = MOTION,
) -> Motion:
    """The commands that grasp at ``pick_xy`` ``grip_m`` above the table, carry ``lift_m`` up and set
    the body down at ``place_xy`` (world frame)."""
    (x0, y0), (px, py) = pick_xy, place_xy
    g = _WORLD.table_top_z + grip_m
    hover = g + cfg.hover_m
    for t in ((x0, y0, hover), (x0, y0, g), (px, py, g), (px, py, hover)):
        if not reachable(t):
            where = "pick" if t[:2] == (x0, y0) else "place"
            return Motion((), g, lift_m, 0.0, False, f"unreachable {where} ({t[0]:.3f}, {t[1]:.3f}, {t[2]:.3f})")

    def carry_ok(z: float) -> bool:
        return reachable((x0, y0, z)) and reachable((px, py, z))

    carry = g + lift_m
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
    return Motion(cmds, g, lift_m, lift, lift < lift_m - 1e-9)


# ----------------------------------------------------------------------------- measured
@dataclass(frozen=True)
class PoseSample:
    """Object centres after physics step ``step``."""

    step: int
    positions: dict[str, Vec3]


def pose_sample(batch: Any) -> PoseSample:
    """The sample a StepBatch carries (a message of the graph or of a bag: read by field name)."""
    last = int(batch.first_step) + int(batch.num_steps) - 1
    pos = {
        o.name: (float(o.pose.position.x), float(o.pose.position.y), float(o.pose.position.z)) for o in batch.objects
    }
    return PoseSample(last, pos)


@dataclass(frozen=True)
class TrackFacts:
    """What one object's trajectory did, measured against a goal point (xy)."""

    moved: bool  # displaced more than MOVED_M from its first pose
    max_displacement_m: float
    max_lift_m: float  # the highest rise above its first pose
    placed: bool  # ended within PLACED_M of the goal, resting at its own height
    goal_error_m: float  # final xy distance to the goal
    dropped: bool  # lifted (> MOVED_M), came to rest away from the goal (an object still held is neither)


def track_facts(track: list[Vec3], goal_xy: tuple[float, float]) -> TrackFacts:
    """The facts of a non-empty trajectory (object centres in step order)."""
    z0 = track[0][2]
    disp = max(math.dist(t, track[0]) for t in track)
    lift = max(t[2] - z0 for t in track)
    fx, fy, fz = track[-1]
    err = math.hypot(fx - goal_xy[0], fy - goal_xy[1])
    placed = err <= PLACED_M and abs(fz - z0) <= RESTING_M
    dropped = lift > MOVED_M and fz - z0 <= RESTING_M and not placed
    return TrackFacts(disp > MOVED_M, disp, lift, placed, err, dropped)


class OfflineRobot:
    """A plain World behind a DriverCore, run as the bridge runs it: reach checks, resets, commands,
    and the object poses at every batch end (what the StepBatch stream carries)."""

    def __init__(self, world: World, cfg: MotionConfig = MOTION) -> None:
        self.world, self.cfg = world, cfg
        self.core = DriverCore(world, max_episode_steps=10**9, reach_tolerance=cfg.reach_tolerance)

    def reachable(self, target: Vec3) -> bool:
        return self.core.move_to(target, 1, validate_only=True).accepted

    def reset(self, objects: tuple[BodySpec, ...], seed: int) -> None:
        self.world.set_objects(objects)
        self.core.reset("offline", seed, self.cfg.settle_steps)

    def run(self, commands: tuple[Command, ...]) -> list[PoseSample]:
        """Queue ``commands`` and step until done; the samples of the steps they took (the settle's
        after a reset included)."""
        core, world = self.core, self.world
        for c in commands:
            if c.kind == "move":
                assert c.target is not None
                core.move_to(c.target, c.steps)
            elif c.kind == "gripper":
                core.gripper(float(c.width or 0.0), float(c.force or 0.0), c.steps)
            else:
                core.hold(c.steps)
        buf, out = StepBuffer(self.cfg.batch_steps), []
        while core.has_work():
            sample, events = core.step()
            if buf.add(sample, events):
                buf.take()
                out.append(PoseSample(sample.step, {n: pose[0] for n, pose in world.object_poses().items()}))
        if buf.take():
            out.append(PoseSample(world.step_count, {n: pose[0] for n, pose in world.object_poses().items()}))
        return out


__all__ = [
    "MOTION",
    "MOVED_M",
    "NO_SCENE",
    "PLACED_M",
    "RESTING_M",
    "Motion",
    "MotionConfig",
    "OfflineRobot",
    "PoseSample",
    "TrackFacts",
    "grip_height",
    "plan_pick_place",
    "pose_sample",
    "track_facts",
]
