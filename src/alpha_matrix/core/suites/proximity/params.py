"""The proximity suite's node parameters."""

from __future__ import annotations

import math

from pydantic import Field, field_validator

from alpha_matrix.core.agent.spec import agent_spec_ok
from alpha_matrix.core.config import (
    NodeParams,
    agent_spec,
    agent_wait,
    decide_wait,
    decision_every_frames,
    guards,
    reaction_latency,
)
from alpha_matrix.core.robot.params import SimBridgeParams
from alpha_matrix.core.sim.camera_model import CELL_CAMERA


class ProximityBridgeParams(SimBridgeParams):
    """sim_bridge with the overhead depth camera and a walking person (configured by sim/set_human)."""

    publish_rgb: bool = Field(True, description="Also publish the colour image (camera/color/image_raw, rgb8).")
    depth_encoding: str = Field(
        "32FC1",
        pattern="^(32FC1|16UC1)$",
        description="camera/depth/image_raw as REP 118 allows: 32FC1 (float32 m) or 16UC1 (uint16 mm, as realsense).",
    )


class ProximityDetectorParams(NodeParams):
    """Depth-only detector: sees camera/depth/image_raw + camera_info, never sim/ topics; the camera's
    mount (extrinsics) is a calibration, given here; its intrinsics come with camera_info."""

    service_timeout_s: float = Field(30.0, gt=0.0)
    guards: bool = guards()
    camera_position: list[float] = Field(
        default_factory=lambda: [float(v) for v in CELL_CAMERA.eye],
        description="The depth optical frame's origin in the world (robot base) frame, m: [x, y, z].",
    )
    camera_orientation: list[float] = Field(
        default_factory=lambda: list(CELL_CAMERA.quaternion()),
        description="The depth optical frame's orientation in the world frame, a unit quaternion [x, y, z, w] "
        "(as tf2_echo prints it; optical frame: x right, y down, z forward).",
    )

    @field_validator("camera_position")
    @classmethod
    def _position_ok(cls, v: list[float]) -> list[float]:
        if len(v) != 3 or not all(math.isfinite(x) for x in v):
            raise ValueError(f"expected [x, y, z] in metres, got {v}")
        return v

    @field_validator("camera_orientation")
    @classmethod
    def _quaternion_ok(cls, v: list[float]) -> list[float]:
        if len(v) != 4 or not all(math.isfinite(x) for x in v) or abs(math.hypot(*v) - 1.0) > 0.01:
            raise ValueError(f"expected a unit quaternion [x, y, z, w], got {v}")
        return v


class ProximityExecutiveParams(NodeParams):
    reaction_latency_steps: int = reaction_latency()
    agent: str = agent_spec()
    guards: bool = guards()
    decision_every_frames: int = decision_every_frames()
    hold_steps: int = Field(24, ge=1, le=240, description="Hold this long while stopped, then re-issue the command.")
    object: str = Field("red", description="The block of the pick-and-place task.")
    service_timeout_s: float = Field(60.0, gt=0.0)
    result_timeout_s: float = Field(60.0, gt=0.0, description="Wait for the last truth and estimate messages.")
    agent_wait_s: float = agent_wait()  # the agent link holds the stream while the agent decides

    _agent_is_a_spec = field_validator("agent")(agent_spec_ok)


class ProximityAgentLinkParams(NodeParams):
    """Between the agent and the robot in the proximity suite: observations in, stops out."""

    reaction_latency_steps: int = reaction_latency()
    decision_every_frames: int = decision_every_frames()
    guards: bool = guards()
    images: bool = Field(
        False, description="Attach the frame's colour image (camera/color/image_raw, PNG) for multimodal models."
    )
    decide_timeout_s: float = decide_wait()
    service_timeout_s: float = Field(30.0, gt=0.0)
