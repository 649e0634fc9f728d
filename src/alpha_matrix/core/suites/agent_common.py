"""What every suite's agent link, scorer and report share (no ROS): the agent's own stop hold,
the tool a decision called, and the provenance part of a record's ``agent`` part."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any

from alpha_matrix.core.agent.decide import decide
from alpha_matrix.core.agent.protocol import NO_PROMPT, Decision, Observation, RawAnswer


def tool_of(decision: Decision) -> str:
    """The tool a decision called; "" for a message, an invalid answer or an abort."""
    return decision.call.name if decision.kind == "tool_call" and decision.call is not None else ""


def holds_at(changes: Sequence[tuple[int, bool]], step: int) -> bool:
    """A stop hold's state at ``step`` from its (apply step, engage) changes in apply order."""
    state = False
    for at, engage in changes:
        if at > step:
            break
        state = engage
    return state


def hold_change(holding: bool, tool: str, stops: Collection[str], lifts: Collection[str]) -> bool | None:
    """The agent's own stop after a call of ``tool`` (""  for no call), when the call changes it:
    True engage, False release, None unchanged. The link acts on it and the scorer replays it."""
    if tool in stops and not holding:
        return True
    if tool in lifts and holding:
        return False
    return None


def provenance_part(decisions: Sequence[Any]) -> dict[str, Any]:
    """Who answered, from AgentDecision messages in decision order: the first answer's backend,
    model, digest and prompt, the tokens of all, and every raw text with its invalid detail."""
    first = decisions[0].provenance if decisions else None
    return {
        "backend": first.backend if first else "",
        "model": first.model if first else "",
        "digest": first.digest if first else "",
        "template_version": first.template_version if first else "",
        "template_sha256": first.template_sha256 if first else "",
        "prompt_tokens": sum(int(d.provenance.prompt_tokens) for d in decisions),
        "completion_tokens": sum(int(d.provenance.completion_tokens) for d in decisions),
        "raw": [[int(d.decision_index), d.provenance.raw_text, d.invalid_detail] for d in decisions],
    }


def listed_decisions(result: dict[str, Any]) -> int:
    """The agent decisions a recorded result was built from, where its agent part lists every one
    (``provenance_part``'s ``raw``): the count its SuiteResult gives the recorder. 0: no agent."""
    agent = result.get("agent")
    return len(agent["raw"]) if isinstance(agent, dict) else 0


def decision_latency(summary: dict[str, Any]) -> str:
    """An agent summary's decision latency (wall clock) as the report states it."""
    if summary["latency_median_s"] is None:
        return "n/a"
    return f"median {summary['latency_median_s']:.3f} s, max {summary['latency_max_s']:.3f} s"


def agent_heading(part: dict[str, Any]) -> str:
    """The report's first words on an agent part: the agent, its backend, model and prompt."""
    digest = f", digest {part['digest'][:19]}" if part["digest"] else ""
    return (
        f"Agent `{part['agent']}` (backend {part['backend']}, model `{part['model']}`{digest}); "
        f"prompt {part['template_version']} (sha256 {part['template_sha256'][:12]})"
    )


def infrastructure_aborts(result: dict[str, Any]) -> int:
    """Decisions of a scenario's agent that got no answer at all (the infrastructure's failure):
    such a scenario is not recorded, and the same command runs it again."""
    agent = result.get("agent") or {}
    return int(agent.get("aborts", 0)) if isinstance(agent, dict) else 0


def _same(a: Decision, b: Decision) -> bool:
    return (a.kind, a.call, a.message if a.kind == "message" else "", a.invalid) == (
        b.kind, b.call, b.message if b.kind == "message" else "", b.invalid,
    )  # fmt: skip


def fmt_decision(d: Decision) -> str:
    if d.kind == "tool_call" and d.call is not None:
        return f"{d.call.name}({json.dumps(d.call.arguments, sort_keys=True)})"
    return f"{d.kind} {d.invalid or ''}".strip()


def said_again(observation: Observation, decision: Decision, reference: Any = None) -> str | None:
    """An audit's check of what the agent said (None: consistent). A decision the embedded model
    answered in text is judged again from that text against the recorded tools; with ``reference``
    (a ReferenceAgent, when the reference was the agent) its answer to the recorded observation
    must be the recorded call. ``reference`` keeps its per-episode state: feed it in order."""
    i, prov = observation.decision_index, decision.provenance
    if decision.kind != "abort" and prov.raw_text and prov.backend == "llamacpp":
        again = decide(observation.tools, RawAnswer(text=prov.raw_text, provenance=prov))
        if not _same(again, decision):
            return f"decision {i}: recorded {fmt_decision(decision)}, its text judges as {fmt_decision(again)}"
    if reference is not None:
        ref = decide(observation.tools, reference.answer(observation, NO_PROMPT, 0))
        if not _same(ref, decision):
            return f"decision {i}: recorded {fmt_decision(decision)}, the reference answers {fmt_decision(ref)}"
    return None
