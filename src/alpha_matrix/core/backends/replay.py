"""Replay of recorded planner texts: the planner's ``replay`` backend. Where the texts come from
(a run's JSONL, a bag) is the planner's business (core/planning/replay.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping

from alpha_matrix.core.backends.answers import ChatPrompt, LLMReply
from alpha_matrix.core.backends.errors import ReplayError, ReplayMissError


class ReplayBackend:
    """Re-emits the raw texts of an earlier run by episode id, labelled ``recorded=True``.

    Provenance (backend, model, digest, tokens, latency) stays that of the original generation,
    so a replayed arm says which model produced its plans; the seed must match the recording.
    """

    name = "replay"

    def __init__(self, records: Mapping[str, LLMReply] | Iterable[tuple[str, LLMReply]]) -> None:
        items = records.items() if isinstance(records, Mapping) else records
        self._records: dict[str, LLMReply] = {}
        for episode_id, reply in items:
            if episode_id in self._records:
                raise ReplayError(f"replay: episode {episode_id!r} is recorded twice")
            if not isinstance(reply, LLMReply):
                raise ReplayError(f"replay: episode {episode_id!r}: expected an LLMReply, got {type(reply).__name__}")
            self._records[episode_id] = reply

    def __len__(self) -> int:
        return len(self._records)

    def generate(self, prompt: ChatPrompt, schema: dict, seed: int, *, episode_id: str = "") -> LLMReply:
        reply = self._records.get(episode_id)
        if reply is None:
            raise ReplayMissError(
                f"replay: no recorded reply for episode {episode_id!r} ({len(self._records)} recorded)"
            )
        if reply.seed != seed:
            raise ReplayMissError(
                f"replay: episode {episode_id!r} was recorded with seed {reply.seed}, asked with seed {seed}"
            )
        return dataclasses.replace(reply, recorded=True)
