"""The standard arm's parameters (a simulated Panda behind ros2_control's interfaces)."""

from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from alpha_matrix.core.config import (
    NodeParams,
)


class StandardArmParams(NodeParams):
    """The simulated Panda behind ros2_control's standard interfaces (nodes/standard_arm.py,
    docs/standard-arm.md). Names and defaults are ros2_controllers': joint_trajectory_controller's
    (``constraints.*`` flattened), the gripper action controller's (``gripper_*``), the controller
    manager's ``update_rate``."""

    controller_name: str = Field(
        "joint_trajectory_controller", min_length=1, description="Serves <name>/follow_joint_trajectory etc."
    )
    gripper_controller_name: str = Field("gripper_controller", min_length=1, description="Serves <name>/gripper_cmd.")
    ft_broadcaster_name: str = Field(
        "force_torque_sensor_broadcaster", min_length=1, description="Publishes <name>/wrench."
    )
    update_rate: int = Field(
        240,
        ge=1,
        le=240,
        description="Control and joint_states/wrench publishing rate, Hz; divides the 240 Hz physics.",
    )
    state_publish_rate: float = Field(50.0, gt=0.0, description="<controller>/controller_state, Hz (<= update_rate).")
    action_monitor_rate: float = Field(20.0, ge=0.1, description="Action feedback, Hz (<= update_rate).")
    allow_partial_joints_goal: bool = Field(False, description="Accept goals naming some of the 7 joints.")
    allow_nonzero_velocity_at_trajectory_end: bool = Field(
        False, description="Accept trajectories whose last point has a non-zero velocity."
    )
    interpolate_from_desired_state: bool = Field(
        False, description="Start a new trajectory from the last command instead of the measured state."
    )
    goal_time: float = Field(
        0.0, ge=0.0, description="constraints.goal_time: s after the last point to get within the goal tolerance "
        "(0 = wait as long as it takes).",
    )  # fmt: skip
    stopped_velocity_tolerance: float = Field(
        0.01, ge=0.0, description="constraints.stopped_velocity_tolerance: rad/s at the goal (0 = not checked)."
    )
    trajectory_tolerance: list[float] = Field(
        default_factory=list,
        description="constraints.<joint>.trajectory: path tolerance per arm joint, rad, 7 values or none (0 = not checked).",
    )
    goal_tolerance: list[float] = Field(
        default_factory=list,
        description="constraints.<joint>.goal: goal tolerance per arm joint, rad, 7 values or none (0 = not checked).",
    )
    gripper_goal_tolerance: float = Field(0.01, ge=0.0, description="Finger position tolerance of success, m.")
    gripper_max_effort: float = Field(
        20.0,
        gt=0.0,
        description="Finger force, N per finger, of a goal with max_effort 0 and of the hold after a cancel.",
    )
    gripper_stall_velocity_threshold: float = Field(
        0.001, ge=0.0, description="Finger speed below which it stalls, m/s."
    )
    gripper_stall_timeout: float = Field(
        1.0, ge=0.0, description="Stalled this long outside the tolerance ends the goal, s."
    )
    gripper_allow_stalling: bool = Field(False, description="A stalled goal SUCCEEDS (else it is ABORTED).")
    seed: int = Field(0, ge=0, description="The scene at start-up (sim/reset reseeds it).")
    publish_clock: bool = Field(
        False, description="Publish /clock (the arm's simulated time) and stamp everything with it (for use_sim_time)."
    )

    @field_validator("trajectory_tolerance", "goal_tolerance")
    @classmethod
    def _seven_or_none(cls, v: list[float]) -> list[float]:
        if len(v) not in (0, 7) or not all(0.0 <= x < float("inf") for x in v):  # NaN fails too
            raise ValueError(f"expected 7 values >= 0 (one per arm joint) or none, got {v}")
        return v

    @model_validator(mode="after")
    def _rates(self) -> StandardArmParams:
        if 240 % self.update_rate:
            raise ValueError(f"update_rate ({self.update_rate}) must divide the 240 Hz physics rate")
        for name in ("state_publish_rate", "action_monitor_rate"):
            if getattr(self, name) > self.update_rate:
                raise ValueError(f"{name} ({getattr(self, name):g}) exceeds update_rate ({self.update_rate})")
        return self
