"""The PyBullet world: Franka Panda with real fingers, a table and coloured blocks (or a suite's objects).

Pure simulation, no ROS. Every physical and scene constant lives in ``WorldConfig``; the
numbers are those of a measured working grasp.
Grasping is physical only: finger friction and force, fingers coupled by a gear constraint,
never a constraint to the block.

Speed: arm IK is solved every ``ik_every`` steps (damped least squares on PyBullet's
Jacobian in a separate kinematics-only client, warm-started from the previous knot) and the
joint targets are interpolated linearly in between. Per-step IK would cap the loop near
14x real time.
"""

from __future__ import annotations

import math
from typing import Self

import numpy as np
import pybullet as p
import pybullet_data

from alpha_matrix.core.sim.bodies import BodySpec, spawn_body
from alpha_matrix.core.sim.errors import WorldError
from alpha_matrix.core.sim.kinematics import ARM_JOINTS, FINGER_JOINTS, GRASP_LINK, STATE_JOINTS, Kinematics, Move
from alpha_matrix.core.sim.sample import StepSample, read_sample
from alpha_matrix.core.sim.scene import load_static, spawn_blocks
from alpha_matrix.core.sim.world_config import Quat, Vec3, WorldConfig


class World:
    """One dynamic PyBullet world in its own DIRECT client, stepped one physics step at a time."""

    def __init__(self, config: WorldConfig | None = None) -> None:
        self.config = cfg = config or WorldConfig()
        if len(cfg.block_rgba) != len(cfg.block_names):
            raise WorldError("block_rgba and block_names differ in length")
        self._cid = p.connect(p.DIRECT)
        self._kin = Kinematics(cfg)
        self._reach_cache: dict[tuple[float, ...], float] = {}
        p.setAdditionalSearchPath(pybullet_data.getDataPath(), physicsClientId=self._cid)
        self._grasp_orn = np.array(p.getQuaternionFromEuler(cfg.grasp_euler))
        self.joint_names: list[str] = []
        self.body_names: dict[int, str] = {}
        self._blocks: dict[str, int] = {}
        self._objects: tuple[BodySpec, ...] | None = None  # set_objects: spawned instead of the blocks
        self._was_reset = False
        self._step_count = 0
        self._left = 0
        self._move: Move | None = None
        self._j = 0
        self._stopped = False
        self._q_cmd = np.array(cfg.ready_pose, dtype=float)
        self._pos_cmd = np.zeros(3)
        self._orn_cmd = self._grasp_orn.copy()
        self._finger_target = cfg.ready_width / 2.0
        self._finger_force = cfg.finger_force
        self._load_static()

    # ----------------------------------------------------------------- scene
    def _c(self) -> dict:
        return {"physicsClientId": self._cid}

    def _load_static(self) -> None:
        """Load plane, table, Panda and the shared block shapes, once per World."""
        s = load_static(self.config, self._cid)
        self._box_shape, self._box_visuals = s.box_shape, s.box_visuals
        self._plane, self._table, self._panda = s.plane, s.table, s.panda
        self.joint_names = s.joint_names
        self.body_names = {s.plane: "plane", s.table: "table", s.panda: "panda"}

    def set_objects(self, objects: tuple[BodySpec, ...] | None) -> None:
        """The objects every later reset spawns, at their own places, instead of the seeded blocks
        (a suite's scene, simulation only); None = the blocks again."""
        names = [o.name for o in objects or ()]
        if len(set(names)) != len(names) or {"plane", "table", "panda"} & set(names):
            raise WorldError(f"object names must be unique and not plane, table or panda: {names}")
        self._objects = None if objects is None else tuple(objects)

    def reset(self, seed: int) -> None:
        """Rebuild the scene from ``seed`` (or the objects of ``set_objects``); history-independent,
        does not step.

        Static bodies stay loaded (reloading the meshes costs ~40 ms); blocks are removed and
        re-created so no contact manifold survives an episode.
        """
        cfg, c = self.config, self._c()
        for bid in self._blocks.values():
            p.removeBody(bid, **c)
        self._blocks = {}
        panda = self._panda
        q0 = list(cfg.ready_pose) + [cfg.ready_width / 2.0] * 2
        p.resetJointStatesMultiDof(panda, list(STATE_JOINTS), [[v] for v in q0], [[0.0]] * 9, **c)
        if self._objects is None:
            rng = np.random.default_rng(seed)
            self._blocks.update(spawn_blocks(cfg, self._cid, rng, self._box_shape, self._box_visuals))
        else:
            self._blocks.update({o.name: spawn_body(o, self._cid, cfg.table_top_z) for o in self._objects})
        self.body_names = {self._plane: "plane", self._table: "table", self._panda: "panda"}
        self.body_names.update({bid: name for name, bid in self._blocks.items()})
        self._was_reset = True
        self._step_count = 0
        self._left = 0
        self._move = None
        self._stopped = False
        self._q_cmd = np.array(cfg.ready_pose, dtype=float)
        self._pos_cmd, self._orn_cmd = self._kin.fk(self._q_cmd)
        self._finger_target = cfg.ready_width / 2.0
        self._finger_force = cfg.finger_force
        self._apply_arm(self._q_cmd)
        self._apply_fingers()

    # -------------------------------------------------------------- control
    def _apply_arm(self, q: np.ndarray) -> None:
        p.setJointMotorControlArray(
            self._panda,
            list(ARM_JOINTS),
            p.POSITION_CONTROL,
            targetPositions=q.tolist(),
            forces=list(self.config.arm_forces),
            **self._c(),
        )

    def _apply_fingers(self) -> None:
        for j in FINGER_JOINTS:
            p.setJointMotorControl2(
                self._panda,
                j,
                p.POSITION_CONTROL,
                targetPosition=self._finger_target,
                force=self._finger_force,
                maxVelocity=self.config.finger_max_velocity,
                **self._c(),
            )

    def _check_start(self, steps: int, allowed_when_stopped: bool = False) -> None:
        if not self._was_reset:
            raise WorldError("call reset(seed) first")
        if self._stopped and not allowed_when_stopped:
            raise WorldError("protective stop active; call resume() first")
        if steps < 1:
            raise WorldError(f"steps must be >= 1, got {steps}")

    def _settle_move(self) -> None:
        """Fold a (possibly preempted) move into the commanded pose the next command starts from."""
        mv = self._move
        if mv is not None:
            self._pos_cmd, self._orn_cmd = mv.pose(min(self._j, mv.moving))
            self._move = None

    def start_move(self, target: Vec3, steps: int) -> None:
        """Min-jerk segment of the grasp frame (gripper down) to ``target`` over ``steps``.

        The first ``move_fraction`` of the steps move, the rest hold. Path rule: a move that
        descends while travelling at least ``xy_first_min`` horizontally moves xy first and
        starts z after ``descend_delay`` of the moving phase, so a carried block clears its
        neighbours; any other move is a straight line.
        """
        self._check_start(steps)
        cfg = self.config
        tgt = np.asarray(target, dtype=float)
        if tgt.shape != (3,) or not np.all(np.isfinite(tgt)):
            raise WorldError("move target must be 3 finite numbers")
        self._settle_move()
        start = self._pos_cmd.copy()
        d = tgt - start
        xy_first = d[2] < 0.0 and math.hypot(d[0], d[1]) >= cfg.xy_first_min
        moving = max(1, min(steps, round(cfg.move_fraction * steps)))
        mv = Move(
            start,
            tgt,
            tuple(self._orn_cmd),
            tuple(self._grasp_orn),
            moving,
            cfg.descend_delay if xy_first else 0.0,
        )
        mv.q1 = self._q_cmd.copy()
        self._move, self._j, self._left = mv, 0, steps

    def start_gripper(self, width: float, force: float, steps: int) -> None:
        """Fingers to total opening ``width`` with at most ``force`` N per finger."""
        self._check_start(steps)
        if not (math.isfinite(width) and math.isfinite(force) and force >= 0.0):
            raise WorldError("gripper width and force must be finite, force >= 0")
        self._settle_move()
        self._finger_target = min(max(width, 0.0), self.config.max_width) / 2.0
        self._finger_force = float(force)
        self._apply_fingers()
        self._left = steps

    def command_joints(self, q: np.ndarray, qd: np.ndarray | None = None) -> None:
        """Arm joint position targets (and velocity feed-forward) now, as a joint-level controller
        commands them (core/standard_arm): ends any command of the start_* kind; the fingers keep theirs.

        PyBullet's position motor with the Panda's torques (``arm_forces``), as ``start_move`` uses;
        with ``qd`` its damping tracks a moving target instead of dragging behind it.
        """
        self._check_start(1)
        q = np.asarray(q, dtype=float)
        if q.shape != (len(ARM_JOINTS),) or not np.all(np.isfinite(q)):
            raise WorldError(f"joint targets must be {len(ARM_JOINTS)} finite numbers")
        self._move, self._left = None, 0
        self._q_cmd = q.copy()
        self._pos_cmd, self._orn_cmd = self._kin.fk(self._q_cmd)  # a later start_move starts here
        if qd is None:
            self._apply_arm(self._q_cmd)
            return
        p.setJointMotorControlArray(
            self._panda,
            list(ARM_JOINTS),
            p.POSITION_CONTROL,
            targetPositions=self._q_cmd.tolist(),
            targetVelocities=[float(v) for v in qd],
            forces=list(self.config.arm_forces),
            **self._c(),
        )

    def command_fingers(self, position: float, force: float) -> None:
        """Each finger to joint position ``position`` (0 .. max_width / 2, m) with at most ``force`` N,
        now; unlike ``start_gripper`` (a total opening over a number of steps) it starts no command."""
        self._check_start(1)
        if not (math.isfinite(position) and math.isfinite(force) and force >= 0.0):
            raise WorldError("finger position and force must be finite, force >= 0")
        self._finger_target = min(max(position, 0.0), self.config.max_width / 2.0)
        self._finger_force = float(force)
        self._apply_fingers()

    def start_hold(self, steps: int) -> None:
        """Hold the current targets for ``steps`` (settling; also lets time pass during a stop)."""
        self._check_start(steps, allowed_when_stopped=True)
        self._settle_move()
        self._left = steps

    def protective_stop(self) -> None:
        """Cancel the active command; the arm holds its measured joint positions.

        The fingers keep their target and force: a stop must not drop a held block.
        """
        c = self._c()
        self._move = None
        self._left = 0
        self._stopped = True
        q = np.array([s[0] for s in p.getJointStates(self._panda, list(ARM_JOINTS), **c)])
        self._q_cmd = q
        self._pos_cmd, self._orn_cmd = self._kin.fk(q)
        self._apply_arm(q)

    def resume(self) -> None:
        self._stopped = False

    @property
    def stopped(self) -> bool:
        return self._stopped

    @property
    def client_id(self) -> int:
        """The PyBullet client, for scene add-ons (camera, human) that render into this world."""
        return self._cid

    def set_finger_force(self, force: float) -> None:
        """Change the fingers' max force now (grip-slip fault); the target is unchanged."""
        self._finger_force = float(force)
        self._apply_fingers()

    @property
    def busy(self) -> bool:
        return self._left > 0

    @property
    def command_steps_left(self) -> int:
        return self._left

    @property
    def step_count(self) -> int:
        return self._step_count

    def _advance_move(self, mv: Move) -> None:
        self._j += 1
        j = self._j
        if j <= mv.moving:
            if j > mv.k1:
                mv.k0, mv.q0 = mv.k1, mv.q1
                mv.k1 = min(mv.k0 + self.config.ik_every, mv.moving)
                pos, orn = mv.pose(mv.k1)
                mv.q1 = self._kin.solve(pos, orn, mv.q0, self.config.ik_iterations)
            a = (j - mv.k0) / (mv.k1 - mv.k0)
            self._q_cmd = mv.q0 + (mv.q1 - mv.q0) * a
            self._apply_arm(self._q_cmd)

    def step(self) -> StepSample:
        """One physics step under the active command (or holding when idle)."""
        if not self._was_reset:
            raise WorldError("call reset(seed) first")
        c = self._c()
        if self._left > 0:
            if self._move is not None:
                self._advance_move(self._move)
            self._left -= 1
            if self._left == 0:
                self._settle_move()
        p.stepSimulation(**c)
        self._step_count += 1
        return read_sample(self._cid, self._panda, self._step_count)

    # ---------------------------------------------------------------- queries
    def object_poses(self) -> dict[str, tuple[Vec3, Quat]]:
        c = self._c()
        out: dict[str, tuple[Vec3, Quat]] = {}
        for name, bid in self._blocks.items():
            pos, orn = p.getBasePositionAndOrientation(bid, **c)
            out[name] = (tuple(pos), tuple(orn))
        return out

    def displace(self, name: str, dx: float, dy: float) -> None:
        """Move a block horizontally, at rest (a scripted disturbance, like a person nudging it)."""
        if name not in self._blocks:
            raise WorldError(f"no object named {name!r}")
        c = self._c()
        bid = self._blocks[name]
        pos, orn = p.getBasePositionAndOrientation(bid, **c)
        p.resetBasePositionAndOrientation(bid, (pos[0] + dx, pos[1] + dy, pos[2]), orn, **c)
        p.resetBaseVelocity(bid, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), **c)

    def grasp_position(self) -> Vec3:
        s = p.getLinkState(self._panda, GRASP_LINK, computeForwardKinematics=True, **self._c())
        return tuple(s[4])

    def reach_error(self, target: Vec3) -> float:
        """Metres between ``target`` and the closest grasp-frame position IK reaches, gripper down.

        Solved in the kinematics-only client by continuation: from the ready pose toward the
        target in ``reach_segments`` warm-started hops (a single cold solve gets stuck in
        joint limits for far targets). Depends on the target alone, so it is cached, and the
        dynamic world is untouched.
        """
        key = tuple(float(c) for c in target)
        if len(key) != 3 or not all(math.isfinite(c) for c in key):
            return math.inf
        if key not in self._reach_cache:
            if len(self._reach_cache) >= 256:
                self._reach_cache.clear()
            tgt = np.asarray(key)
            q = self._kin.rest
            start = self._kin.fk(q)[0]
            n = self.config.reach_segments
            per_hop = max(1, self.config.reach_iterations // n)
            for k in range(1, n + 1):
                q = self._kin.solve(start + (tgt - start) * (k / n), self._grasp_orn, q, per_hop)
            q = self._kin.solve(tgt, self._grasp_orn, q, per_hop)
            self._reach_cache[key] = math.dist(self._kin.fk(q)[0].tolist(), key)  # not np.linalg.norm: BLAS, per CPU
        return self._reach_cache[key]

    def close(self) -> None:
        self._kin.close()
        if p.isConnected(self._cid):
            p.disconnect(self._cid)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
