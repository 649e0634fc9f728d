"""The arm adapter's parameters (the driver contract on a ros2_control arm)."""

from __future__ import annotations

import math

from pydantic import Field, model_validator

from alpha_matrix.core.config import (
    NodeParams,
)

_PANDA_ARM = [f"panda_joint{i}" for i in range(1, 8)]


class ArmAdapterParams(NodeParams):
    """The driver contract on a ros2_control arm (nodes/arm_adapter.py, docs/arm-adapter.md). Names
    default to ros2_control's conventions; the numbers are the simulated Panda's, copied from
    core/sim/world.py's WorldConfig (``panda_base``, ``grasp_euler``, ``ready_pose``, ``ready_width``):
    the adapter imports nothing of the simulator."""

    controller: str = Field("joint_trajectory_controller", min_length=1, description="The arm's trajectory controller.")
    trajectory_action: str = Field(
        "follow_joint_trajectory", min_length=1, description="<controller>/<this>: FollowJointTrajectory."
    )
    gripper_controller: str = Field("gripper_controller", min_length=1, description="The gripper's action controller.")
    gripper_action: str = Field("gripper_cmd", min_length=1, description="<gripper_controller>/<this>: GripperCommand.")
    ft_broadcaster: str = Field(
        "force_torque_sensor_broadcaster", min_length=1, description="<this>/wrench: the wrist's WrenchStamped."
    )
    joint_states_topic: str = Field("/joint_states", min_length=1, description="joint_state_broadcaster's topic.")
    robot_description_topic: str = Field("/robot_description", min_length=1, description="The URDF (transient local).")
    reset_service: str = Field(
        "sim/reset", description="Reset.srv that rebuilds the scene at robot/reset; empty = none: the arm goes home."
    )
    observe_service: str = Field(
        "sim/observe", description="Observe.srv of the perception stack (robot/observe, command-end observations)."
    )
    arm_joints: list[str] = Field(default_factory=lambda: list(_PANDA_ARM), description="The trajectory's joints.")
    finger_joints: list[str] = Field(
        default_factory=lambda: ["panda_finger_joint1", "panda_finger_joint2"],
        description="Finger joints, after the arm's in the step stream.",
    )
    base_frame: str = Field("panda_link0", min_length=1, description="The URDF frame whose world pose is base_xyz/rpy.")
    tool_frame: str = Field("panda_grasptarget", min_length=1, description="The grasp frame move_to places.")
    ft_frame: str = Field("panda_hand", min_length=1, description="The F/T sensor's link (the wrench's contacts).")
    base_xyz: list[float] = Field(
        default_factory=lambda: [0.1, 0.0, 0.625], description="base_frame's position in the world, m."
    )
    base_rpy: list[float] = Field(default_factory=lambda: [0.0, 0.0, 0.0], description="base_frame's roll-pitch-yaw.")
    grasp_rpy: list[float] = Field(
        default_factory=lambda: [math.pi, 0.0, 0.0], description="The tool frame's world orientation (gripper down)."
    )
    ready_pose: list[float] = Field(
        default_factory=lambda: [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785],
        description="Arm joints of the home move (a reset without reset_service) and the IK's null-space pull.",
    )
    ready_width: float = Field(0.08, ge=0.0, le=0.08, description="Finger opening of the home move, m.")
    control_rate: float = Field(240.0, gt=0.0, description="joint_states samples per second: steps -> seconds.")
    batch_steps: int = Field(16, ge=1, le=240, description="Steps per StepBatch message.")
    max_episode_steps: int = Field(
        2400,
        ge=1,
        description="Episode step budget (settle included), in samples. Longer than the simulated bridge's 1260: a "
        "move ends when the controller's result is in, 40-110 samples after its steps on the simulated standard arm.",
    )
    reach_tolerance: float = Field(0.01, gt=0.0, description="Max IK residual (m) of an accepted target.")
    goal_position_tolerance: float = Field(
        0.02, ge=0.0, description="Per-joint goal tolerance of each trajectory, rad (0 = the controller's)."
    )
    goal_time_tolerance_s: float = Field(
        0.5, ge=0.0, description="How late after its last point a trajectory may reach its goal tolerance, s."
    )
    rest_velocity: float = Field(0.02, gt=0.0, description="At rest: every arm joint slower than this, rad/s ...")
    rest_samples: int = Field(12, ge=1, description="... for this many samples in a row.")
    rest_timeout_s: float = Field(3.0, gt=0.0, description="A stopped arm not at rest after this is reported so.")
    wrench_floor: float = Field(2.0, ge=0.0, description="|F| above this, N, is a contact in the step stream.")
    start_timeout_s: float = Field(
        10.0, gt=0.0, description="At start: wait this long for every interface (under the graph's 30 s handshakes)."
    )
    joint_states_timeout_s: float = Field(
        0.5, gt=0.0, description="No sample this long: the arm is stopped and motion refused until a reset."
    )
    result_timeout_s: float = Field(5.0, gt=0.0, description="A goal's result this late after its steps: given up.")
    service_timeout_s: float = Field(10.0, gt=0.0, description="Reset and observe calls give up after this.")
    publish_clock: bool = Field(True, description="Publish /clock (step / control_rate) while subscribed.")

    @model_validator(mode="after")
    def _shapes(self) -> ArmAdapterParams:
        for name, n in (("base_xyz", 3), ("base_rpy", 3), ("grasp_rpy", 3)):
            v = getattr(self, name)
            if len(v) != n or not all(math.isfinite(x) for x in v):
                raise ValueError(f"{name} must be {n} finite numbers, got {v}")
        if len(self.ready_pose) != len(self.arm_joints) or not all(math.isfinite(x) for x in self.ready_pose):
            raise ValueError(f"ready_pose needs one finite value per arm joint ({len(self.arm_joints)})")
        if not self.arm_joints:
            raise ValueError("arm_joints is empty")
        return self
