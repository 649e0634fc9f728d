"""A run's recorded decisions back into the answers its backend got: the replay agent's source.

Each ``agent/decisions`` message of a bag keeps the model's answer as its backend received it
(``provenance.raw_text``): the chat message as JSON for a served model (Ollama, OpenAI-compatible:
its text and native tool calls), the generated text for the embedded model, the call as JSON for
the scripted agents. Decoded with the backend's own decoder, it is judged again like a live
answer (core/agent/decide.py), so a replay re-judges exactly what the model said. A decision
that got no answer (abort) is replayed as the same abort. Of an episode recorded more than once
(an interrupted attempt, then its rerun), the attempt the runner recorded is used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from alpha_matrix.core.agent import protocol as p
from alpha_matrix.core.agent.wire import decision_of
from alpha_matrix.core.backends.errors import ReplayError

DECISIONS_TOPIC = "/agent/decisions"


def recorded_answer(msg: Any) -> p.RawAnswer | p.InfrastructureAbort:
    """The answer (or the abort) behind one recorded AgentDecision."""
    d = decision_of(msg)
    prov = d.provenance
    if d.kind == "abort":
        return p.InfrastructureAbort(d.message or "no answer (recorded)", d.attempts)
    raw, text = prov.raw_text, prov.raw_text
    calls: tuple[p.RawToolCall, ...] = ()
    try:
        if prov.backend == "ollama":
            from alpha_matrix.core.backends.ollama import decode_chat

            reply = decode_chat({"message": json.loads(raw)})
            text, calls = reply.text, reply.tool_calls
        elif prov.backend == "openai":
            from alpha_matrix.core.backends.openai import decode_completion

            reply = decode_completion({"choices": [{"message": json.loads(raw)}]})
            text, calls = reply.text, reply.tool_calls
    except (ValueError, TypeError, KeyError) as err:
        raise ReplayError(
            f"replay: decision {d.provenance.backend} of {msg.episode_id!r} #{msg.decision_index}: "
            f"recorded message does not decode ({type(err).__name__})"
        ) from None
    return p.RawAnswer(text=text, tool_calls=calls, provenance=prov, attempts=d.attempts)


def answers_from_bag(bag_dir: Path) -> list[tuple[str, int, p.RawAnswer | p.InfrastructureAbort]]:
    """Every recorded decision of a suite bag as (episode id, decision index, answer)."""
    from alpha_matrix.core.bag import episode_attempts

    def of(topic: str, msg: Any) -> str | None:
        if topic in ("/suite/request", "/suite/result", DECISIONS_TOPIC):
            return str(msg.episode_id) or None
        return None

    out = []
    for ep_id, (msgs, _others) in sorted(episode_attempts(bag_dir, of).items()):
        for topic, _ts, msg in msgs:
            if topic == DECISIONS_TOPIC:
                out.append((ep_id, int(msg.decision_index), recorded_answer(msg)))
    if not out:
        raise ReplayError(f"replay: {bag_dir}: no recorded agent decisions")
    return out
