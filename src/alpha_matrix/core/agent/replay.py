"""The replay agent: re-emits recorded answers by (episode id, decision index), labelled recorded.

A replayed agent arm re-judges exactly what a model answered, without the model. The answer is
returned as it was recorded (text, native tool calls, attempts, provenance: backend, model,
digest, tokens, latency), only ``provenance.recorded`` set, so a replayed decision still says
which model made it; decide() judges it again against the tools offered now. The seed must
match the recording. Where the records come from (a run's JSONL, a bag) is the loader's
business: the constructor takes any iterable of (episode_id, decision_index, RawAnswer).
"""

from __future__ import annotations

from collections.abc import Iterable

from alpha_matrix.core.agent.protocol import AgentPrompt, InfrastructureAbort, Observation, RawAnswer
from alpha_matrix.core.backends.errors import ReplayError, ReplayMissError

Key = tuple[str, int]


class ReplayAgent:
    """Recorded answers keyed by (episode_id, decision_index)."""

    name = "replay"

    def __init__(self, records: Iterable[tuple[str, int, RawAnswer | InfrastructureAbort]]) -> None:
        self._records: dict[Key, RawAnswer | InfrastructureAbort] = {}
        for n, record in enumerate(records):
            try:
                episode_id, index, raw = record
            except (TypeError, ValueError):
                raise ReplayError(f"replay: record {n} is not (episode_id, decision_index, answer)") from None
            if not isinstance(episode_id, str) or not episode_id:
                raise ReplayError(f"replay: record {n}: episode id must be a non-empty string")
            if isinstance(index, bool) or not isinstance(index, int) or index < 0:
                raise ReplayError(f"replay: record {n}: decision index must be an integer >= 0, got {index!r}")
            if not isinstance(raw, RawAnswer | InfrastructureAbort):
                raise ReplayError(f"replay: record {n}: expected a RawAnswer, got {type(raw).__name__}")
            seen = self._records.setdefault((episode_id, index), raw)
            if _key(seen) != _key(raw):  # the same answer twice (records and bag) is fine; two answers are not
                raise ReplayError(
                    f"replay: episode {episode_id[:60]!r} decision {index} has two different recorded answers"
                )

    def __len__(self) -> int:
        return len(self._records)

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        """The recorded answer, labelled recorded; a recorded abort is the same abort again."""
        raw = self._records.get((obs.episode_id, obs.decision_index))
        if isinstance(raw, InfrastructureAbort):
            raise InfrastructureAbort(str(raw), raw.attempts)
        if raw is None:
            raise ReplayMissError(
                f"replay: no recorded answer for episode {obs.episode_id!r} decision {obs.decision_index}"
                f" ({len(self._records)} recorded)"
            )
        if raw.provenance.seed != seed:
            raise ReplayMissError(
                f"replay: episode {obs.episode_id!r} decision {obs.decision_index} was recorded with seed"
                f" {raw.provenance.seed}, asked with seed {seed}"
            )
        return raw.model_copy(update={"provenance": raw.provenance.model_copy(update={"recorded": True})})


def _key(entry: RawAnswer | InfrastructureAbort) -> object:
    return ("abort", str(entry), entry.attempts) if isinstance(entry, InfrastructureAbort) else entry
