"""The embodiment limits are the robot's own: the world's gripper, the measured reach envelope."""

from __future__ import annotations

from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.confidence.emulator import ReachEnvelope
from alpha_matrix.core.suites.refusal.embodiment import EMBODIMENT


def test_limits_come_from_the_robot() -> None:
    w = WorldConfig()
    assert EMBODIMENT.aperture_m == w.max_width == 0.08
    assert EMBODIMENT.reach_m == ReachEnvelope().r_max  # one measured reach, repeated in two suites
    assert EMBODIMENT.base_xy == ReachEnvelope().base_xy == w.panda_base[:2]
    assert EMBODIMENT.payload_kg == 3.0
