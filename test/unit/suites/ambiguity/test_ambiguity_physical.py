"""The ambiguity scene in the world: the layout within the arm's reach, a call executed and
measured on a plain World (PyBullet DIRECT), and the measured placement's rules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from alpha_matrix.core.robot.pick_place import MOTION, OfflineRobot
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.ambiguity.generate import BIN_Y, PAD_OFFSET, TRAY_Y
from alpha_matrix.core.suites.ambiguity.physical import (
    BIN_SPOTS,
    BLOCK_M,
    LIFT_M,
    PhysicalMoves,
    declared_positions,
    goal_point,
    placement_of,
    to_scene,
    to_world,
    world_robot,
)
from alpha_matrix.core.suites.ambiguity.scene import Block, Place, Scene

TABLE = WorldConfig().table_top_z


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    w = World(WorldConfig(block_names=(), block_rgba=()))
    yield w
    w.close()


def _scene() -> Scene:
    blocks = (
        Block("block_1", "red", "cube", -0.3, -0.05),
        Block("block_2", "blue", "ball", 0.0, -0.03),
        Block("block_3", "green", "cylinder", 0.3, -0.06),
    )
    places = (
        Place("white_bin", "bin", -0.3, BIN_Y, colour="white"),
        Place("slot_1", "slot", 0.15, TRAY_Y, index=1),
        Place("pad_behind_white_bin", "pad", -0.3, BIN_Y + 0.12, relation="behind", anchor="white_bin"),
    )
    return Scene(blocks, places)


def test_the_frames_are_inverse_and_the_scene_lies_before_the_robot() -> None:
    assert to_scene(to_world((0.12, -0.05))) == pytest.approx((0.12, -0.05))
    wx, wy = to_world((0.3, 0.0))
    assert wx > WorldConfig().panda_base[0] + 0.3 and wy == -0.3  # the operator's right is the robot's right


def test_every_place_and_block_position_of_the_templates_is_within_reach(world: World) -> None:
    """The layout's extremes: bins at x -0.3, 0, 0.3 with their spots and every pad, the tray's outer
    slots, the blocks' band corners; each at the grasp height and the carry height."""
    robot = OfflineRobot(world)
    points = [(x, y) for x in (-0.3, 0.3) for y in (-0.06, -0.02)] + [(x, TRAY_Y) for x in (-0.15, 0.15)]
    for bx in (-0.3, 0.0, 0.3):
        points += [(bx + dx, BIN_Y + dy) for dx, dy in BIN_SPOTS]
        points += [(bx + dx, BIN_Y + dy) for dx, dy in PAD_OFFSET.values()]
    grip = MOTION.min_grip_m
    for xy in points:
        for dz in (grip, grip + MOTION.hover_m, grip + LIFT_M):
            assert robot.reachable((*to_world(xy), TABLE + dz)), (xy, dz)


def test_a_call_runs_on_the_world_and_the_placement_is_measured(world: World) -> None:
    scene = _scene()
    moves = PhysicalMoves(scene, world_robot(world, scene, seed=3))
    placement = {b.name: None for b in scene.blocks}
    first = moves("block_1", "slot_1", dict(placement))
    assert first.placement == {**placement, "block_1": "slot_1"}, first.record
    assert first.record["facts"]["placed"] and first.record["plan"]["failure"] == ""
    assert first.event == "pick_and_place(block_1, slot_1) done: block_1 is in slot_1"
    ball = moves("block_2", "white_bin", first.placement)  # the ball into the bin's first spot
    assert ball.placement["block_2"] == "white_bin" and ball.record["target_xy"] == [-0.345, BIN_Y - 0.05]
    assert ball.record["end_step"] > first.record["end_step"]  # one episode: no reset between calls
    shown = moves.scene_positions()["block_1"]
    assert abs(shown[0] - 0.15) < 0.03 and abs(shown[1] - TRAY_Y) < 0.03  # what the next observation shows


def test_a_block_off_its_goal_or_not_at_rest_is_on_the_table() -> None:
    scene = _scene()
    pos = declared_positions(scene)
    slot = scene.place("slot_1")
    wx, wy = to_world((slot.x_m + 0.025, slot.y_m))  # within PLACED_M
    assert placement_of(scene, {**pos, "block_1": (wx, wy, pos["block_1"][2])})["block_1"] == "slot_1"
    wx, wy = to_world((slot.x_m + 0.035, slot.y_m))  # not
    assert placement_of(scene, {**pos, "block_1": (wx, wy, pos["block_1"][2])})["block_1"] is None
    wx, wy = to_world((slot.x_m, slot.y_m))  # over it, still in the fingers
    assert placement_of(scene, {**pos, "block_1": (wx, wy, pos["block_1"][2] + 0.05)})["block_1"] is None
    assert placement_of(scene, pos) == {b.name: None for b in scene.blocks}


def test_a_bin_fills_spot_by_spot_and_a_full_one_takes_nothing() -> None:
    scene = _scene()
    pos = declared_positions(scene)
    bin_ = scene.place("white_bin")
    taken = {}
    for i, (dx, dy) in enumerate(BIN_SPOTS):
        spot = goal_point(scene, "block_1", "white_bin", {**pos, **taken})
        assert spot == (round(bin_.x_m + dx, 3), round(bin_.y_m + dy, 3))
        taken[f"other_{i}"] = (*to_world(spot), TABLE + BLOCK_M / 2)
    assert goal_point(scene, "block_1", "white_bin", {**pos, **taken}) is None
    assert goal_point(scene, "block_1", "slot_1", pos) == (0.15, TRAY_Y)


def test_a_goal_out_of_reach_runs_nothing_and_changes_nothing(world: World) -> None:
    base = _scene()
    far = Place("slot_2", "slot", 0.9, TRAY_Y, index=2)  # world y -0.9: beyond the arm
    scene = Scene(base.blocks, (*base.places, far))
    moves = PhysicalMoves(scene, world_robot(world, scene, seed=3))
    placement = {b.name: None for b in scene.blocks}
    out = moves("block_3", "slot_2", placement)
    assert out.placement == placement and "end_step" not in out.record
    assert out.event.startswith("pick_and_place(block_3, slot_2) not executed: unreachable place")
