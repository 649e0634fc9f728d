"""The node-parameter machinery: the model base, the declarations several nodes share, YAML reading.

Each node's parameter model lives with its code (``core/<area>/params.py``); core/node_params.py
maps node executables to them. Nodes declare their ROS parameters from these models, and the
launchers validate `config/params.yaml` against them before any process starts, so an unknown key
or a bad value is one clear error instead of a node that dies later.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field

from alpha_matrix.core.errors import ConfigError

# How long anything waits for a text planner's answer: above the LLM planner's own timeout_s cap.
PLAN_WAIT_S = 660.0
# The agent under test's own deadline for one decision (agent.decide_timeout_s), retries and backoff
# included: past it the decision is an abort. Every node that waits behind a decision waits this
# plus DECIDE_MARGIN_S, set by the graph resolver from the agent's value (core/resolve.py).
DECIDE_TIMEOUT_S = 600.0
DECIDE_MARGIN_S = 60.0
MAX_SHARDS = 64  # of one run: --workers graphs, Ray shards, --shard K/N


def reaction_latency() -> Any:
    """The graph's L, one declaration for every node that needs it (set once per graph, under
    ``/**`` in the params file: the bridge applies stops at k + L, executives and guards wait for them)."""
    return Field(24, ge=1, le=2400, description="L: a stop decided at step k applies at k + L (24 = 100 ms at 240 Hz).")


class NodeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


def load_yaml(path: Path) -> Any:
    """Read a YAML file; any I/O or syntax problem becomes a one-line ConfigError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"{path}: cannot read ({err.strerror})") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(err, "problem", None) or "invalid YAML"
        raise ConfigError(f"{path}: malformed YAML{at}: {problem}") from None


# ----------------------------------------------------------------------------- the agent under test (shared)
def guards() -> Any:
    """Whether the deterministic guards act (set once per graph, under ``/**``): off measures the agent alone."""
    return Field(True, description="The deterministic guard requests its stops; false = the agent alone decides.")


def agent_spec() -> Any:
    """The agent under test (set once per graph, under ``/**``; core/agent/spec.py)."""
    return Field("", description="The agent under test: '' = none (the scripted executive), reference, llm, ...")


def decide_wait() -> Any:
    """How long a node waits for one decision of the agent under test: set by the graph resolver to
    the agent's decide_timeout_s + DECIDE_MARGIN_S (never by hand: the agent's deadline is the one place)."""
    return Field(
        DECIDE_TIMEOUT_S + DECIDE_MARGIN_S,
        gt=0.0,
        description="Set from the graph: agent.decide_timeout_s + a margin (wait this long for one decision).",
    )


def agent_wait() -> Any:
    """What a node adds to its waits that can sit behind a decision of the agent (a guard or link
    holding the robot while the agent thinks): set by the graph resolver, 0 without an agent."""
    return Field(
        0.0,
        ge=0.0,
        description="Set from the graph: agent.decide_timeout_s + a margin when an agent is in the graph, else 0 "
        "(added to every wait that can sit behind one decision).",
    )


def decision_every_frames() -> Any:
    return Field(
        1,
        ge=1,
        le=600,
        description="The agent decides on every n-th detector frame (1 = every 0.1 s; the published evaluation's 5 s = 50).",
    )
