"""Parameters of the matrix's own nodes: executive, episode runner, step consumer, chaos."""

from __future__ import annotations

from pydantic import Field, field_validator

from alpha_matrix.core.config import (
    MAX_SHARDS,
    PLAN_WAIT_S,
    NodeParams,
)
from alpha_matrix.core.live import LiveWaitParams
from alpha_matrix.core.names import run_id_param


class ExecutiveParams(NodeParams):
    move_steps: int = Field(240, ge=1, le=1260, description="Default steps of a MOVE_TO without steps.")
    grip_steps: int = Field(60, ge=1, le=1260)
    release_steps: int = Field(210, ge=1, le=1260)
    grip_force: float = Field(20.0, gt=0.0, le=70.0, description="Default finger force, N.")
    release_width: float = Field(0.08, ge=0.0, le=0.08)
    grasp_tolerance: float = Field(
        0.05, gt=0.0, description="Semantic guard: the grasp target must be this close to the block, m."
    )
    service_timeout_s: float = Field(30.0, gt=0.0)


class EpisodeRunnerParams(LiveWaitParams):
    run_id: str = Field("", description="Run directory name under runs_dir; empty = derived from config.")
    runs_dir: str = Field("runs", description="Where run directories (JSONL records) are written.")
    arms: list[str] = Field(
        default_factory=lambda: ["oracle"],
        description="Planner arms, run paired by episode index (oracle, oracle-text, llm).",
    )
    matrix: bool = Field(False, description="Run the balanced fault matrix (75 cells per arm) instead of `episodes`.")
    chaos: bool = Field(False, description="Configure the chaos node before every episode (it must be in the graph).")
    shard_count: int = Field(
        1, ge=1, le=MAX_SHARDS, description="Workers sharing this run (set by alpha-matrix run --workers)."
    )
    shard_index: int = Field(0, ge=0, description="This worker's shard of the episode indices.")
    task_variant: str = Field(
        "open_loop",
        pattern="^(open_loop|closed_loop)$",
        description="closed_loop: the block is nudged during the approach and the executive re-observes before the grasp.",
    )
    disturb_dx: float = Field(0.06, description="closed_loop: nudge of the task's block in x, m.")
    disturb_dy: float = Field(0.0, description="closed_loop: nudge in y, m.")
    disturb_step: int = Field(360, ge=1, le=1260, description="closed_loop: the nudge happens before this step.")
    fault: str = Field("none", description="Without matrix: the fault of every episode (none, F1..F4, F1+F2).")
    intensity: float = Field(0.0, ge=0.0, le=1.0, description="Without matrix: the fault intensity I.")
    master_seed: int = Field(42, ge=0)
    episodes: int = Field(10, ge=1, le=100000)
    first_episode: int = Field(0, ge=0)
    task: str = Field("pick the red block and place it in the zone", max_length=500)
    object: str = Field("red")
    settle_steps: int = Field(120, ge=0, le=1260)
    service_timeout_s: float = Field(60.0, gt=0.0)
    plan_timeout_s: float = Field(
        PLAN_WAIT_S, gt=0.0, description="Wait for a text planner's answer (an LLM on a CPU can be slow)."
    )
    config_hash: str = Field("", description="Set by the launcher: hash of the resolved graph config.")
    safety_monitor: bool = Field(False, description="Wait for the safety monitor's account of every episode.")
    recorder: str = Field(
        "", description="Set from the graph: the recorder node; every record waits for its bag commit ('' = none)."
    )
    step_budget: int = Field(
        1260, ge=1, description="Set from the graph: the driver's max_episode_steps, what outcomes are judged against."
    )
    driver: str = Field(
        "", description="Set from the graph: the driver node's executable, recorded with every episode ('' = sim)."
    )

    _run_id_is_a_name = field_validator("run_id")(run_id_param)


class StepConsumerParams(NodeParams):
    """A minimal gating consumer (tests, driver bring-up): acks every batch, may request a stop."""

    stop_at_step: int = Field(0, ge=0, description="Request a protective stop decided at this step; 0 = never.")
    resume_at_step: int = Field(0, ge=0, description="Request resume decided at this step; 0 = never.")


class ChaosParams(NodeParams):
    """The chaos node is configured per episode by the runner (chaos/set_fault), not by parameters."""
