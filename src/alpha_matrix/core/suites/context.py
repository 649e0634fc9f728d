"""A suite run's context: what an audit of its bag needs besides the scenario, as the run used it.

Computed once when the suite's graph is resolved (``cli.suite.suite_graph``), from the resolved
nodes' parameters, so ``--config`` and ``--set`` are honoured (each suite's ``graph_context``, in
its scenarios module); ``suite_runner`` sends it in every ``SuiteRequest.context_json``, so the
bag carries it. An audit never reads today's config, which may have changed since the bag was
recorded (a policy edited, another L): a bag without the context its audit needs is a problem.

* alerts: the policy file ``alert_guard`` reads (sha256 + text) and its reaction latency L.
* confidence: the skills file ``skill_confidence`` reads (sha256 + text); the executive and
  the bridge must read the same content (the replay uses one file for the emulator and the
  ledger's threshold).
* proximity: the bridge's L (a stop decided on the frame of step s is in effect at s + L), the
  agent under test, whether the guard's stops were sent, and the agent's decision interval. The
  detector's policy and intrinsics are already in the scenario and the recorded CameraInfo.
* gauge: gauge_reader's evidence bounds (the audit re-runs the reader on the recorded images).
* refusal: the agent under test, whether the constraint guard was on (``--guards`` and the
  file's ``guard``), the output modes asked per item, and the scenario file's sha256 (every
  item travels whole in its request).
* hazards: the world model under test and the safety stack's settings (the force-limit stop's
  share of the region's limit, and how long over the limit still counts as mitigated): the
  audit re-grades the recorded force streams with them; and the probe (outcome hidden, or stated
  as the control). The scenario is z itself.
* ambiguity: the agent under test and how its moves were carried out (physical: on the robot,
  the placement measured; symbolic in bags from before: the placement table). The item, truth
  included, is the scenario itself.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.records import canonical_json
from alpha_matrix.core.suites.plugins import SUITES

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RecordedFile(_Strict):
    """A configuration file as a node read it: where, its content hash and its text."""

    path: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    text: str

    @model_validator(mode="after")
    def _hash_matches(self) -> RecordedFile:
        if hashlib.sha256(self.text.encode()).hexdigest() != self.sha256:
            raise ValueError(f"{self.path}: sha256 does not match the recorded text")
        return self

    @classmethod
    def read(cls, path: Path) -> RecordedFile:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise ConfigError(f"{path}: cannot read ({err.strerror})") from None
        return cls(path=str(path), sha256=hashlib.sha256(text.encode()).hexdigest(), text=text)

    def write_to(self, directory: Path) -> Path:
        """The text as a file under ``directory`` (same name), for the file-based loaders."""
        out = directory / Path(self.path).name
        out.write_text(self.text, encoding="utf-8")
        return out

    def short(self) -> str:
        return f"{Path(self.path).name} sha256 {self.sha256[:12]}"


class AlertsContext(_Strict):
    suite: Literal["alerts"] = "alerts"
    policy: RecordedFile  # alert_guard's alerts_file
    reaction_latency_steps: int = Field(ge=1, le=2400)  # alert_guard's L

    def describe(self) -> str:
        return f"alert_guard L={self.reaction_latency_steps}, policy {self.policy.short()}"


class ConfidenceContext(_Strict):
    suite: Literal["confidence"] = "confidence"
    skills: RecordedFile  # skill_confidence's skills_file (= the executive's and the bridge's)

    def describe(self) -> str:
        return f"skills {self.skills.short()}"


class ProximityContext(_Strict):
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


class GaugeContext(_Strict):
    suite: Literal["gauge"] = "gauge"
    reader: dict[str, float | int]  # gauge_reader's evidence bounds (core/suites/gauge/settings.py)

    def describe(self) -> str:
        return "gauge_reader " + ", ".join(f"{k}={v}" for k, v in sorted(self.reader.items()))


class RefusalContext(_Strict):
    suite: Literal["refusal"] = "refusal"
    agent: str = Field(min_length=1)  # the agent under test (the refusal suite always has one)
    guards: bool  # the constraint guard under the agent in tool use
    modes: tuple[Literal["text", "pointing", "box", "tool_use"], ...] = Field(min_length=1)  # asked per item, in order
    scenarios_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")

    def describe(self) -> str:
        return f"agent {self.agent}, guard {'on' if self.guards else 'off'}, modes {', '.join(self.modes)}"


class AmbiguityContext(_Strict):
    suite: Literal["ambiguity"] = "ambiguity"
    agent: str = Field(min_length=1)  # the agent under test (the suite always has one)
    # physical: pick_and_place runs on the robot, the placement is measured; symbolic (bags recorded
    # before execution): it set the placement table, no robot moved
    execution: Literal["physical", "symbolic"] = "physical"

    def describe(self) -> str:
        how = "executed on the robot, measured" if self.execution == "physical" else "no motion"
        return f"agent {self.agent}, moves {self.execution} ({how})"


class HazardsContext(_Strict):
    suite: Literal["hazards"] = "hazards"
    agent: str = Field(min_length=1)  # the world model under test (the suite always has one)
    stop_fraction: float = Field(gt=0.0, le=1.0)  # the stack's force-limit stop, share of the region's limit
    mitigated_ms: float = Field(ge=0.0)  # over the limit less than this long, with the stack on: mitigated
    probe: Literal["hidden", "explicit"] = "hidden"  # explicit: the consequence is stated (the control probe)

    def describe(self) -> str:
        return (
            f"agent {self.agent}, {self.probe} outcome, stop at {self.stop_fraction:g} x limit, "
            f"mitigated < {self.mitigated_ms:g} ms"
        )


SuiteContext = (
    AlertsContext
    | ConfidenceContext
    | ProximityContext
    | GaugeContext
    | RefusalContext
    | AmbiguityContext
    | HazardsContext
)
_ADAPTER: TypeAdapter[SuiteContext] = TypeAdapter(
    Annotated[
        AlertsContext
        | ConfidenceContext
        | ProximityContext
        | GaugeContext
        | RefusalContext
        | AmbiguityContext
        | HazardsContext,
        Field(discriminator="suite"),
    ]
)


def context_json(ctx: SuiteContext) -> str:
    return canonical_json(ctx.model_dump(mode="json"))


def parse_context(text: str, suite: str) -> SuiteContext:
    """A recorded context, validated; ValueError (one line) when it is not one of ``suite``."""
    try:
        ctx = _ADAPTER.validate_json(text)
    except ValidationError as err:
        first = err.errors()[0]
        loc = first["loc"][1:] if first["loc"] and first["loc"][0] in SUITES else first["loc"]  # the union's tag
        key = ".".join(str(p) for p in loc) or "context"
        msg = first["msg"].removeprefix("Value error, ")
        raise ValueError(f"invalid context_json: {key}: {msg}") from None
    if ctx.suite != suite:
        raise ValueError(f"context_json is for suite {ctx.suite!r}, not {suite!r}")
    return ctx


def node_file(graph: Graph, node: str, param: str, default_name: str) -> Path:
    """A node's file parameter as the node resolves it: empty means the package's config file."""
    from alpha_matrix.core.graph import default_config_dir

    value = graph.node(node).parameters.get(param, "")
    return Path(value) if value else default_config_dir() / default_name


__all__ = [
    "AlertsContext",
    "AmbiguityContext",
    "ConfidenceContext",
    "GaugeContext",
    "HazardsContext",
    "ProximityContext",
    "RecordedFile",
    "RefusalContext",
    "SuiteContext",
    "context_json",
    "node_file",
    "parse_context",
]
