"""The adapter's kinematics from the URDF the simulated arm publishes (pybullet_data's Panda):
FK agrees with PyBullet's, IK reaches the contract's targets gripper-down, unreachable and
non-finite targets have a reach error, and a URDF that lacks what the adapter needs is one line."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pybullet_data
import pytest

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.adapter.kinematics import ArmFrames, ArmKinematics
from alpha_matrix.core.robot.adapter.motion import MotionShape, knots, moving_steps, plan_joint_move, plan_move

URDF = (Path(pybullet_data.getDataPath()) / "franka_panda" / "panda.urdf").read_text()


@pytest.fixture(scope="module")
def kin() -> ArmKinematics:
    return ArmKinematics(URDF)


def test_fk_matches_the_simulated_panda(kin: ArmKinematics) -> None:
    from alpha_matrix.core.sim.kinematics import Kinematics  # the test may look at the simulator
    from alpha_matrix.core.sim.world_config import WorldConfig

    sim = Kinematics(WorldConfig())
    try:
        rng = np.random.default_rng(3)
        for _ in range(20):
            q = rng.uniform(kin.lower, kin.upper)
            assert np.allclose(kin.tool_position(q), sim.fk(q)[0], atol=1e-9)
    finally:
        sim.close()


def test_link_indices_are_pybullets(kin: ArmKinematics) -> None:
    # core/sim/kinematics: fingers 9, 10, grasp frame 11; the standard arm's F/T sensor: the hand, 8
    names = ("panda_link1", "panda_hand", "panda_leftfinger", "panda_rightfinger", "panda_grasptarget")
    assert [kin.link_index(n) for n in names] == [0, 8, 9, 10, 11]
    assert kin.link_index("panda_link0") == -1


@pytest.mark.parametrize("target", [(0.5, 0.0, 0.8), (0.55, 0.1, 0.7), (0.4, -0.3, 0.66), (0.7, 0.15, 0.65)])
def test_reachable_targets_are_reached_gripper_down(kin: ArmKinematics, target) -> None:
    assert kin.reach_error(target) < 1e-4
    q = kin.solve(kin.grasp_target(target), kin.rest, 100)
    pose = kin.tool_pose(q)
    assert math.dist(pose.translation.tolist(), target) < 1e-4
    assert np.allclose(pose.rotation[:, 2], [0.0, 0.0, -1.0], atol=1e-4)  # the tool's z axis points down
    assert np.all(q >= kin.lower) and np.all(q <= kin.upper)


@pytest.mark.parametrize("target", [(1.6, 0.0, 0.7), (0.1, 0.0, 1.8), (-0.9, 0.0, 0.7)])
def test_unreachable_targets_have_a_reach_error(kin: ArmKinematics, target) -> None:
    assert kin.reach_error(target) > 0.3


def test_non_finite_targets_are_infinitely_far(kin: ArmKinematics) -> None:
    assert kin.reach_error((math.nan, 0.0, 0.7)) == math.inf
    assert kin.reach_error((0.5, math.inf, 0.7)) == math.inf


def test_the_base_pose_moves_the_world_frame() -> None:
    moved = ArmKinematics(URDF, ArmFrames(base_xyz=(0.0, 0.0, 0.0)))
    here = ArmKinematics(URDF)
    q = here.rest
    assert np.allclose(np.subtract(here.tool_position(q), moved.tool_position(q)), (0.1, 0.0, 0.625))


def test_ik_is_fast(kin: ArmKinematics) -> None:
    t0 = time.perf_counter()
    for i in range(20):
        kin.reach_error((0.45 + 0.01 * i, 0.05, 0.75))
    per = (time.perf_counter() - t0) / 20
    assert per < 0.05, f"a reach check took {per * 1e3:.1f} ms"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"tool_frame": "tool0"}, "tool_frame: the URDF on /robot_description has no frame 'tool0'"),
        ({"base_frame": "world"}, "base_frame: the URDF on /robot_description has no frame 'world'"),
        ({"base_frame": "panda_link3"}, "moves with the arm's joints"),
        ({"ft_frame": "ft_sensor"}, "ft_frame: the URDF"),
        ({"arm_joints": ("joint_a1", *ArmFrames().arm_joints[1:])}, "arm_joints: joint(s) joint_a1 not in the URDF"),
        ({"finger_joints": ("gripper_joint",)}, "finger_joints: joint(s) gripper_joint not in the URDF"),
    ],
)
def test_a_urdf_without_what_the_adapter_needs_is_one_line(change, says) -> None:
    with pytest.raises(AlphaMatrixError, match=says.replace("(", r"\(").replace(")", r"\)")) as err:
        ArmKinematics(URDF, ArmFrames(**change))
    assert "\n" not in str(err.value)


def test_text_that_is_no_urdf_is_one_line() -> None:
    with pytest.raises(AlphaMatrixError, match="robot_description: not a URDF") as err:
        ArmKinematics("<robot name='x'><link name=")
    assert "\n" not in str(err.value)


def test_a_move_follows_the_simulated_drivers_shape(kin: ArmKinematics) -> None:
    rate, steps = 240.0, 240
    start = kin.solve(kin.grasp_target((0.5, 0.0, 0.8)), kin.rest, 100)
    target = (0.6, 0.1, 0.66)  # descends and travels 0.14 m in xy: xy first
    t0 = time.perf_counter()
    path = plan_move(kin, start, target, steps, rate)
    took = time.perf_counter() - t0
    moving = moving_steps(steps, MotionShape())
    assert moving == 192 and path.duration == pytest.approx(192 / 240)
    assert len(path.times) == len(knots(moving, 6)) == 32
    assert path.residual < 1e-4 and took < 0.5
    assert path.velocities[-1] == (0.0,) * 7
    z = [kin.tool_position(q)[2] for q in path.positions]
    xy = [math.dist(kin.tool_position(q)[:2], (0.5, 0.0)) for q in path.positions]
    half = len(z) // 2
    assert max(abs(v - 0.8) for v in z[: half - 1]) < 2e-3  # z waits for the first half ...
    assert xy[half] > 0.5 * math.dist((0.6, 0.1), (0.5, 0.0))  # ... while xy is well under way
    # every knot on the path, gripper down
    for q in path.positions:
        assert np.allclose(kin.tool_pose(q).rotation[:, 2], [0.0, 0.0, -1.0], atol=1e-3)


def test_a_straight_move_is_a_line(kin: ArmKinematics) -> None:
    start = kin.solve(kin.grasp_target((0.5, 0.0, 0.8)), kin.rest, 100)
    path = plan_move(kin, start, (0.5, 0.0, 0.7), 120, 240.0)  # straight down: no xy to travel first
    for q in path.positions:
        x, y, _z = kin.tool_position(q)
        assert abs(x - 0.5) < 1e-3 and abs(y) < 1e-3


def test_the_home_move_is_min_jerk_in_joint_space(kin: ArmKinematics) -> None:
    start = np.zeros(7)
    path = plan_joint_move(start, kin.rest, 120, 240.0)
    assert path.positions[-1] == pytest.approx(tuple(kin.rest))
    assert path.duration == pytest.approx(96 / 240)
    steps = [np.linalg.norm(np.subtract(b, a)) for a, b in zip(path.positions, path.positions[1:], strict=False)]
    assert steps[len(steps) // 2] > steps[0] and steps[len(steps) // 2] > steps[-1]  # slow, fast, slow
