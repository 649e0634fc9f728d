"""A planner reply's provenance, mapped between its three forms in one place.

The forms: ``LLMReply`` (the backend's answer), the ``PlannerProvenance`` message (the wire and the
bag) and the episode record (``PlannerRecord`` plus the latency fields of ``Timing``). A replayed
text must keep its original generation's provenance exactly, so every copy goes through here.
"""

from __future__ import annotations

from typing import Any

from alpha_matrix.core.backends.answers import LLMReply
from alpha_matrix.core.records import EpisodeRecord, PlannerRecord

NOT_REPORTED = -1.0  # PlannerProvenance.eval_duration_s when the model server reported none

# Fields with the same name and meaning in LLMReply, PlannerProvenance and PlannerRecord, with the
# type a message's value is read back as (a message deserialized from a bag, not only by rclpy).
SHARED: dict[str, type] = {
    "backend": str,
    "model": str,
    "digest": str,
    "prompt_tokens": int,
    "completion_tokens": int,
    "seed": int,
    "recorded": bool,
    "template_sha256": str,
    "template_version": str,
    "attempts": int,
}


def _copy(source: Any) -> dict[str, Any]:  # an LLMReply or a PlannerRecord
    return {name: getattr(source, name) for name in SHARED}


def reply_to_msg_fields(reply: LLMReply) -> dict[str, Any]:
    """Keyword arguments of the ``PlannerProvenance`` message for ``reply``."""
    eval_s = NOT_REPORTED if reply.eval_duration_s is None else reply.eval_duration_s
    return {**_copy(reply), "latency_s": reply.latency_s, "eval_duration_s": eval_s}


def reply_from_msg(text: str, prov: Any) -> LLMReply:  # a PlannerProvenance message
    """An LLMReply from a PlannerProvenance message (ROS or rosbags-deserialized: same fields)."""
    return LLMReply(
        text=text,
        **{name: kind(getattr(prov, name)) for name, kind in SHARED.items()},
        latency_s=float(prov.latency_s),
        eval_duration_s=None if prov.eval_duration_s < 0 else float(prov.eval_duration_s),
    )


def reply_to_record(reply: LLMReply) -> PlannerRecord:
    """The record's planner block: who wrote the text, and the text itself."""
    return PlannerRecord(**_copy(reply), text=reply.text)


def reply_timing(reply: LLMReply) -> dict[str, float | None]:
    """The record's ``Timing`` fields of the generation (wall clock, kept out of the planner block)."""
    return {"llm_latency_s": reply.latency_s, "llm_eval_s": reply.eval_duration_s}


def reply_from_record(rec: EpisodeRecord) -> LLMReply:
    """The reply a text-arm record holds (its planner block and generation timing)."""
    p = rec.planner
    assert p is not None
    return LLMReply(
        text=p.text,
        **_copy(p),
        latency_s=rec.timing.llm_latency_s or 0.0,
        eval_duration_s=rec.timing.llm_eval_s,
    )
