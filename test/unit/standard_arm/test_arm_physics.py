"""The PyBullet side: joint targets tracked, the ideal F/T sensor from contacts (a hand pressed on
the table pushes up; a held block's squeeze cancels), a grasp stalls, the URDF it serves."""

from __future__ import annotations

import numpy as np
import pybullet as p
import pytest

from alpha_matrix.core.sim.errors import WorldError
from alpha_matrix.core.sim.kinematics import Kinematics
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.standard_arm.arm import ARM_JOINT_NAMES, JOINT_NAMES, SimArm, panda_urdf_text
from alpha_matrix.core.standard_arm.gripper import GripperController, GripperEnd, GripperSettings
from alpha_matrix.core.standard_arm.jtc import GoalEnd, TrajectoryController
from alpha_matrix.core.standard_arm.tolerances import default_tolerances
from alpha_matrix.core.standard_arm.trajectory import Point, State, Trajectory
from alpha_matrix.core.standard_arm.wrench import Contact, contact_force, rotation, wrench_in_frame

CFG = WorldConfig()
DOWN = np.array(p.getQuaternionFromEuler(CFG.grasp_euler))


@pytest.fixture(scope="module")
def arm():
    a = SimArm(seed=1)
    yield a
    a.close()


@pytest.fixture(scope="module")
def kin():
    k = Kinematics(CFG)
    yield k
    k.close()


class Cell:
    """The arm under both controllers, stepped as the node steps it (one cycle a physics step)."""

    def __init__(self, arm: SimArm, seed: int = 1) -> None:
        arm.reset(seed)
        self.arm, self.t = arm, 0.0
        self.jtc = TrajectoryController(ARM_JOINT_NAMES, arm.ready_pose, default_tolerances(7))
        self.grip = GripperController(GripperSettings(), arm.open_position)
        self.q = np.array(arm.ready_pose)
        self.ended: list[GoalEnd | GripperEnd] = []

    def actual(self) -> State:
        js = self.arm.joint_states()
        return State(js.positions[:7], js.velocities[:7], np.zeros(7))

    def run(self, seconds: float) -> None:
        dt = self.arm.config.timestep
        for _ in range(round(seconds / dt)):
            js = self.arm.joint_states()
            u = self.jtc.update(self.t, State(js.positions[:7], js.velocities[:7], np.zeros(7)), dt)
            self.ended += u.ended
            self.ended += self.grip.update(
                self.t, float(js.positions[7]), float(js.velocities[7]), float(js.efforts[7])
            )
            self.arm.command_arm(u.positions, u.velocities)
            self.arm.command_fingers(self.grip.command.position, self.grip.command.force)
            self.arm.step()
            self.t += dt

    def move_to(self, kin: Kinematics, xyz: tuple[float, float, float], seconds: float, goal: str = "g") -> None:
        self.q = kin.solve(np.array(xyz), DOWN, self.q, 200)
        traj = Trajectory(ARM_JOINT_NAMES, (Point(tuple(self.q), seconds),))
        self.jtc.accept_goal(goal, traj, self.jtc.defaults, self.actual())
        self.run(seconds + 0.25)

    def world_force(self) -> np.ndarray:
        return rotation(self.arm.sensor_pose()[1]) @ self.arm.wrench().force


def test_wrench_math() -> None:
    squeeze = [Contact((0.0, 0.02, 0.0), (0.0, -5.0, 0.0)), Contact((0.0, -0.02, 0.0), (0.0, 5.0, 0.0))]
    w = wrench_in_frame(squeeze, (0, 0, 0), (0, 0, 0, 1))
    assert np.allclose(w.force, 0.0) and np.allclose(w.torque, 0.0)
    push = [Contact((0.1, 0.0, 0.0), (0.0, 0.0, 10.0))]  # up, 0.1 m along x from the sensor
    w = wrench_in_frame(push, (0, 0, 0), (0, 0, 0, 1))
    assert np.allclose(w.force, (0, 0, 10)) and np.allclose(w.torque, (0, -1.0, 0))
    w = wrench_in_frame(push, (0, 0, 0), tuple(DOWN))  # the hand pointing down: its z is the world's -z
    assert np.allclose(w.force, (0, 0, -10))


