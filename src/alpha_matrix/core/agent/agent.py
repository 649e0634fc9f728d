"""One decision per observation, from any backend: render the suite's prompt, ask, judge.

The backend answers (core/agent/{reference,ollama,openai,llamacpp,replay}.py); its answer is
judged against the offered tools (core/agent/decide.py); a call that got no answer at all
becomes an *abort* decision, the infrastructure's failure, never the model's. The agent node is
a thin wrapper around ``Agent``; suites and tests can use it directly.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
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
from alpha_matrix.core.agent.spec import AgentSpec
from alpha_matrix.core.agent.suite import SuiteSource, suite_lookup
from alpha_matrix.core.backends.retry import RetryPolicy
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.lazy import load

BACKENDS = ("reference", "ollama", "openai", "llamacpp", "always", "replay")  # what an agent node may be given


class Agent:
    """``backend`` decides; ``suites`` is the suite whose observations it is asked (or a lookup of
    an observation's suite by name: the registry's), its prompt and situation schema;
    ``templates`` (suite -> template) override the shipped prompts."""

    def __init__(
        self,
        backend: AgentBackend,
        suites: SuiteSource,
        seed: int = 0,
        templates: dict[str, AgentTemplate] | None = None,
    ) -> None:
        self.backend, self.seed, self.templates = backend, seed, dict(templates or {})
        self.suites = suite_lookup(suites)

    def decide(self, obs: Observation) -> Decision:
        prompt = render(obs, self.suites(obs.suite), self.templates.get(obs.suite))
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


# Backends built from options, imported when chosen; replay is built from recorded answers (ReplayAgent);
# a suite's own baselines (the ambiguity resolver's) come from the suite (``AgentSuite.agent_baselines``).
_CLASSES = {
    "reference": "alpha_matrix.core.agent.reference:ReferenceAgent",
    "ollama": "alpha_matrix.core.agent.ollama:OllamaAgent",
    "openai": "alpha_matrix.core.agent.openai:OpenAIAgent",
    "llamacpp": "alpha_matrix.core.agent.llamacpp:LlamaCppAgent",
    "always": "alpha_matrix.core.agent.always:AlwaysAgent",
}


def make_backend(name: str, **options: Any) -> AgentBackend:
    """The named backend; ``options`` are its constructor arguments; unknown names are one line."""
    if name not in _CLASSES:
        raise ConfigError(f"agent backend {name!r}: expected one of {', '.join(_CLASSES)}")
    backend: AgentBackend = load(_CLASSES[name])(**options)
    return backend


def load_templates(paths: list[str], suites: SuiteSource) -> dict[str, AgentTemplate]:
    """Prompt template files given by the user, keyed by the suite each declares (one of ``suites``)."""
    out: dict[str, AgentTemplate] = {}
    for path in paths:
        template = load_agent_prompt(Path(path), suites)
        if template.suite in out:
            raise ConfigError(f"{path}: a second prompt template for suite {template.suite!r}")
        out[template.suite] = template
    return out


def backend_for(
    spec: AgentSpec, params: Any, suites: SuiteSource, baselines: Mapping[str, str] | None = None
) -> AgentBackend:
    """The backend a spec names, with the agent node's options (``params``: AgentParams); the
    reference is given ``suites``; ``baselines``: the suites' own (``AgentSuite.agent_baselines``)."""
    options: dict[str, Any] = {}
    if spec.backend == "reference":
        options = {"suites": suites}
    elif spec.backend == "llamacpp":
        options = {"model_path": params.gguf_path, "n_threads": params.n_threads, "n_ctx": params.n_ctx}
    elif spec.backend in ("ollama", "openai"):
        options = {"model": spec.model, "timeout_s": params.timeout_s, "max_tokens": params.max_tokens,
                   "extra_body": params.extra_body, "policy": RetryPolicy(deadline_s=params.decide_timeout_s)}  # fmt: skip
        if spec.backend == "ollama":
            options["host"] = params.ollama_host or None
        else:
            options.update(base_url=params.openai_base_url, api_key_env=params.openai_api_key_env)
    elif spec.backend == "always":
        options = {"tool": spec.model}
    elif baselines and spec.backend in baselines:
        baseline: AgentBackend = load(baselines[spec.backend])(policy=spec.backend)
        return baseline
    elif spec.backend == "replay":
        from alpha_matrix.core.agent.recorded import answers_from_bag
        from alpha_matrix.core.agent.replay import ReplayAgent

        bag = Path(params.bags_dir) / spec.model
        if not bag.is_dir():
            raise ConfigError(f"replay:{spec.model}: no bag {bag} (record the run first, or pass agent.bags_dir)")
        return ReplayAgent(answers_from_bag(bag))
    return make_backend(spec.backend, **options)


def ready_backend(
    spec: AgentSpec, params: Any, suites: SuiteSource, baselines: Mapping[str, str] | None = None
) -> AgentBackend:
    """``backend_for``, and for a served model (a ``digest()`` to ask) the proof that it is
    reachable and there: BackendError / InfrastructureAbort, one line, before any decision."""
    backend = backend_for(spec, params, suites, baselines)
    for name in ("digest", "served"):  # Ollama: /api/tags; OpenAI-compatible: /models
        check = getattr(backend, name, None)
        if callable(check):
            check()
    return backend
