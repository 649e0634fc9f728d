"""What an alerts run is asked to do: the policy file, the scenario file, and the request.

* Loaders of ``config/alerts.yaml`` (the policy) and ``config/scenarios/alerts.yaml``: pydantic
  only at the boundary; one ConfigError line naming file and key for any problem: unknown keys
  or alert classes, bad severities, steps outside the episode, clears before raises.
* A scenario <-> JSON for ``SuiteRequest.scenario_json``, and the context the request carries
  (``graph_context``: alert_guard's policy file and its reaction latency L, as resolved).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.suites.alerts.context import AlertsContext
from alpha_matrix.core.suites.alerts.policy import Alert, AlertClass, AlertPolicy, Response, Severity, StatusConfig
from alpha_matrix.core.suites.common import config_dir, raise_validation
from alpha_matrix.core.suites.context import RecordedFile, node_file
from alpha_matrix.core.suites.suite import ScenarioRequest

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Status(_Strict):
    battery_start_pct: float = Field(default=100.0, ge=0.0, le=100.0)
    idle_drain_pct_per_s: float = Field(default=0.01, ge=0.0)
    motion_drain_pct_per_rad: float = Field(default=0.2, ge=0.0)
    battery_low_pct: float = Field(default=20.0, gt=0.0, le=100.0)
    battery_critical_pct: float = Field(default=8.0, gt=0.0, le=100.0)
    ambient_c: float = 30.0
    temp_start_c: float = 35.0
    heat_c_per_rad: float = Field(default=1.5, ge=0.0)
    cooling_per_s: float = Field(default=0.01, ge=0.0)
    overtemperature_c: float = 70.0
    hysteresis: float = Field(default=1.0, ge=0.0)

    @model_validator(mode="after")
    def _order(self) -> _Status:
        if self.battery_critical_pct >= self.battery_low_pct:
            raise ValueError("battery_critical_pct must be below battery_low_pct")
        return self


class _PolicyFile(_Strict):
    responses: dict[AlertClass, Response]
    stop_on_critical: bool = True
    status: _Status = _Status()

    @model_validator(mode="after")
    def _every_class(self) -> _PolicyFile:
        missing = [c.value for c in AlertClass if c not in self.responses]
        if missing:
            raise ValueError(f"no response for {', '.join(missing)}")
        return self


@dataclass(frozen=True)
class AlertSuite:
    policy: AlertPolicy
    status: StatusConfig
    path: Path


def load_alert_policy(path: Path | None = None) -> AlertSuite:
    path = path or config_dir() / "alerts.yaml"
    try:
        f = _PolicyFile.model_validate(load_yaml(path))
    except ValidationError as err:
        raise_validation(path, err)
    return AlertSuite(AlertPolicy(dict(f.responses), f.stop_on_critical), StatusConfig(**f.status.model_dump()), path)


class _Alert(_Strict):
    id: str = Field(min_length=1, max_length=64)
    cls: AlertClass = Field(alias="class")
    severity: Severity
    at_step: int = Field(ge=1)
    cleared_at_step: int | None = Field(None, ge=1)
    payload: dict[str, Any] = Field(default_factory=dict)
    expect: Response | None = None

    @model_validator(mode="after")
    def _clear_after_raise(self) -> _Alert:
        if self.cleared_at_step is not None and self.cleared_at_step <= self.at_step:
            raise ValueError(f"cleared_at_step {self.cleared_at_step} is not after at_step {self.at_step}")
        return self


class _Scenario(_Strict):
    name: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9_]+$")
    phase: str = ""
    max_steps: int = Field(3000, ge=1260, le=20000)
    status_every: int = Field(24, ge=1, le=240)
    retry_every: int = Field(24, ge=1, le=2400)
    status: dict[str, float] = Field(default_factory=dict)
    alerts: list[_Alert] = Field(default_factory=list)


class _ScenarioFile(_Strict):
    seed: int = Field(42, ge=0)
    scenarios: list[_Scenario] = Field(min_length=1)


@dataclass(frozen=True)
class AlertScenario:
    name: str
    seed: int
    alerts: tuple[Alert, ...]
    status: StatusConfig
    max_steps: int = 3000
    status_every: int = 24
    retry_every: int = 24
    phase: str = ""


def load_alert_scenarios(path: Path | None = None, suite: AlertSuite | None = None) -> list[AlertScenario]:
    path = path or config_dir() / "scenarios" / "alerts.yaml"
    suite = suite or load_alert_policy()
    try:
        f = _ScenarioFile.model_validate(load_yaml(path))
    except ValidationError as err:
        raise_validation(path, err)
    known = {fl.name for fl in fields(StatusConfig)}
    out, names = [], set()
    for i, s in enumerate(f.scenarios):
        where = f"{path}: scenarios.{i}"
        if s.name in names:
            raise ConfigError(f"{where}.name: duplicate scenario name {s.name!r}")
        names.add(s.name)
        for key in s.status:
            if key not in known:
                raise ConfigError(f"{where}.status.{key}: unknown key")
        ids = [a.id for a in s.alerts]
        if len(set(ids)) != len(ids):
            raise ConfigError(f"{where}.alerts: alert ids must be unique")
        alerts = []
        for j, a in enumerate(s.alerts):
            if a.at_step >= s.max_steps or (a.cleared_at_step or 0) >= s.max_steps:
                raise ConfigError(f"{where}.alerts.{j}: steps must fall inside max_steps ({s.max_steps})")
            alert = Alert(a.id, a.cls, a.severity, a.at_step, dict(a.payload), a.cleared_at_step)
            if a.expect is not None and a.expect != suite.policy.response(alert):
                raise ConfigError(
                    f"{where}.alerts.{j}.expect: {a.expect.value!r} but the policy says "
                    f"{suite.policy.response(alert).value!r}"
                )
            alerts.append(alert)
        status = StatusConfig(**{**suite.status.__dict__, **s.status})
        seed = derive_seed(f.seed, "alerts", s.name)
        out.append(
            AlertScenario(s.name, seed, tuple(alerts), status, s.max_steps, s.status_every, s.retry_every, s.phase)
        )
    return out


# ----------------------------------------------------------------------------- the request
def alert_scenario_json(s: AlertScenario) -> str:
    return canonical_json(
        {
            "name": s.name,
            "seed": s.seed,
            "phase": s.phase,
            "max_steps": s.max_steps,
            "status_every": s.status_every,
            "retry_every": s.retry_every,
            "status": asdict(s.status),
            "alerts": [
                {
                    "id": a.alert_id,
                    "class": a.cls.value,
                    "severity": a.severity.value,
                    "at_step": a.at_step,
                    "cleared_at_step": a.cleared_at_step,
                    "payload": a.payload,
                }
                for a in s.alerts
            ],
        }
    )


def alert_scenario_from_json(text: str) -> AlertScenario:
    d = json.loads(text)
    alerts = tuple(
        Alert(
            a["id"], AlertClass(a["class"]), Severity(a["severity"]), a["at_step"], a["payload"], a["cleared_at_step"]
        )
        for a in d["alerts"]
    )
    return AlertScenario(
        d["name"],
        d["seed"],
        alerts,
        StatusConfig(**d["status"]),
        d["max_steps"],
        d["status_every"],
        d["retry_every"],
        d["phase"],
    )


def last_event_step(s: AlertScenario) -> int:
    return max([a.at_step for a in s.alerts] + [a.cleared_at_step or 0 for a in s.alerts], default=0)


def scenario_requests(scenarios: Path | None, alerts_file: Path | None) -> list[ScenarioRequest]:
    """Every scenario of the file, validated against the policy file, as the runner sends it."""
    policy = load_alert_policy(alerts_file)
    return [ScenarioRequest(s.name, s.seed, alert_scenario_json(s)) for s in load_alert_scenarios(scenarios, policy)]


def graph_context(graph: Graph) -> AlertsContext:
    """The policy file alert_guard reads and its L, from the resolved graph."""
    guard = graph.node("alert_guard").parameters
    policy = RecordedFile.read(node_file(graph, "alert_guard", "alerts_file", "alerts.yaml"))
    return AlertsContext(policy=policy, reaction_latency_steps=int(guard["reaction_latency_steps"]))
