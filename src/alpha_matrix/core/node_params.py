"""Every node executable's parameter model, by name: what the graph resolver and the launchers
validate a params file against before any process starts. Each model lives with its code."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from alpha_matrix.core.agent.params import AgentParams
from alpha_matrix.core.config import (
    NodeParams,
)
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.matrix.params import ChaosParams, EpisodeRunnerParams, ExecutiveParams, StepConsumerParams
from alpha_matrix.core.planning.params import LLMPlannerParams, OracleParams
from alpha_matrix.core.recorder_params import RecorderParams
from alpha_matrix.core.robot.adapter.params import ArmAdapterParams
from alpha_matrix.core.robot.params import SimBridgeParams
from alpha_matrix.core.safety.params import SafetyMonitorParams
from alpha_matrix.core.standard_arm.params import StandardArmParams
from alpha_matrix.core.suites.alerts.params import AlertExecutiveParams, AlertGuardParams, AlertSourceParams
from alpha_matrix.core.suites.ambiguity.params import AmbiguityExecutiveParams
from alpha_matrix.core.suites.confidence.params import SkillConfidenceParams, SkillExecutiveParams
from alpha_matrix.core.suites.gauge.params import GaugeExecutiveParams, GaugeReaderParams
from alpha_matrix.core.suites.hazards.params import HazardExecutiveParams
from alpha_matrix.core.suites.params import SuiteBridgeParams, SuiteRunnerParams
from alpha_matrix.core.suites.proximity.params import (
    ProximityAgentLinkParams,
    ProximityBridgeParams,
    ProximityDetectorParams,
    ProximityExecutiveParams,
)
from alpha_matrix.core.suites.refusal.params import RefusalExecutiveParams

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
    "skill_confidence": SkillConfidenceParams,
    "skill_executive": SkillExecutiveParams,
    "alert_source": AlertSourceParams,
    "alert_guard": AlertGuardParams,
    "alert_executive": AlertExecutiveParams,
    "suite_runner": SuiteRunnerParams,
    "ambiguity_executive": AmbiguityExecutiveParams,
    "proximity_bridge": ProximityBridgeParams,
    "proximity_detector": ProximityDetectorParams,
    "proximity_executive": ProximityExecutiveParams,
    "agent": AgentParams,
    "proximity_agent_link": ProximityAgentLinkParams,
    "gauge_reader": GaugeReaderParams,
    "gauge_executive": GaugeExecutiveParams,
    "refusal_executive": RefusalExecutiveParams,
    "scene_bridge": SimBridgeParams,
    "hazard_executive": HazardExecutiveParams,
    "standard_arm": StandardArmParams,
    "arm_adapter": ArmAdapterParams,
}


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
