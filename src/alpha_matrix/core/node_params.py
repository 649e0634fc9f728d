"""Every node executable's parameter model, by name: what the graph resolver and the launchers
validate a params file against before any process starts. Each model lives with its code; a
suite's nodes are listed by the suite (its ``nodes``)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from alpha_matrix.core.agent.params import AgentParams
from alpha_matrix.core.config import NodeParams
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.live import LiveParams
from alpha_matrix.core.matrix.params import ChaosParams, EpisodeRunnerParams, ExecutiveParams, StepConsumerParams
from alpha_matrix.core.planning.params import LLMPlannerParams, OracleParams
from alpha_matrix.core.recorder_params import RecorderParams
from alpha_matrix.core.robot.adapter.params import ArmAdapterParams
from alpha_matrix.core.robot.params import SimBridgeParams
from alpha_matrix.core.safety.params import SafetyMonitorParams
from alpha_matrix.core.standard_arm.params import StandardArmParams
from alpha_matrix.core.suites import registry
from alpha_matrix.core.suites.params import SuiteBridgeParams, SuiteRunnerParams
from alpha_matrix.core.viz.params import SceneMarkersParams

# The graph's own nodes; every suite adds its own (its ``nodes``).
PARAM_MODELS: dict[str, type[NodeParams]] = {
    "sim_bridge": SimBridgeParams,
    "oracle": OracleParams,
    "llm_planner": LLMPlannerParams,
    "executive": ExecutiveParams,
    "episode_runner": EpisodeRunnerParams,
    "step_consumer": StepConsumerParams,
    "recorder": RecorderParams,
    "safety_monitor": SafetyMonitorParams,
    "chaos": ChaosParams,
    "suite_bridge": SuiteBridgeParams,
    "suite_runner": SuiteRunnerParams,
    "agent": AgentParams,
    "scene_bridge": SimBridgeParams,
    "standard_arm": StandardArmParams,
    "arm_adapter": ArmAdapterParams,
    "scene_markers": SceneMarkersParams,
    "foxglove_live": LiveParams,
}
PARAM_MODELS.update({exe: model for s in registry.suites() for exe, model in s.node_params().items()})


def validate_params(
    executable: str, params: dict[str, Any], where: str, given: dict[str, str] | None = None
) -> NodeParams:
    """Validate one node's parameters; raise ConfigError naming the file and key (``given``: keys
    whose value came from elsewhere -> where, e.g. "--set sim_bridge.x")."""
    model = PARAM_MODELS.get(executable)
    if model is None:
        raise ConfigError(
            f"{where}: unknown node executable {executable!r} (known: {', '.join(PARAM_MODELS)}; "
            "another ROS 2 package's node names its `package:` in the graph file)"
        )
    try:
        return model.model_validate(params)
    except ValidationError as err:
        first = err.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "parameters"
        msg = "unknown parameter" if first["type"] == "extra_forbidden" else first["msg"]
        if given and str(first["loc"][0] if first["loc"] else "") in given:
            raise ConfigError(f"{given[str(first['loc'][0])]}: {msg}") from None
        raise ConfigError(f"{where}: {key}: {msg}") from None
