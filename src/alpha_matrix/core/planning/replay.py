"""Recorded planner texts for the replay backend: from a run's JSONL or from its bag.

A replayed LLM arm re-executes exactly the texts a model wrote, so it can be re-run and
audited without the model. The JSONL holds them in each record's ``planner`` block; the bag
on ``/llm/replies`` (the planner's own publication, before any fault injection).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alpha_matrix.core.bag import read_bag
from alpha_matrix.core.errors import AlphaMatrixError
from alpha_matrix.core.names import RULE, is_run_id
from alpha_matrix.core.planning.llm import LLMError, LLMReply
from alpha_matrix.core.records import EpisodeRecord, RunStore

REPLIES_TOPIC = "/llm/replies"
_LIVE_ONLY = -1.0  # PlannerProvenance.eval_duration_s when the server reported none


def _from_record(rec: EpisodeRecord) -> LLMReply:
    p = rec.planner
    assert p is not None
    return LLMReply(
        text=p.text,
        backend=p.backend,
        model=p.model,
        digest=p.digest,
        prompt_tokens=p.prompt_tokens,
        completion_tokens=p.completion_tokens,
        latency_s=rec.timing.llm_latency_s or 0.0,
        eval_duration_s=rec.timing.llm_eval_s,
        seed=p.seed,
        recorded=p.recorded,
        attempts=p.attempts,
        template_sha256=p.template_sha256,
        template_version=p.template_version,
    )


def reply_from_msg(text: str, prov: Any) -> LLMReply:  # noqa: ANN401 - a PlannerProvenance message
    """An LLMReply from a PlannerProvenance message (ROS or rosbags-deserialized: same fields)."""
    return LLMReply(
        text=text,
        backend=prov.backend,
        model=prov.model,
        digest=prov.digest,
        prompt_tokens=int(prov.prompt_tokens),
        completion_tokens=int(prov.completion_tokens),
        latency_s=float(prov.latency_s),
        eval_duration_s=None if prov.eval_duration_s == _LIVE_ONLY else float(prov.eval_duration_s),
        seed=int(prov.seed),
        recorded=bool(prov.recorded),
        attempts=int(prov.attempts),
        template_sha256=prov.template_sha256,
        template_version=prov.template_version,
    )


def _add(out: dict[str, LLMReply], episode_id: str, reply: LLMReply, where: Path) -> None:
    # Ids read from a replay source are data from a file: only a plain name is taken, so none
    # of them can ever become a path (the source itself is the one path given).
    if not is_run_id(episode_id):
        raise LLMError(f"replay: {where}: episode id {episode_id[:60]!r} is not a name ({RULE})")
    seen = out.get(episode_id)
    if seen is not None and (seen.text, seen.seed) != (reply.text, reply.seed):
        raise LLMError(f"replay: {where}: episode {episode_id!r} has two different recorded texts")
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
                    _add(out, rec.episode_id, _from_record(rec), path)
        else:
            raise LLMError(f"replay: {path}: neither a run directory (episodes.jsonl) nor a bag (metadata.yaml)")
    except LLMError:
        raise
    except AlphaMatrixError as err:
        raise LLMError(f"replay: {err}") from None
    if not out:
        raise LLMError(f"replay: {path} holds no recorded LLM replies")
    return out
