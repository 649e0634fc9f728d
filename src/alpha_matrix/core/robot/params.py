"""The simulated bridge's parameters (sim_bridge: the driver core over the PyBullet world)."""

from __future__ import annotations

from pydantic import Field, model_validator

from alpha_matrix.core.config import (
    NodeParams,
    reaction_latency,
)
from alpha_matrix.core.robot.gate import STEP_STREAM_DEPTH


class SimBridgeParams(NodeParams):
    batch_steps: int = Field(16, ge=1, le=240, description="Steps per StepBatch message.")
    reaction_latency_steps: int = reaction_latency()
    gating_consumers: list[str] = Field(
        default_factory=list, description="Consumers the bridge never runs more than L steps ahead of."
    )
    flow_consumers: list[str] = Field(
        default_factory=list,
        description="Consumers that never decide (the recorder): when gating, held within flow_window_steps, not L.",
    )
    flow_window_steps: int = Field(
        192, ge=1, description="How far the bridge may run past a flow consumer's last ack (>= L)."
    )
    screened_consumers: list[str] = Field(
        default_factory=list,
        description="Deciders that decide only where the safety screen flags a step (the safety monitor): when "
        "gating, the bridge screens each step as they do and waits on them only from a flagged step on.",
    )
    calm_batch_steps: int = Field(
        96,
        ge=1,
        le=240,
        description="Steps per StepBatch while the screen flags nothing, when every decider that "
        "gates is screened (else batch_steps).",
    )
    history_consumers: list[str] = Field(
        default_factory=list,
        description="Consumers that keep the batch-end object poses as a time series (the chaos node's F1 delay "
        "line): while one is in the graph, batches stay batch_steps long, calm or not.",
    )
    screen_contact_threshold: float = Field(
        0.0,
        ge=0.0,
        description="The screened monitor's contact_threshold, N: set by the graph resolver from the "
        "monitor's own parameter (0 flags every contact).",
    )
    max_episode_steps: int = Field(1260, ge=1, description="Episode step budget (settle included).")
    reach_tolerance: float = Field(0.01, gt=0.0, description="Max IK residual (m) of an accepted target.")
    realtime: bool = Field(False, description="Pace stepping at wall-clock 240 Hz, like hardware.")
    ack_timeout_s: float = Field(30.0, gt=0.0, description="Give up when a gating consumer is silent.")
    time_physics: bool = Field(
        False,
        description="Log each episode's physics steps and the loop's other work, in thread CPU time, at the next reset "
        "(benchmarks).",
    )

    @model_validator(mode="after")
    def _batch_within_latency(self) -> SimBridgeParams:
        # A batch longer than L could leave the bridge blocked on steps no consumer has seen.
        if self.gating_consumers and self.batch_steps > self.reaction_latency_steps:
            raise ValueError(
                f"batch_steps ({self.batch_steps}) must not exceed reaction_latency_steps "
                f"({self.reaction_latency_steps}) when gating consumers are set"
            )
        if self.flow_consumers and self.flow_window_steps < self.reaction_latency_steps:
            raise ValueError(
                f"flow_window_steps ({self.flow_window_steps}) must be at least reaction_latency_steps "
                f"({self.reaction_latency_steps})"
            )
        # Batches a flow consumer may have unread: within half the stream's queue, or one is dropped.
        if self.flow_consumers and -(-self.flow_window_steps // self.batch_steps) + 1 > STEP_STREAM_DEPTH // 2:
            raise ValueError(
                f"flow_window_steps ({self.flow_window_steps}) spans more than {STEP_STREAM_DEPTH // 2 - 1} "
                f"batches of {self.batch_steps} steps (the step stream queues {STEP_STREAM_DEPTH})"
            )
        if both := sorted(set(self.screened_consumers) & set(self.flow_consumers)):
            raise ValueError(f"screened_consumers and flow_consumers overlap: {both} (a flow consumer never decides)")
        if (calm := self.calm_steps()) is not None and self.gate_windows() and self.flow_window_steps < 2 * calm - 1:
            raise ValueError(
                f"flow_window_steps ({self.flow_window_steps}) must be at least 2 * calm_batch_steps - 1 "
                f"({2 * calm - 1}): a flow consumer could hold the bridge on steps it has not been sent"
            )
        return self

    def gate_windows(self) -> dict[str, int]:
        """The flow consumers that gate this graph (one excluded from it gates nothing)."""
        return {c: self.flow_window_steps for c in self.flow_consumers if c in self.gating_consumers}

    def screened(self) -> list[str]:
        """The screened consumers that gate this graph."""
        return [c for c in self.screened_consumers if c in self.gating_consumers]

    def calm_steps(self) -> int | None:
        """Batch length while the screen flags nothing; None (always batch_steps) unless a screened
        consumer gates, every other gating consumer is a flow consumer and no history consumer reads."""
        others = set(self.gating_consumers) - set(self.screened()) - set(self.gate_windows())
        return self.calm_batch_steps if self.screened() and not others and not self.history_consumers else None

    def max_batch_steps(self) -> int:
        return max(self.batch_steps, self.calm_steps() or 0)
