"""Retrieval quality on a labelled query set (config/hazards/retrieval_queries.yaml).

Each query names the units a reviewer wants for it; recall@k, precision@k and MRR are the
means over queries. The file is checked against the bank: an id that is no unit is one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from alpha_matrix.core.config import load_yaml
from alpha_matrix.core.errors import ConfigError
from alpha_matrix.core.suites.common import config_dir, raise_validation
from alpha_matrix.core.suites.hazards.bank import Bank
from alpha_matrix.core.suites.hazards.retrieval import K_DEFAULT, Retriever


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Query(_Strict):
    scene: str = Field(min_length=3)
    robot: str = Field(min_length=3)
    relevant: list[str] = Field(min_length=1)


class _File(_Strict):
    version: int = Field(ge=1)
    queries: list[Query] = Field(min_length=1)


@dataclass(frozen=True)
class RetrievalScores:
    k: int
    queries: int
    recall: float  # mean share of a query's relevant units in its top k
    precision: float  # mean share of the top k that is relevant
    mrr: float  # mean 1 / rank of the first relevant unit (0 when none is in the top k)


def load_queries(bank: Bank, path: Path | None = None) -> list[Query]:
    path = path or config_dir() / "hazards" / "retrieval_queries.yaml"
    data: Any = load_yaml(path)
    try:
        f = _File.model_validate(data if data is not None else {})
    except ValidationError as err:
        raise_validation(path, err)
    known = {u.id for u in bank.units}
    for i, q in enumerate(f.queries):
        unknown = next((r for r in q.relevant if r not in known), None)
        if unknown is not None:
            raise ConfigError(f"{path}: queries.{i}.relevant: {unknown!r} is no unit of the bank")
    return list(f.queries)


def evaluate_retrieval(retriever: Retriever, queries: list[Query], k: int = K_DEFAULT) -> RetrievalScores:
    recall = precision = mrr = 0.0
    for q in queries:
        top = [uid for uid, _ in retriever.top(q.scene, q.robot, k)]
        wanted = set(q.relevant)
        hits = [uid in wanted for uid in top]
        recall += sum(hits) / len(wanted)
        precision += sum(hits) / k
        mrr += next((1.0 / (i + 1) for i, h in enumerate(hits) if h), 0.0)
    n = len(queries)
    return RetrievalScores(k, n, recall / n, precision / n, mrr / n)


__all__ = ["Query", "RetrievalScores", "evaluate_retrieval", "load_queries"]
