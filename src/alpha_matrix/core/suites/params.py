"""Parameters of the nodes every suite graph shares: the suite bridge and the suite runner."""

from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from alpha_matrix.core.config import (
    MAX_SHARDS,
    agent_wait,
)
from alpha_matrix.core.live import LiveWaitParams
from alpha_matrix.core.names import run_id_param
from alpha_matrix.core.robot.params import SimBridgeParams
from alpha_matrix.core.suites.registry import SUITE_NAMES


class SuiteBridgeParams(SimBridgeParams):
    """sim_bridge with the world of a suite: the confidence suite's four blocks."""

    use_skills_world: bool = Field(
        False, description="Build the world of skills_file (its blocks) instead of the default."
    )
    skills_file: str = Field("", description="skills.yaml; empty = the package's config/skills.yaml.")


class SuiteRunnerParams(LiveWaitParams):
    suite: str = Field("confidence", pattern=f"^({'|'.join(SUITE_NAMES)})$")  # each has config/graph_<name>.yaml
    scenarios: str = Field("", description="Scenario file; empty = the package's config/scenarios/<suite>.yaml.")
    scenarios_sha256: str = Field("", description="Set by the CLI: content hash of the scenario file (hashed).")
    skills_file: str = Field("", description="confidence: skills.yaml; empty = the package's.")
    alerts_file: str = Field("", description="alerts: alerts.yaml; empty = the package's.")
    run_id: str = Field("", description="Run directory name under runs_dir; set by the CLI.")
    runs_dir: str = Field("runs")
    config_hash: str = Field("", description="Set by the launcher: hash of the resolved graph config.")
    context_json: str = Field(
        "",
        description="Set by the CLI: what an audit needs besides the scenario (core/suite_context), sent per request.",
    )
    scenario_timeout_s: float = Field(
        300.0,
        gt=0.0,
        description="Give up on a scenario after this long without its result or an agent decision "
        "(plus agent_wait_s: one decision may take that long).",
    )
    agent_wait_s: float = agent_wait()
    shard_count: int = Field(
        1, ge=1, le=MAX_SHARDS, description="Shares of the scenario list (alpha-matrix suite --shard)."
    )
    shard_index: int = Field(
        0, ge=0, description="This share: the scenarios at indices i with i mod shard_count == it."
    )
    recorder: str = Field(
        "recorder", description="Node recording the bag: every request reaches it before the runner exits; '' = none."
    )
    driver: str = Field(
        "", description="Set from the graph: the driver node's executable, recorded with every scenario ('' = sim)."
    )

    @model_validator(mode="after")
    def _one_of_the_shares(self) -> SuiteRunnerParams:
        if self.shard_index >= self.shard_count:
            raise ValueError(
                f"shard_index {self.shard_index} is not one of {self.shard_count} shares (0..{self.shard_count - 1})"
            )
        return self

    _run_id_is_a_name = field_validator("run_id")(run_id_param)
