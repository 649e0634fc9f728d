"""A suite run's records: one ``SuiteRecord`` per scenario in ``SuiteStore`` (like RunStore).

Append-only, idempotent and resumable JSONL, ``episodes.jsonl`` + ``manifest.json`` in the run
directory. A record's ``result`` is the suite's own JSON result (the executive's, as received on
suite/result); everything but ``timing`` is deterministic for a seed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from alpha_matrix.core.records import Provenance, RunStore
from alpha_matrix.core.suites.plugins import SUITES

SUITE_SCHEMA_VERSION: Final = 1


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SuiteTiming(_Strict):
    started_at: str
    wall_s: float


class SuiteRecord(_Strict):
    """One scenario of a suite run. Everything but ``timing`` is deterministic for a seed."""

    schema_version: Literal[1] = SUITE_SCHEMA_VERSION
    suite: str  # a name of core/suites/registry.SUITES
    run_id: str
    episode_id: str
    index: int
    scenario: str
    seed: int
    ok: bool  # the executive ran it (False: message says why)
    message: str
    result: dict[str, Any]
    provenance: Provenance
    timing: SuiteTiming

    @field_validator("suite")
    @classmethod
    def _known_suite(cls, v: str) -> str:
        if v not in SUITES:
            raise ValueError(f"unknown suite {v!r} (known: {', '.join(SUITES)})")
        return v


class SuiteStore(RunStore[SuiteRecord]):
    """``episodes.jsonl`` + ``manifest.json`` of a suite run: RunStore with suite records."""

    def __init__(self, run_dir: Path, config_hash: str) -> None:
        super().__init__(run_dir, config_hash, SuiteRecord, SUITE_SCHEMA_VERSION)

    @staticmethod
    def read_only(run_dir: Path) -> list[SuiteRecord]:  # type: ignore[override]
        """The suite's records in scenario order, without creating or repairing anything."""
        return sorted(RunStore.read_only(run_dir, SuiteRecord).values(), key=lambda r: r.index)


def episode_id(suite: str, name: str) -> str:
    return f"{suite}-{name}"


__all__ = ["SUITE_SCHEMA_VERSION", "SuiteRecord", "SuiteStore", "SuiteTiming", "episode_id"]
