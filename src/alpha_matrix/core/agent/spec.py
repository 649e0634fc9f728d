"""Which agent a suite runs: the ``--agent`` value (and the ``agent`` parameter) as one string.

    reference            the scripted reference (core/agent/reference.py): the upper bound
    llm                  the embedded model (llamacpp, Gemma 3 270M from PyPI): proves the path
    llm:<model>          an Ollama model, e.g. llm:llama3.1 (the same as ollama:<model>)
    ollama:<model>       an Ollama model (chat API, native tools)
    openai:<model>       a model behind an OpenAI-compatible API (agent.openai_base_url)
    llamacpp             the embedded model, by its backend's name
    always:<tool>        a baseline that calls one tool every time (e.g. always:continue_task)
    replay:<run_id>      the answers a recorded agent run got (bags/<run_id>), judged again
    always_execute       ambiguity suite only: the resolver's baseline that never asks (first candidate)
    always_ask           ambiguity suite only: the resolver's baseline that asks once on every item
    obey                 injection suite only: the fully compromised agent (does what printed text says)

A spec is a name, never a path: the model and tool parts are checked as names, a replay source
as a run id (core/names.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic_core import PydanticCustomError

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.names import MODEL_NAME, check_run_id

_TOOL = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
SPEC_HELP = "reference | llm | llm:<ollama model> | ollama:<model> | openai:<model> | llamacpp | always:<tool> | replay:<run_id>"
BASELINES = (
    "always_execute",
    "always_ask",
    "obey",
)  # the ambiguity resolver's two baselines; the injection suite's obey


@dataclass(frozen=True)
class AgentSpec:
    backend: str  # reference | llamacpp | ollama | openai | always | replay | always_execute | always_ask
    model: str = ""  # ollama/openai: the model; always: the tool; replay: the recorded run id

    @property
    def label(self) -> str:
        return f"{self.backend}:{self.model}" if self.model else self.backend


def parse_agent_spec(text: str, where: str = "--agent") -> AgentSpec:
    """The spec, or a one-line ConfigError saying what is expected."""
    head, _, tail = text.strip().partition(":")
    if head == "reference" and not tail:
        return AgentSpec("reference")
    if head in ("llm", "llamacpp") and not tail:
        return AgentSpec("llamacpp")
    if head in ("llm", "ollama", "openai") and tail:
        if not MODEL_NAME.fullmatch(tail):
            raise ConfigError(f"{where}: {tail[:80]!r} is not a model name")
        return AgentSpec("ollama" if head == "llm" else head, tail)
    if head == "always" and tail:
        if not _TOOL.match(tail):
            raise ConfigError(f"{where}: {tail[:80]!r} is not a tool name")
        return AgentSpec("always", tail)
    if head in BASELINES and not tail:
        return AgentSpec(head)
    if head == "replay" and tail:
        check_run_id(tail, where)
        return AgentSpec("replay", tail)
    raise ConfigError(f"{where}: {text[:80]!r}: expected {SPEC_HELP}")


def agent_spec_ok(value: str) -> str:
    """A parameter model's validator of an ``agent`` value: a parse error as pydantic's own."""
    if value:
        try:
            parse_agent_spec(value, "agent")
        except ConfigError as err:
            raise PydanticCustomError("agent", str(err).removeprefix("agent: ")) from None
    return value
