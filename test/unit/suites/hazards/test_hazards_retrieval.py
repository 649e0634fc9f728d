"""Retrieval from the risk memory: deterministic, good enough on the labelled query set, bad query files one line."""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
import yaml

from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.hazards.bank import load_bank
from alpha_matrix.core.suites.hazards.retrieval import K_DEFAULT, Retriever, onnx_encoder, retrieve, tokens
from alpha_matrix.core.suites.hazards.retrieval_eval import evaluate_retrieval, load_queries

BANK = load_bank()
QUERIES = load_queries(BANK)


def test_query_set_is_large_enough_and_names_real_units() -> None:
    assert len(QUERIES) >= 30
    assert {r for q in QUERIES for r in q.relevant} <= {u.id for u in BANK.units}


def test_tfidf_reaches_its_floor() -> None:
    """Measured on this bank (48 units) and query set (45 queries), k = 5: recall 0.822,
    precision 0.284 (at most ~0.35 here: 1.7 relevant units per query), MRR 0.961."""
    s = evaluate_retrieval(Retriever(BANK), QUERIES, k=5)
    assert s.queries == len(QUERIES) and s.k == 5
    assert s.recall >= 0.80
    assert s.precision >= 0.27
    assert s.mrr >= 0.93


def test_retrieval_is_deterministic_and_k_long() -> None:
    q = QUERIES[0]
    first = retrieve(BANK, q.scene, q.robot)
    assert len(first) == K_DEFAULT
    assert first == retrieve(BANK, q.scene, q.robot) == [u for u, _ in Retriever(BANK).top(q.scene, q.robot)]
    assert len(retrieve(BANK, q.scene, q.robot, k=3)) == 3


def test_tfidf_ranks_the_obvious_unit_first() -> None:
    top = retrieve(BANK, "a deep fryer of hot oil and a frozen turkey", "robot lowers the turkey into the oil")
    assert top[0] == "frozen_food_hot_oil"


def test_unmatched_query_ties_keep_bank_order() -> None:
    top = retrieve(BANK, "zzz qqq", "xyzzy")
    assert top == [u.id for u in BANK.units[:K_DEFAULT]]


def test_tokens_meet_across_plural_and_verb_forms() -> None:
    assert tokens("Hands pressing") == tokens("hand press")


def _hashing_encoder(texts: Sequence[str]) -> np.ndarray:
    """A stand-in embedding (hashed bag of words) to run the embedding path without a model."""
    out = np.zeros((len(texts), 64))
    for i, t in enumerate(texts):
        for w in tokens(t):
            out[i, zlib.crc32(w.encode()) % 64] += 1.0
    return out


def test_embedding_backend_path_with_a_given_encoder() -> None:
    r = Retriever(BANK, "embedding", _hashing_encoder)
    q = QUERIES[0]
    top = r.top(q.scene, q.robot)
    assert len(top) == K_DEFAULT and top == r.top(q.scene, q.robot)
    assert all(-1.0 - 1e-9 <= s <= 1.0 + 1e-9 for _, s in top)


def test_embedding_backend_unavailable_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as err:
        onnx_encoder(tmp_path / "none.onnx", tmp_path / "none.json")
    assert "\n" not in str(err.value) and "embedding backend" in str(err.value)


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"version": 1, "queries": [{"scene": "abc", "robot": "abc", "relevant": ["no_such_unit"]}]}, "no unit"),
        ({"version": 1, "queries": [{"scene": "abc", "robot": "abc", "relevant": []}]}, "queries.0.relevant"),
        (
            {"version": 1, "queries": [{"scene": "abc", "robot": "abc", "relevant": ["thrown_object"], "x": 1}]},
            "unknown key",
        ),
    ],
)
def test_bad_query_files_are_one_line(tmp_path: Path, body: dict[str, object], needle: str) -> None:
    path = tmp_path / "q.yaml"
    path.write_text(yaml.safe_dump(body))
    with pytest.raises(ConfigError) as err:
        load_queries(BANK, path)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_onnx_minilm_when_installed() -> None:
    """Optional (skipped unless onnxruntime, tokenizers and the all-MiniLM-L6-v2 int8 model are installed).
    Measured: recall@5 0.815, precision@5 0.280, MRR 0.811 on the 45 queries; ~6.5 ms per query."""
    try:
        encoder = onnx_encoder()
    except ConfigError as err:
        pytest.skip(str(err))
    s = evaluate_retrieval(Retriever(BANK, "embedding", encoder), QUERIES)
    assert s.recall >= 0.78 and s.mrr >= 0.78
