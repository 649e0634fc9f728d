"""One decision per observation, from any backend: render the suite's prompt, ask, judge.

The backend answers (core/agent/{reference,ollama,openai,llamacpp,replay}.py); its answer is
judged against the offered tools (core/agent/decide.py); a call that got no answer at all
becomes an *abort* decision, the infrastructure's failure, never the model's. The agent node is
a thin wrapper around ``Agent``; suites and tests can use it directly.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from alpha_matrix.core.agent.decide import decide
from alpha_matrix.core.agent.prompts import AgentTemplate, load_agent_prompt, render
from alpha_matrix.core.agent.protocol import (
    AgentBackend,
    AgentProvenance,
    Decision,
    InfrastructureAbort,
    Observation,
)
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.lazy import load

BACKENDS = ("reference", "ollama", "openai", "llamacpp", "replay")  # what an agent node may be given


class Agent:
    """``backend`` decides; ``templates`` (suite -> template) override the shipped prompts."""

    def __init__(self, backend: AgentBackend, seed: int = 0, templates: dict[str, AgentTemplate] | None = None) -> None:
        self.backend, self.seed, self.templates = backend, seed, dict(templates or {})

    def decide(self, obs: Observation) -> Decision:
        prompt = render(obs, self.templates.get(obs.suite))
        t0 = time.perf_counter()
        try:
            raw = self.backend.answer(obs, prompt, self.seed)
        except InfrastructureAbort as abort:
            provenance = AgentProvenance(
                backend=self.backend.name,
                model=str(getattr(self.backend, "model", "")),
                latency_s=time.perf_counter() - t0,
                seed=self.seed,
                template_sha256=prompt.template_sha256,
                template_version=prompt.template_version,
                attempts=len(abort.attempts),
            )
            return Decision(kind="abort", message=str(abort), provenance=provenance, attempts=abort.attempts)
        return decide(obs.tools, raw)


# Backends built from options, imported when chosen; replay is built from recorded answers (ReplayAgent).
_CLASSES = {
    "reference": "alpha_matrix.core.agent.reference:ReferenceAgent",
    "ollama": "alpha_matrix.core.agent.ollama:OllamaAgent",
    "openai": "alpha_matrix.core.agent.openai:OpenAIAgent",
    "llamacpp": "alpha_matrix.core.agent.llamacpp:LlamaCppAgent",
}


def make_backend(name: str, **options: Any) -> AgentBackend:
    """The named backend; ``options`` are its constructor arguments; unknown names are one line."""
    if name not in _CLASSES:
        raise ConfigError(f"agent backend {name!r}: expected one of {', '.join(_CLASSES)}")
    backend: AgentBackend = load(_CLASSES[name])(**options)
    return backend


def load_templates(paths: list[str]) -> dict[str, AgentTemplate]:
    """Prompt template files given by the user, keyed by the suite each declares."""
    out: dict[str, AgentTemplate] = {}
    for path in paths:
        template = load_agent_prompt(Path(path))
        if template.suite in out:
            raise ConfigError(f"{path}: a second prompt template for suite {template.suite!r}")
        out[template.suite] = template
    return out
