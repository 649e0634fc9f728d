"""Recorded planner texts for the replay backend: from a run's JSONL or from its bag.

A replayed LLM arm re-executes exactly the texts a model wrote, so it can be re-run and
audited without the model. The JSONL holds them in each record's ``planner`` block; the bag
on ``/llm/replies`` (the planner's own publication, before any fault injection).
"""

from __future__ import annotations

from pathlib import Path

from alpha_matrix.core.backends.answers import LLMReply
from alpha_matrix.core.backends.errors import ReplayError
from alpha_matrix.core.bag import read_bag
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.names import RULE, is_run_id
from alpha_matrix.core.planning.provenance import reply_from_msg, reply_from_record
from alpha_matrix.core.records import RunStore

REPLIES_TOPIC = "/llm/replies"


def _add(out: dict[str, LLMReply], episode_id: str, reply: LLMReply, where: Path) -> None:
    # Ids read from a replay source are data from a file: only a plain name is taken, so none
    # of them can ever become a path (the source itself is the one path given).
    if not is_run_id(episode_id):
        raise ReplayError(f"replay: {where}: episode id {episode_id[:60]!r} is not a name ({RULE})")
    seen = out.get(episode_id)
    if seen is not None and (seen.text, seen.seed) != (reply.text, reply.seed):
        raise ReplayError(f"replay: {where}: episode {episode_id!r} has two different recorded texts")
    out.setdefault(episode_id, reply)


def load_recorded_replies(path: Path) -> dict[str, LLMReply]:
    """Episode id -> recorded reply, from a run directory (episodes.jsonl) or a bag directory."""
    path = Path(path)
    out: dict[str, LLMReply] = {}
    try:
        if (path / "metadata.yaml").exists():
            for topic, _ts, msg in read_bag(path):
                if topic == REPLIES_TOPIC:
                    _add(out, msg.episode_id, reply_from_msg(msg.text, msg.provenance), path)
        elif (path / "episodes.jsonl").exists():
            for rec in RunStore.read_only(path).values():
                if rec.planner is not None and rec.planner.backend != "oracle":
                    _add(out, rec.episode_id, reply_from_record(rec), path)
        else:
            raise ReplayError(f"replay: {path}: neither a run directory (episodes.jsonl) nor a bag (metadata.yaml)")
    except ReplayError:
        raise
    except AlphaMatrixError as err:
        raise ReplayError(f"replay: {err}") from None
    if not out:
        raise ReplayError(f"replay: {path} holds no recorded LLM replies")
    return out
