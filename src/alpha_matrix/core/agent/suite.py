"""What the agent layer needs of a suite: given to it, never imported by it.

core/agent is generic: the observation protocol, the judging of answers (decide.py), the prompt
rendering and the reference agent's shell. Everything per suite -- the situation schema, the
tools offered at a decision point, the brief's prompt variables and the reference's decisions --
belongs to the suite (its folder, suites/<suite>/), and comes in as an object satisfying ``AgentSuite``
(the suites' ``Suite`` objects, suites/suite.py, do so structurally). The layer that knows
the suite by name (a node, the command line, a suite's offline runner) passes it in: the object
itself when there is one suite, or a lookup by name (the registry's ``suite``) when the suite is
only known from each observation (the agent node serves whichever suite's graph it is in).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from pydantic import BaseModel

from alpha_matrix.core.agent.protocol import Observation, RawToolCall, Tool
from alpha_matrix.core.errors import ConfigError


class ReferenceEpisode(Protocol):
    """The reference's memory of one episode (proximity's stop policy, confidence's SkillAgent)."""

    def decide(self, situation: Any) -> RawToolCall: ...


class SuiteReference(Protocol):
    """The reference's decisions for one suite (suites/<suite>/reference_agent.py).

    ``episodic``: it keeps memory per episode, started afresh at decision 0 (``start``), and the
    observations of an episode must come in order (``consecutive``: without a decision skipped);
    otherwise every decision is ``decide`` on its observation alone."""

    episodic: bool
    consecutive: bool

    def start(self, situation: Any) -> ReferenceEpisode: ...

    def decide(self, obs: Observation, situation: Any) -> RawToolCall: ...


class AgentSuite(Protocol):
    """One suite as the agent layer sees it."""

    @property
    def name(self) -> str: ...

    @property
    def brief_placeholders(self) -> frozenset[str]:
        """The brief's placeholders its prompt's system text may use."""
        ...

    @property
    def required_brief(self) -> frozenset[str]:
        """Those the system text must use (the rule means nothing without them)."""
        ...

    @property
    def agent_baselines(self) -> Mapping[str, str]:
        """Its own baseline agents: backend name -> ``"module:Class"`` (built with ``policy=name``)."""
        ...

    def situation_model(self) -> type[BaseModel]:
        """Its situation schema (pydantic, closed): what an observation's ``situation`` must be."""
        ...

    def tools(self, situation: Any) -> tuple[Tool, ...]:
        """The tools offered at this situation."""
        ...

    def brief_values(self, brief: dict[str, Any]) -> dict[str, str]:
        """The brief (as JSON) as the prompt's placeholder values."""
        ...

    def reference(self, **options: Any) -> SuiteReference:
        """The reference's policy for this suite; ``options``: its own settings (e.g. alerts' policy)."""
        ...


SuiteLookup = Callable[[str], AgentSuite]
SuiteSource = AgentSuite | SuiteLookup  # one suite, or a lookup of the observation's suite by name


def suite_lookup(source: SuiteSource) -> SuiteLookup:
    """``source`` as a lookup by name: one suite answers its own name only (ConfigError, one line)."""
    if callable(source):
        return source
    one = source

    def only(name: str) -> AgentSuite:
        if name != one.name:
            raise ConfigError(f"suite {name!r}: this agent was given the {one.name} suite only")
        return one

    return only
