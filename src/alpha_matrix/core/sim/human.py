"""A walking human in the PyBullet scene, for the proximity detector to see and be scored against.

Why a puppet, not the URDF body itself: a jointed multibody in the dynamic world takes part in
the constraint solver even with collisions masked off, and measurably changes the robot's
physics (~4e-5 m on final block poses). So the ``humanoid/humanoid.urdf`` body lives in a
kinematics-only client of its own (never stepped) where its joints are posed and its forward
kinematics and ground-truth distance are computed; the world client gets one static,
collision-free, visual-only body per link, moved to the link poses. Static visual bodies leave
the robot's physics byte-identical, so adding a human never changes an episode's outcome.

Position and limbs are a pure function of the step index (``HumanPath``), so a run is
deterministic. Ground truth (``ground_truth_distance``) is for scoring only: the detector
never sees it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import pybullet as p
import pybullet_data

from alpha_matrix.core.quiet import native_output

if TYPE_CHECKING:
    from alpha_matrix.core.sim.world import World

Posture = Literal["upright", "crouching", "arm_raised", "reaching"]
PathKind = Literal["approach", "pass"]
POSTURES: tuple[str, ...] = ("upright", "crouching", "arm_raised", "reaching")

# Joint indices of humanoid/humanoid.urdf (model facts). Spherical joints take quaternions.
_CHEST, _NECK, _R_SHOULDER, _R_ELBOW, _L_SHOULDER, _L_ELBOW = 1, 2, 3, 4, 6, 7
_R_HIP, _R_KNEE, _R_ANKLE, _L_HIP, _L_KNEE, _L_ANKLE = 9, 10, 11, 12, 13, 14
_SPHERICAL = (_CHEST, _NECK, _R_SHOULDER, _L_SHOULDER, _R_HIP, _R_ANKLE, _L_HIP, _L_ANKLE)
_REVOLUTE = (_R_ELBOW, _L_ELBOW, _R_KNEE, _L_KNEE)


@dataclass(frozen=True)
class HumanPath:
    """Where the person walks, relative to the robot base axis.

    ``approach``: stand ``start_delay_s`` at ``start_distance`` on the ray at ``angle_deg``
    (0 = +x, counter-clockwise), walk toward the base at ``speed`` until ``stop_distance``,
    dwell ``dwell_s``, then (if ``retreat``) walk back out to ``start_distance`` and stay.
    ``pass``: walk a straight line perpendicular to that ray, closest to the base
    (``stop_distance``) halfway, from and to points ``start_distance`` from the base.
    Distances are of the body's centre line; ground truth measures the nearest body point.
    """

    kind: PathKind = "approach"
    angle_deg: float = 180.0
    start_distance: float = 4.5
    stop_distance: float = 1.0
    speed: float = 1.0
    dwell_s: float = 1.0
    retreat: bool = True
    start_delay_s: float = 0.5
    posture: Posture = "upright"

    @property
    def walk_s(self) -> float:
        """Duration of one walking leg (in, out or the whole pass)."""
        if self.kind == "pass":
            half = math.sqrt(max(self.start_distance**2 - self.stop_distance**2, 0.0))
            return 2.0 * half / self.speed
        return (self.start_distance - self.stop_distance) / self.speed

    @property
    def duration_s(self) -> float:
        """Time until the person is back at rest for good (end of retreat or pass)."""
        if self.kind == "pass":
            return self.start_delay_s + self.walk_s
        return self.start_delay_s + self.walk_s + self.dwell_s + (self.walk_s if self.retreat else 0.0)


_STRIDE_M = 1.3  # metres per full gait cycle (two steps)


@dataclass(frozen=True)
class PathState:
    """The person at one instant: horizontal position, heading, and gait phase (None = standing)."""

    x: float
    y: float
    heading: float  # rad, direction the body faces
    gait_phase: float | None


def path_state(path: HumanPath, t: float, base_xy: tuple[float, float]) -> PathState:
    """Pure: the person's position at sim time ``t`` (s) on ``path`` around ``base_xy``."""
    a = math.radians(path.angle_deg)
    er = np.array([math.cos(a), math.sin(a)])
    walked = min(max(t - path.start_delay_s, 0.0), path.walk_s)
    moving = path.start_delay_s < t < path.start_delay_s + path.walk_s
    if path.kind == "pass":
        half = path.walk_s * path.speed / 2.0
        et = np.array([-math.sin(a), math.cos(a)])
        xy = path.stop_distance * er + (-half + walked * path.speed) * et
        heading = math.atan2(et[1], et[0])
        dist = path.speed * (t - path.start_delay_s)
    else:
        t_back = path.start_delay_s + path.walk_s + path.dwell_s
        r = path.start_distance - walked * path.speed
        heading = a + math.pi
        dist = path.speed * (t - path.start_delay_s)
        if path.retreat and t > t_back:
            back = min(t - t_back, path.walk_s)
            r = path.stop_distance + back * path.speed
            heading = a
            moving = t < t_back + path.walk_s
            dist = path.speed * (t - t_back)
        xy = r * er
    phase = (2.0 * math.pi * dist / _STRIDE_M) % (2.0 * math.pi) if moving else None
    return PathState(base_xy[0] + float(xy[0]), base_xy[1] + float(xy[1]), heading, phase)


