"""World: determinism, physical grasp, protective stop, reachability, samples."""

from __future__ import annotations

import math

import numpy as np
import pytest

from alpha_matrix.core.matrix.bare import run_episode_bare
from alpha_matrix.core.outcome import SETTLE_STEPS
from alpha_matrix.core.sim.errors import WorldError
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig

CFG = WorldConfig()
# Step index inside the oracle plan: settle 120 + hover 300 + descend 120 + grip 60 = lift start.
LIFT_START = 600


@pytest.fixture(scope="module")
def world():
    w = World()
    yield w
    w.close()


def pose_bytes(poses: dict) -> bytes:
    return np.array([list(pos) + list(orn) for pos, orn in poses.values()], dtype=np.float64).tobytes()


def settle(w: World) -> None:
    w.start_hold(SETTLE_STEPS)
    while w.busy:
        w.step()


def test_same_seed_identical_bytes_and_history_independent(world: World) -> None:
    fresh = World()
    try:
        ref = pose_bytes(run_episode_bare(fresh, 7).final_poses)
    finally:
        fresh.close()

    class Abort(Exception):
        pass

    def abort_while_carrying(w: World, sample) -> None:
        if sample.step == LIFT_START + 100:
            raise Abort

    run_episode_bare(world, 3)
    with pytest.raises(Abort):  # reset with a block still between the fingers
        run_episode_bare(world, 11, hook=abort_while_carrying)
    assert pose_bytes(run_episode_bare(world, 7).final_poses) == ref
    assert pose_bytes(run_episode_bare(world, 7).final_poses) == ref


def test_reset_does_not_step_and_spawns_apart(world: World) -> None:
    zone = np.array(CFG.zone[:2])
    for seed in range(30):
        world.reset(seed)
        assert world.step_count == 0 and not world.busy and not world.stopped
        poses = world.object_poses()
        assert list(poses) == list(CFG.block_names)
        xy = np.array([pos[:2] for pos, _ in poses.values()])
        assert np.all(xy[:, 0] >= CFG.spawn_x[0]) and np.all(xy[:, 0] <= CFG.spawn_x[1])
        assert np.all(xy[:, 1] >= CFG.spawn_y[0]) and np.all(xy[:, 1] <= CFG.spawn_y[1])
        assert np.all(np.linalg.norm(xy - zone, axis=1) >= CFG.min_zone_distance)
        d = np.linalg.norm(xy[:, None] - xy[None], axis=2) + np.eye(len(xy))
        assert d.min() >= CFG.min_spacing
        assert all(abs(pos[2] - CFG.spawn_z) < 1e-9 for pos, _ in poses.values())
    assert sorted(world.body_names.values()) == sorted(["plane", "table", "panda", *CFG.block_names])


def test_step_sample_shapes_and_contacts(world: World) -> None:
    world.reset(1)
    settle(world)
    s = world.step()
    assert s.step == SETTLE_STEPS + 1 == world.step_count
    assert s.joint_positions.shape == (9,) and s.joint_velocities.shape == (9,)
    assert s.joint_positions.dtype == np.float64 and len(world.joint_names) == 9
    n = len(s.contact_force)
    for arr in (s.contact_body_a, s.contact_link_a, s.contact_body_b, s.contact_link_b):
        assert arr.dtype == np.int32 and arr.shape == (n,)
    names = {
        world.body_names[int(a)] + "/" + world.body_names[int(b)]
        for a, b in zip(s.contact_body_a, s.contact_body_b, strict=True)
    }
    for block in CFG.block_names:  # every resting block touches the table
        assert f"{block}/table" in names or f"table/{block}" in names
    assert "panda" not in " ".join(names)
    assert np.all(s.contact_force >= 0.0)


def test_opening_fingers_mid_lift_drops_block(world: World) -> None:
    def open_mid_lift(w: World, sample) -> None:
        if sample.step == LIFT_START + 60:
            w.start_gripper(CFG.max_width, CFG.finger_force, 1)

    res = run_episode_bare(world, 3, hook=open_mid_lift)
    assert not res.outcome.success
    red = res.final_poses["red"][0]
    assert abs(red[2] - (CFG.table_top_z + CFG.cube_half_extent)) < 0.01  # back on the table top
    assert res.outcome.placement_error > 0.3


@pytest.mark.parametrize("force,ok", [(0.1, False), (2.0, True)])
def test_grip_force_at_lift_decides_slip(world: World, force: float, ok: bool) -> None:
    def cut(w: World, sample) -> None:
        if sample.step == LIFT_START:
            w.set_finger_force(force)

    assert run_episode_bare(world, 5, hook=cut).outcome.success is ok


def test_protective_stop_freezes_arm_and_resume(world: World) -> None:
    world.reset(2)
    settle(world)
    world.start_move((0.5, 0.2, 0.75), 240)
    for _ in range(80):
        s = world.step()
    assert np.abs(s.joint_velocities[:7]).max() > 0.2  # really moving
    world.protective_stop()
    assert world.stopped and not world.busy
    q0 = s.joint_positions[:7].copy()
    for _ in range(48):
        q = world.step().joint_positions[:7]
        assert np.abs(q - q0).max() < 0.005
    with pytest.raises(WorldError):
        world.start_move((0.5, 0.0, 0.8), 100)
    with pytest.raises(WorldError):
        world.start_gripper(0.0, 20.0, 10)
    world.resume()
    world.start_move((0.5, 0.0, 0.8), 200)
    while world.busy:
        world.step()
    assert math.dist(world.grasp_position(), (0.5, 0.0, 0.8)) < 0.002


def test_reach_error_and_world_untouched(world: World) -> None:
    world.reset(4)
    before = pose_bytes(world.object_poses())
    assert world.reach_error((0.5, 0.0, 0.8)) < 1e-4
    assert world.reach_error(CFG.zone) < 1e-4
    assert world.reach_error((1.6, 0.0, 0.8)) > 0.5
    assert world.step_count == 0 and pose_bytes(world.object_poses()) == before


def test_gear_keeps_fingers_symmetric(world: World) -> None:
    world.reset(6)
    world.start_gripper(0.0, CFG.finger_force, 60)
    while world.busy:
        s = world.step()
    f1, f2 = s.joint_positions[7:]
    assert abs(f1 - f2) < 1e-3 and f1 < 0.005


def test_bad_arguments_raise_and_leave_active_move_alone(world: World) -> None:
    world.reset(0)
    world.start_move((0.5, 0.0, 0.8), 200)
    world.step()
    with pytest.raises(WorldError):
        world.start_move((0.5, math.nan, 0.8), 10)
    with pytest.raises(WorldError):
        world.start_gripper(math.inf, 1.0, 10)
    with pytest.raises(WorldError):
        world.start_hold(0)
    while world.busy:
        world.step()
    assert math.dist(world.grasp_position(), (0.5, 0.0, 0.8)) < 0.002


def test_commands_before_reset_raise() -> None:
    w = World()
    try:
        assert len(w.joint_names) == 9 and "panda" in w.body_names.values()
        with pytest.raises(WorldError):
            w.step()
        with pytest.raises(WorldError):
            w.start_hold(5)
    finally:
        w.close()
