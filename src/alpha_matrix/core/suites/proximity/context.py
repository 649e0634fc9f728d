"""What an audit of a proximity bag needs besides the scenario (core/suites/context.py says why)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from alpha_matrix.core.suites.context import SuiteContext


class ProximityContext(SuiteContext):
    """The bridge's L (a stop decided on the frame of step s is in effect at s + L), the agent under
    test, whether the guard's stops were sent, and the agent's decision interval. The detector's
    policy and intrinsics are already in the scenario and the recorded CameraInfo."""

    suite: Literal["proximity"] = "proximity"
    reaction_latency_steps: int = Field(ge=1, le=2400)  # sim_bridge's L
    # The agent under test ('' = none), whether the detector's guard sent its stops, and how often
    # the agent decided. A context recorded before these existed had no agent and its guard on.
    agent: str = ""
    guards: bool = True
    decision_every_frames: int = Field(1, ge=1)

    def describe(self) -> str:
        agent = f", agent {self.agent} every {self.decision_every_frames} frame(s)" if self.agent else ""
        return f"sim_bridge L={self.reaction_latency_steps}, guards {'on' if self.guards else 'off'}{agent}"