@dataclass(frozen=True)
class HumanConfig:
    """Model and look of the person (measured scaling: 0.2625 makes the humanoid 1.70 m)."""

    urdf: str = "humanoid/humanoid.urdf"
    scaling: float = 0.2625
    base_z: float = 0.93  # pelvis height when upright
    rgba: tuple[float, float, float, float] = (0.2, 0.35, 0.75, 1.0)
    hip_swing: float = 0.45  # rad, gait amplitude
    knee_bend: float = 0.7  # rad, peak knee flexion in swing
    arm_swing: float = 0.35  # rad
    probe_radius: float = 0.01  # m, ground-truth cylinder at the base axis
    probe_height: float = 2.5  # m


def _qz(angle: float) -> tuple[float, ...]:
    """Rotation about the humanoid's local z axis (its left-right axis: + swings a limb forward)."""
    return tuple(p.getQuaternionFromAxisAngle([0.0, 0.0, 1.0], angle))


def joint_targets(posture: str, gait_phase: float | None, cfg: HumanConfig) -> dict[int, float]:
    """Pure: joint angles (about the lateral axis) for a posture, with walking swing if moving."""
    s = math.sin(gait_phase) if gait_phase is not None else 0.0
    c = math.cos(gait_phase) if gait_phase is not None else 0.0
    hip = cfg.hip_swing * s
    q = {
        _R_HIP: hip,
        _L_HIP: -hip,
        _R_KNEE: -cfg.knee_bend * max(0.0, c),
        _L_KNEE: -cfg.knee_bend * max(0.0, -c),
        _R_SHOULDER: -cfg.arm_swing * s,
        _L_SHOULDER: cfg.arm_swing * s,
        _R_ELBOW: 0.3,
        _L_ELBOW: 0.3,
        _CHEST: 0.0,
        _NECK: 0.0,
    }
    if posture == "crouching":
        q.update({_R_HIP: 1.2 + 0.3 * hip, _L_HIP: 1.2 - 0.3 * hip, _R_KNEE: -2.0, _L_KNEE: -2.0, _CHEST: -0.5})
        q.update({_R_SHOULDER: 0.6, _L_SHOULDER: 0.6})
    elif posture == "arm_raised":
        q.update({_R_SHOULDER: math.pi * 0.95, _R_ELBOW: 0.0})
    elif posture == "reaching":
        q.update({_R_SHOULDER: math.pi / 2.0, _R_ELBOW: 0.0})
    q[_R_ANKLE] = -(q[_R_HIP] + q[_R_KNEE])  # keep the feet flat
    q[_L_ANKLE] = -(q[_L_HIP] + q[_L_KNEE])
    return q