def test_contact_force_convention_matches_the_physics() -> None:
    """A block pushed sideways (below its friction limit) on the table: the contact forces on it
    read as the module reads them balance its weight and the push."""
    with World(CFG) as w:
        w.reset(1)
        block = next(i for i, n in w.body_names.items() if n == "red")
        c = {"physicsClientId": w.client_id}
        for _ in range(120):
            pos = p.getBasePositionAndOrientation(block, **c)[0]
            p.applyExternalForce(block, -1, [0.3, 0.0, 0.0], pos, p.WORLD_FRAME, **c)
            w.step()
        total = np.zeros(3)
        for cp in p.getContactPoints(**c):
            f = contact_force(cp[7], cp[9], cp[10], cp[11], cp[12], cp[13])
            total += f if cp[1] == block else -f if cp[2] == block else 0.0
        assert total == pytest.approx([-0.3, 0.0, CFG.cube_mass * 9.81], abs=1e-3)


def test_joint_targets_are_tracked(arm: SimArm) -> None:
    cell = Cell(arm)
    target = np.array(arm.ready_pose) + np.array([0.4, 0.2, -0.2, 0.3, 0.2, -0.2, 0.4])
    cell.jtc.accept_goal(
        "g", Trajectory(ARM_JOINT_NAMES, (Point(tuple(target), 1.0),)), cell.jtc.defaults, cell.actual()
    )
    cell.run(1.5)
    assert [e.status for e in cell.ended] == ["succeeded"]
    js = arm.joint_states()
    assert np.abs(js.positions[:7] - target).max() < 1e-3
    assert np.allclose(arm.wrench().force, 0.0)  # touching nothing
    with pytest.raises(WorldError):
        arm.command_arm(np.zeros(6))


def test_hand_pressed_on_the_table_pushes_up(arm: SimArm, kin: Kinematics) -> None:
    cell = Cell(arm)
    cell.move_to(kin, (0.45, 0.35, 0.75), 1.0)
    assert np.allclose(arm.wrench().force, 0.0)
    cell.move_to(kin, (0.45, 0.35, CFG.table_top_z - 0.08), 1.0)  # 8 cm into the table
    f = cell.world_force()
    assert f[2] > 60.0, f  # the table pushes the hand up, hard: the arm's torques against it
    assert np.abs(arm.joint_states().efforts[:7]).max() > 0.9 * min(CFG.arm_forces)
    assert cell.ended[-1].status == "succeeded"  # default tolerances: stopped = done (upstream)


def test_a_held_block_squeeze_cancels_and_its_weight_shows(arm: SimArm, kin: Kinematics) -> None:
    cell = Cell(arm)
    bx, by, bz = arm.object_poses()["red"][0]
    cell.move_to(kin, (bx, by, bz + 0.15), 1.0)
    cell.move_to(kin, (bx, by, bz), 0.8)
    cell.grip.accept_goal("close", 0.0, 0.0, cell.t)
    cell.run(1.6)
    end = cell.ended[-1]
    assert isinstance(end, GripperEnd) and end.status == "aborted" and end.stalled and not end.reached_goal
    assert end.position == pytest.approx(CFG.cube_half_extent, abs=2e-3)  # stopped on the 5 cm block
    assert end.effort == pytest.approx(20.0, rel=0.05)
    cell.move_to(kin, (bx, by, bz + 0.15), 0.8)
    assert arm.object_poses()["red"][0][2] > bz + 0.1  # carried
    # 20 N per finger squeezes the block; the sensor sees only its weight
    assert cell.world_force() == pytest.approx([0.0, 0.0, -CFG.cube_mass * 9.81], abs=0.02)


def test_the_urdf_it_serves() -> None:
    pin = pytest.importorskip("pinocchio")
    model = pin.buildModelFromXML(panda_urdf_text())
    assert model.nq == 9
    assert [n for n in model.names][1:] == list(JOINT_NAMES)
