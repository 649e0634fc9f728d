"""The embedded agent: the llama.cpp runtime the planner uses too, constrained to one of the offered tool calls.

It reuses core/backends/llamacpp.py as it is (weights, digest, chat template, greedy decoding
under a JSON-schema grammar, context cleared before every call), so the same observation,
prompt and seed give the same text in any process. What is added here is the schema: a
``oneOf`` with one branch per offered tool,

    {"tool": {"const": <name>}, "arguments": <that tool's parameters>}  (both required, nothing else)

which llama.cpp's schema-to-grammar converter turns into one alternative per tool. ``tool``
comes first, so once the name is written only that tool's arguments can follow. The grammar
bounds the shape; it does not enforce every keyword (minimum, maximum, ... are not in the
grammar), so the answer is still judged by core/agent/decide.py like any other. Images are
not used: the default model (Gemma 3 270M) reads text only.

A generation failure (prompt longer than the context, llama.cpp error) is a ``BackendError``:
a local failure to stop on, not a transport abort to retry.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from alpha_matrix.core.agent.protocol import (
    AgentPrompt,
    AgentProvenance,
    AttemptRecord,
    Observation,
    RawAnswer,
    Tool,
)
from alpha_matrix.core.backends.llamacpp import LlamaCppBackend
from alpha_matrix.core.errors import ConfigError

DEFAULT_MAX_TOKENS = 192  # one tool call with a few arguments fits in well under 100 tokens


def tool_call_schema(tools: Iterable[Tool]) -> dict[str, Any]:
    """JSON schema of "exactly one of these tool calls"; also a valid Draft 2020-12 schema."""
    branches = [
        {
            "type": "object",
            "properties": {"tool": {"const": tool.name}, "arguments": tool.parameters},
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
        for tool in tools
    ]
    if not branches:
        raise ConfigError("llamacpp agent: no tools offered")
    return {"oneOf": branches}


def _has_ref(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "$ref" in item:
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


@lru_cache(maxsize=64)
def _check_grammar(schema_json: str) -> None:
    """A ConfigError unless llama.cpp's converter takes the schema (its failures are asserts)."""
    from llama_cpp import LlamaGrammar

    if _has_ref(json.loads(schema_json)):  # a tool's local $ref would resolve against the combined root
        raise ConfigError("llamacpp agent: tool parameters with $ref are not supported by the grammar")
    try:
        LlamaGrammar.from_json_schema(schema_json, verbose=False)
    except Exception as err:  # AssertionError, ValueError, KeyError, ... from the converter
        detail = " ".join(str(err).split())[:160] or type(err).__name__
        raise ConfigError(f"llamacpp agent: tool parameters cannot become a grammar: {detail}") from None


class LlamaCppAgent:
    """The embedded model as an AgentBackend; ``model_path`` empty = the packaged Gemma 3 270M."""

    name = "llamacpp"

    def __init__(
        self, model_path: str = "", n_threads: int = 2, n_ctx: int = 2048, max_tokens: int = DEFAULT_MAX_TOKENS
    ) -> None:
        self._runtime = LlamaCppBackend(model_path=model_path, n_threads=n_threads, n_ctx=n_ctx, max_tokens=max_tokens)
        self.model = self._runtime.model
        self.digest = self._runtime.digest

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        """Greedy (temperature 0), so ``seed`` changes nothing; it is recorded as the protocol fixes it."""
        schema = tool_call_schema(obs.tools)
        _check_grammar(json.dumps(schema))  # as the decoder will see it: key order kept
        reply = self._runtime.generate(prompt, schema, seed, episode_id=obs.episode_id)  # reads system and user
        provenance = AgentProvenance(
            backend=self.name,
            model=reply.model,
            digest=reply.digest,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            latency_s=reply.latency_s,
            seed=int(seed),
            template_sha256=prompt.template_sha256,
            template_version=prompt.template_version,
            attempts=1,
            raw_text=reply.text,
        )
        attempt = AttemptRecord(attempt=1, outcome="answered", latency_s=reply.latency_s)
        return RawAnswer(text=reply.text, provenance=provenance, attempts=(attempt,))
