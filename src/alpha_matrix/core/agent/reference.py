"""The reference agent: today's scripted decisions behind the agent protocol.

It answers every observation the way the scripted executives decide today, from the
observation alone -- never from the scenario's truth -- and with a native tool call, so its
answers go through core/agent/decide.py like any model's. What it decides is each suite's own
(``AgentSuite.reference``: suites/<suite>/reference_agent.py, where each suite's rule is
described); this is the shell: it parses the observation with the suite's schema, keeps the
suites' per-episode memory and answers as a backend.

Proximity and confidence keep per-episode memory of the observations seen, as the scripted
executives keep their state machines (a window of five frames cannot tell how long the person
has been clear; a SkillAgent's goals persist across skills); alerts is stateless. Observations
of an episode must come in order; decision_index 0 starts the episode afresh.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from alpha_matrix.core.agent.protocol import (
    AgentBackend,
    AgentPrompt,
    Observation,
    RawAnswer,
    RawToolCall,
)
from alpha_matrix.core.agent.situation import parse_situation
from alpha_matrix.core.agent.suite import ReferenceEpisode, SuiteReference, SuiteSource, suite_lookup
from alpha_matrix.core.errors import AlphaMatrixError, ConfigError

BACKEND = "reference"
MODEL = "scripted_v1"  # the scripted executives' rules as of this module


class ReferenceAgentError(AlphaMatrixError):
    """The reference was driven out of protocol (observations out of order, a check unanswered)."""


def call(name: str, **arguments: Any) -> RawToolCall:
    return RawToolCall(name=name, arguments=arguments)


class StatelessReference:
    """A suite's reference that decides on each observation alone (``SuiteReference``)."""

    episodic = False
    consecutive = False

    def start(self, situation: Any) -> ReferenceEpisode:
        raise ReferenceAgentError(f"{type(self).__name__} keeps no episode")

    def decide(self, obs: Observation, situation: Any) -> RawToolCall:
        raise NotImplementedError


class EpisodicReference:
    """A suite's reference with per-episode memory (``SuiteReference``): ``start`` makes it."""

    episodic = True
    consecutive = False  # True: every decision index in turn, none skipped

    def start(self, situation: Any) -> ReferenceEpisode:
        raise NotImplementedError

    def decide(self, obs: Observation, situation: Any) -> RawToolCall:
        raise ReferenceAgentError(f"{type(self).__name__} decides within an episode only")


# ----------------------------------------------------------------------------- the backend
@dataclass
class _Episode:
    key: tuple[str, str]
    index: int
    state: Any


class ReferenceAgent:
    """``AgentBackend``: the scripted reference of the suite(s) it is given (one suite, or a lookup
    by name: the registry's). ``options`` are its own policy for a suite (alerts: ``alerts=``;
    defaults: the shipped config files' and PolicyConfig's); it never sees a scenario."""

    name = BACKEND

    def __init__(self, suites: SuiteSource, **options: Any) -> None:
        self._suites = suite_lookup(suites)
        self._options = options
        self._references: dict[str, SuiteReference] = {}  # per suite: its reference, made when first asked
        self._episodes: dict[str, _Episode] = {}  # per suite: the episode it is in

    def _episode(self, obs: Observation, sit: Any, reference: SuiteReference) -> Any:
        """The suite's per-episode state for ``obs`` (fresh at decision 0 or a new episode)."""
        key = (obs.suite, obs.episode_id)
        ep = self._episodes.get(obs.suite)
        if ep is None or ep.key != key or obs.decision_index == 0:
            state = reference.start(sit)
            ep = self._episodes[obs.suite] = _Episode(key, obs.decision_index, state)
        elif obs.decision_index <= ep.index or (reference.consecutive and obs.decision_index != ep.index + 1):
            raise ReferenceAgentError(
                f"{obs.episode_id}: decision {obs.decision_index} after decision {ep.index}: observations out of order"
            )
        ep.index = obs.decision_index
        return ep.state

    def decide(self, obs: Observation) -> RawToolCall:
        """The reference's tool call for ``obs`` (raises ReferenceAgentError out of protocol)."""
        try:
            suite = self._suites(obs.suite)
            sit = parse_situation(obs, suite)
        except (ConfigError, ValueError) as err:
            raise ReferenceAgentError(f"{obs.suite}: not a situation the reference knows: {err}") from None
        reference = self._references.get(suite.name)
        if reference is None:
            reference = self._references[suite.name] = suite.reference(**self._options)
        if not reference.episodic:
            return reference.decide(obs, sit)
        state = self._episode(obs, sit, reference)
        result: RawToolCall = state.decide(sit)
        return result

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        t0 = time.perf_counter()
        call = self.decide(obs)
        return RawAnswer.of_rule(call, prompt, seed, t0, BACKEND, MODEL)


if TYPE_CHECKING:
    from alpha_matrix.core.agent.suite import AgentSuite

    def _check(suite: AgentSuite) -> None:
        _backend: AgentBackend = ReferenceAgent(suite)  # mypy: the reference satisfies the protocol