class Human:
    """A person walking ``path`` in ``world``'s scene. Call ``set_step`` before rendering."""

    def __init__(self, world: World, path: HumanPath, config: HumanConfig | None = None) -> None:
        self.path = path
        self.config = cfg = config or HumanConfig()
        base = world.config.panda_base
        self.base_xy = (float(base[0]), float(base[1]))
        self._world_cid = world.client_id
        self._kin = p.connect(p.DIRECT)
        k = {"physicsClientId": self._kin}
        p.setAdditionalSearchPath(pybullet_data.getDataPath(), **k)
        with native_output(f"pybullet loading {cfg.urdf}"):  # its b3Warnings (no axis element) to the log
            self._body = p.loadURDF(cfg.urdf, [0.0, 0.0, cfg.base_z], useFixedBase=True, globalScaling=cfg.scaling, **k)
        cyl = p.createCollisionShape(p.GEOM_CYLINDER, radius=cfg.probe_radius, height=cfg.probe_height, **k)
        self._probe = p.createMultiBody(0.0, cyl, -1, [*self.base_xy, cfg.probe_height / 2.0], **k)
        self._timestep = world.config.timestep
        self._puppets = self._make_puppets()
        self.step = -1
        self.set_step(0)

    def _make_puppets(self) -> list[tuple[int, int]]:
        """One static visual-only body per visual shape of the URDF, in the world client."""
        w = {"physicsClientId": self._world_cid}
        out = []
        for v in p.getVisualShapeData(self._body, physicsClientId=self._kin):
            link, geom, dims, pos, orn = v[1], v[2], v[3], v[5], v[6]
            kw = {"visualFramePosition": pos, "visualFrameOrientation": orn, "rgbaColor": self.config.rgba}
            if geom == p.GEOM_SPHERE:
                vis = p.createVisualShape(geom, radius=dims[0], **kw, **w)
            elif geom == p.GEOM_CAPSULE:
                vis = p.createVisualShape(geom, radius=dims[1], length=dims[0], **kw, **w)
            elif geom == p.GEOM_BOX:
                vis = p.createVisualShape(geom, halfExtents=[d / 2.0 for d in dims], **kw, **w)
            else:  # pragma: no cover - the humanoid has no other shapes
                raise ValueError(f"unsupported visual geometry {geom}")
            out.append((link, p.createMultiBody(0.0, -1, vis, [0.0, 0.0, -50.0], **w)))
        return out

    def set_step(self, step: int) -> PathState:
        """Pose the person (both clients) at physics step ``step``; pure function of ``step``."""
        st = self.pose_kinematics(step)
        k = {"physicsClientId": self._kin}
        links = p.getLinkStates(self._body, [link for link, _ in self._puppets], computeForwardKinematics=True, **k)
        for (_, body), ls in zip(self._puppets, links, strict=True):
            p.resetBasePositionAndOrientation(body, ls[4], ls[5], physicsClientId=self._world_cid)
        return st

    def pose_kinematics(self, step: int) -> PathState:
        """Pose only the kinematic model (for ground truth between frames); the image is unchanged."""
        st = path_state(self.path, step * self._timestep, self.base_xy)
        k = {"physicsClientId": self._kin}
        q = joint_targets(self.path.posture, st.gait_phase, self.config)
        for j in _SPHERICAL:
            p.resetJointStateMultiDof(self._body, j, targetValue=list(_qz(q.get(j, 0.0))), **k)
        for j in _REVOLUTE:
            p.resetJointState(self._body, j, q[j], **k)
        orn = p.getQuaternionFromEuler([math.pi / 2.0, 0.0, st.heading])
        p.resetBasePositionAndOrientation(self._body, [st.x, st.y, self.config.base_z], orn, **k)
        lowest = min(p.getAABB(self._body, link, **k)[0][2] for link in range(p.getNumJoints(self._body, **k)))
        z = self.config.base_z - lowest
        p.resetBasePositionAndOrientation(self._body, [st.x, st.y, z], orn, **k)  # feet on the floor
        self.step = step
        self.state = st
        return st

    def ground_truth_distance(self) -> float:
        """Horizontal distance (m) from the robot base axis to the nearest body point, at the
        last posed step. Scoring only."""
        pts = p.getClosestPoints(self._body, self._probe, 100.0, physicsClientId=self._kin)
        return min(pt[8] for pt in pts) + self.config.probe_radius

    def height(self) -> float:
        """Top of the body above the floor (m), from the kinematic model."""
        k = {"physicsClientId": self._kin}
        return max(p.getAABB(self._body, link, **k)[1][2] for link in range(p.getNumJoints(self._body, **k)))

    def close(self) -> None:
        """Remove the puppet from the world and drop the kinematic client."""
        if p.isConnected(self._world_cid):
            for _, body in self._puppets:
                p.removeBody(body, physicsClientId=self._world_cid)
        self._puppets = []
        if p.isConnected(self._kin):
            p.disconnect(self._kin)
