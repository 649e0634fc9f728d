"""Planner provenance: one mapping between the reply, the message and the record, loss-free both ways."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from alpha_matrix.core.backends.answers import LLMReply
from alpha_matrix.core.planning.provenance import (
    NOT_REPORTED,
    SHARED,
    reply_from_msg,
    reply_from_record,
    reply_timing,
    reply_to_msg_fields,
    reply_to_record,
)
from alpha_matrix.core.records import PlannerRecord, Timing


def reply(eval_s: float | None) -> LLMReply:
    return LLMReply(
        text='{"object": "red"}',
        backend="ollama",
        model="llama3",
        digest="sha256:" + "ab" * 32,
        prompt_tokens=120,
        completion_tokens=48,
        latency_s=1.25,
        seed=2**40 + 3,
        recorded=True,
        eval_duration_s=eval_s,
        attempts=2,
        template_sha256="cd" * 32,
        template_version="pick_place_v1",
    )


def test_shared_fields_are_exactly_the_record_fields_but_the_text() -> None:
    assert set(SHARED) | {"text"} == set(PlannerRecord.model_fields)


@pytest.mark.parametrize("eval_s", [None, 0.0, 0.75])
def test_reply_survives_the_message_and_the_record(eval_s: float | None) -> None:
    original = reply(eval_s)
    fields = reply_to_msg_fields(original)
    assert fields["eval_duration_s"] == (NOT_REPORTED if eval_s is None else eval_s)
    via_msg = reply_from_msg(original.text, SimpleNamespace(**fields))
    assert via_msg == original
    record = reply_to_record(via_msg)
    timing = reply_timing(via_msg)
    assert record.text == original.text and timing == {"llm_latency_s": 1.25, "llm_eval_s": eval_s}
    rec = SimpleNamespace(
        planner=record,
        timing=Timing(started_at="2025-01-01T00:00:00Z", wall_s=3.0, plan_s=0.1, execute_s=2.0, **timing),
    )
    assert reply_from_record(rec) == original  # type: ignore[arg-type]


def test_bag_values_are_read_back_as_the_reply_types() -> None:
    fields = reply_to_msg_fields(reply(None)) | {"prompt_tokens": 120.0, "recorded": 1, "seed": 7.0}
    back = reply_from_msg("{}", SimpleNamespace(**fields))
    assert (type(back.prompt_tokens), type(back.recorded), type(back.seed)) == (int, bool, int)
