"""core/viz/frames: the URDF's transforms match Pinocchio's forward kinematics of the same URDF."""

from __future__ import annotations

import math

import numpy as np
import pytest

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.robot.adapter.kinematics import ArmKinematics
from alpha_matrix.core.sim.camera_model import CELL_CAMERA, world_from_camera
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.standard_arm.arm import JOINT_NAMES, panda_urdf_text
from alpha_matrix.core.viz.frames import (
    WORLD_FRAME,
    RobotFrames,
    Transform,
    link_names,
    person_frame,
    quaternion,
    world_frames,
)


def _matrix(t: Transform) -> np.ndarray:
    x, y, z, w = t.rotation
    m = np.eye(4)
    m[:3, :3] = [
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ]
    m[:3, 3] = t.translation
    return m


def _world_poses(transforms: list[Transform]) -> dict[str, np.ndarray]:
    by_child = {t.child: t for t in transforms}
    out: dict[str, np.ndarray] = {WORLD_FRAME: np.eye(4)}

    def pose(frame: str) -> np.ndarray:
        if frame not in out:
            t = by_child[frame]
            out[frame] = pose(t.parent) @ _matrix(t)
        return out[frame]

    for child in by_child:
        pose(child)
    return out


def test_every_link_gets_a_frame_and_the_tree_is_rooted_at_the_world() -> None:
    urdf = panda_urdf_text()
    robot = RobotFrames(urdf)
    q = [0.1, -0.5, 0.2, -2.0, 0.3, 1.8, 0.7, 0.02, 0.02]
    tfs = [
        *world_frames(WorldConfig(), robot.root, CELL_CAMERA),
        *robot.static(),
        *robot.moving_transforms(JOINT_NAMES, q),
    ]
    poses = _world_poses(tfs)
    assert robot.root == "panda_link0"
    assert set(link_names(urdf)) <= set(poses)
    assert {"table", CELL_CAMERA.optical_frame} <= set(poses)
    assert len({t.child for t in tfs}) == len(tfs)  # one parent per frame: a tree


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_grasp_frame_matches_pinocchio(seed: int) -> None:
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1.5, 1.5, 7)
    kin = ArmKinematics(panda_urdf_text())
    robot = RobotFrames(panda_urdf_text())
    poses = _world_poses(
        [
            *world_frames(WorldConfig(), robot.root),
            *robot.static(),
            *robot.moving_transforms(JOINT_NAMES, [*q, 0.04, 0.04]),
        ]
    )
    want = kin.tool_pose(q, [0.04, 0.04])  # world frame: the adapter puts the base where the cell has it
    assert np.allclose(poses["panda_grasptarget"][:3, 3], want.translation, atol=1e-9)
    assert np.allclose(poses["panda_grasptarget"][:3, :3], want.rotation, atol=1e-9)


def test_quaternions_are_unit_and_match_the_camera_mount() -> None:
    assert quaternion(np.eye(3)) == (0.0, 0.0, 0.0, 1.0)
    cam = next(
        t for t in world_frames(WorldConfig(), "panda_link0", CELL_CAMERA) if t.child == CELL_CAMERA.optical_frame
    )
    assert np.allclose(_matrix(cam), world_from_camera(CELL_CAMERA.eye, CELL_CAMERA.target, CELL_CAMERA.up), atol=1e-12)
    assert np.allclose(cam.rotation, CELL_CAMERA.quaternion(), atol=1e-12) or np.allclose(
        cam.rotation, [-v for v in CELL_CAMERA.quaternion()], atol=1e-12
    )
    p = person_frame(1.0, 2.0, math.pi / 2)
    assert p.translation == (1.0, 2.0, 0.0) and math.isclose(math.hypot(*p.rotation), 1.0)


def test_not_a_urdf_is_one_line() -> None:
    with pytest.raises(AlphaMatrixError, match="not XML"):
        RobotFrames("<robot")
    with pytest.raises(AlphaMatrixError, match="expected <robot>"):
        RobotFrames("<sdf/>")
