"""The robot's TF frames from its URDF, as robot_state_publisher computes them.

Each URDF joint is one transform, parent link -> child link: the joint's origin times its motion
(a rotation about the axis for revolute and continuous joints, a translation along it for
prismatic ones). Fixed joints never move: they go on /tf_static once, with the world's own frames
(the robot's base on the table, the table, a suite's camera). The moving ones go on /tf from the
joint positions of a step. Pure numpy; the URDF is read with the standard library.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.sim.camera_model import CellCamera, world_from_camera
from alpha_matrix.core.sim.world_config import WorldConfig

WORLD_FRAME = "world"
TABLE_FRAME = "table"

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]  # x, y, z, w


@dataclass(frozen=True)
class Transform:
    """``child``'s pose in ``parent``: translation (m) and unit quaternion (x, y, z, w)."""

    parent: str
    child: str
    translation: Vec3
    rotation: Quat


@dataclass(frozen=True)
class UrdfJoint:
    name: str
    kind: str  # revolute | continuous | prismatic | fixed | ...
    parent: str
    child: str
    origin: np.ndarray  # (4, 4) parent_T_joint at zero position
    axis: np.ndarray  # unit vector in the joint frame


def rpy_matrix(roll: float, pitch: float, yaw: float) -> np.ndarray:
    """URDF's fixed-axis roll-pitch-yaw: Rz(yaw) Ry(pitch) Rx(roll)."""
    cr, sr, cp, sp, cy, sy = (
        math.cos(roll),
        math.sin(roll),
        math.cos(pitch),
        math.sin(pitch),
        math.cos(yaw),
        math.sin(yaw),
    )
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
            [-sp, cp * sr, cp * cr],
        ]
    )


def axis_angle_matrix(axis: np.ndarray, angle: float) -> np.ndarray:
    """Rodrigues: the rotation by ``angle`` about the unit ``axis``."""
    x, y, z = axis
    k = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + math.sin(angle) * k + (1.0 - math.cos(angle)) * (k @ k)


def quaternion(rot: np.ndarray) -> Quat:
    """A rotation matrix as a unit quaternion (x, y, z, w), w >= 0."""
    m = rot
    t = m[0, 0] + m[1, 1] + m[2, 2]
    if t > 0:
        s = 2.0 * math.sqrt(t + 1.0)
        q = (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, 0.25 * s
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s
    else:
        s = 2.0 * math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s, (m[1, 0] - m[0, 1]) / s
    n = math.sqrt(sum(v * v for v in q))
    sign = -1.0 if q[3] < 0 else 1.0
    return (sign * q[0] / n, sign * q[1] / n, sign * q[2] / n, sign * q[3] / n)


def transform(parent: str, child: str, matrix: np.ndarray) -> Transform:
    t = matrix[:3, 3]
    return Transform(parent, child, (float(t[0]), float(t[1]), float(t[2])), quaternion(matrix[:3, :3]))


def urdf_floats(text: str | None, default: Sequence[float]) -> list[float]:
    return [float(v) for v in text.split()] if text else list(default)


def origin_matrix(element: ET.Element) -> np.ndarray:
    """The (4, 4) transform of an element's URDF ``<origin xyz rpy>`` (identity where absent)."""
    origin = element.find("origin")
    xyz = urdf_floats(origin.get("xyz") if origin is not None else None, (0, 0, 0))
    rpy = urdf_floats(origin.get("rpy") if origin is not None else None, (0, 0, 0))
    m = np.eye(4)
    m[:3, :3], m[:3, 3] = rpy_matrix(*rpy), xyz
    return m


def parse_joints(urdf: str) -> list[UrdfJoint]:
    """Every joint of the URDF text, in document order (AlphaMatrixError if it is not a URDF)."""
    try:
        root = ET.fromstring(urdf)
    except ET.ParseError as err:
        raise AlphaMatrixError(f"robot_description: not XML ({err})") from None
    if root.tag != "robot":
        raise AlphaMatrixError(f"robot_description: root element <{root.tag}>, expected <robot>")
    joints = []
    for j in root.findall("joint"):
        parent, child = j.find("parent"), j.find("child")
        if parent is None or child is None:
            raise AlphaMatrixError(f"robot_description: joint {j.get('name')!r} has no parent or child link")
        m = origin_matrix(j)
        axis_el = j.find("axis")
        axis = np.array(urdf_floats(axis_el.get("xyz") if axis_el is not None else None, (1, 0, 0)))
        axis = axis / (np.linalg.norm(axis) or 1.0)
        joints.append(
            UrdfJoint(j.get("name", ""), j.get("type", ""), parent.get("link", ""), child.get("link", ""), m, axis)
        )
    return joints


def link_names(urdf: str) -> list[str]:
    """Every link the URDF names, in document order."""
    return [link.get("name", "") for link in ET.fromstring(urdf).findall("link")]


class RobotFrames:
    """The transforms of one URDF: the fixed ones once, the moving ones from joint positions."""

    def __init__(self, urdf: str) -> None:
        self.joints = parse_joints(urdf)
        self.moving = {j.name: j for j in self.joints if j.kind in ("revolute", "continuous", "prismatic")}
        self.root = next(iter({j.parent for j in self.joints} - {j.child for j in self.joints}), "")

    def static(self) -> list[Transform]:
        """The fixed joints' transforms (what /tf_static carries of the robot)."""
        return [transform(j.parent, j.child, j.origin) for j in self.joints if j.kind == "fixed"]

    def moving_transforms(self, names: Sequence[str], positions: Sequence[float]) -> list[Transform]:
        """The moving joints' transforms at ``positions`` (by ``names``; joints not named stay at 0)."""
        q = dict(zip(names, positions, strict=False))
        out = []
        for name, j in self.moving.items():
            value = float(q.get(name, 0.0))
            motion = np.eye(4)
            if j.kind == "prismatic":
                motion[:3, 3] = j.axis * value
            else:
                motion[:3, :3] = axis_angle_matrix(j.axis, value)
            out.append(transform(j.parent, j.child, j.origin @ motion))
        return out


def person_frame(x: float, y: float, heading: float, frame: str = "person") -> Transform:
    """A person standing at (x, y) on the floor, facing ``heading`` (rad about z)."""
    return Transform(WORLD_FRAME, frame, (x, y, 0.0), (0.0, 0.0, math.sin(heading / 2), math.cos(heading / 2)))


def world_frames(config: WorldConfig, root_link: str, camera: CellCamera | None = None) -> list[Transform]:
    """The world's fixed frames: the robot's root on the table (the base pose of the simulated
    cell), the table (its top's centre), and the suite's camera optical frame where it has one."""
    tx, ty, _ = config.table_position
    out = [
        Transform(WORLD_FRAME, root_link, tuple(float(v) for v in config.panda_base), (0.0, 0.0, 0.0, 1.0)),  # type: ignore[arg-type]
        Transform(WORLD_FRAME, TABLE_FRAME, (float(tx), float(ty), float(config.table_top_z)), (0.0, 0.0, 0.0, 1.0)),
    ]
    if camera is not None:
        out.append(
            transform(WORLD_FRAME, camera.optical_frame, world_from_camera(camera.eye, camera.target, camera.up))
        )
    return out
