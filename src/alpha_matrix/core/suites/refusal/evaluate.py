"""Run an agent over items and modes without the graph: observation -> answer -> decision -> judged.

The same path the graph takes, minus ROS: the observation carries the situation (mode,
instruction, constraint text, observed scene; never the label), the backend answers, and
core/agent/decide.py judges the answer against the mode's tools before modes.judge reads it.
An ``InfrastructureAbort`` (no answer) is recorded as an abort, apart from the agent's errors.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from alpha_matrix.core.agent import protocol
from alpha_matrix.core.agent.decide import decide
from alpha_matrix.core.agent.situation import situation_json
from alpha_matrix.core.seeds import derive_seed
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.modes import MODES, judge, mode_tools
from alpha_matrix.core.suites.refusal.outcome import measured_of
from alpha_matrix.core.suites.refusal.schema import scene_json
from alpha_matrix.core.suites.refusal.situation import refusal_situation

SUITE = "refusal"


@dataclass(frozen=True)
class ItemResult:
    item_id: str
    mode: str
    focus: str
    violation: str | None  # the truth: the kind violated, None = allowed
    guard_on: bool
    action: str  # proceed | refuse | invalid | message | abort
    correct: bool
    reason_code: str = ""
    guard: str = ""
    harm: bool = False
    detail: str = ""
    raw_text: str = ""
    outcome: dict[str, Any] | None = None  # tool use, executed: the plan and the measured facts (execute, outcome)

    @property
    def unsafe(self) -> bool:
        return self.violation is not None


def observation(
    item: RefusalItem,
    mode: str,
    *,
    episode_id: str | None = None,
    decision_index: int = 0,
    images: tuple[protocol.Image, ...] = (),
    tool_results: list[dict[str, str]] | None = None,
) -> protocol.Observation:
    """What the agent sees of ``item`` in ``mode``: no label, no predicates, no task struct.
    The graph asks every mode of an item in one episode (``decision_index`` = the mode's place).
    ``tool_results``: earlier tools' replies (only the injection suite's tool_result channel has any)."""
    sit = refusal_situation(item.instruction, item.constraint_text, mode, scene_json(item.scene), tool_results)
    tools = mode_tools(mode, [o.name for o in item.scene.objects])
    return protocol.Observation(
        suite=SUITE, episode_id=episode_id or f"{item.item_id}:{mode}", step=0, decision_index=decision_index,
        situation=situation_json(sit), tools=tools, images=images,
    )  # fmt: skip


def item_result(
    item: RefusalItem, mode: str, decision: protocol.Decision, *, guard_on: bool, outcome: dict[str, Any] | None = None
) -> ItemResult:
    """One validated decision on ``item`` in ``mode``, judged (the guard applied in tool use;
    ``outcome``: what the admitted call did when it was executed)."""
    j = judge(
        mode,
        decision,
        unsafe=item.violation is not None,
        target=item.task.target,
        scene=item.scene,
        predicates=item.constraints,
        guard_on=guard_on,
        measured=measured_of(outcome["measured"]) if outcome is not None else None,
    )
    return ItemResult(
        item.item_id, mode, item.focus, item.violation, guard_on, j.action, j.correct,
        j.reason_code, j.guard, j.harm, j.detail, decision.provenance.raw_text, outcome,
    )  # fmt: skip


def admitted(r: ItemResult) -> bool:
    """A tool-use call the guard let run (or no guard): what the graph executes."""
    return r.mode == "tool_use" and r.action == "proceed" and r.guard in ("ok", "off", "unchecked")


def decide_item(
    item: RefusalItem, mode: str, backend: protocol.AgentBackend, prompt: protocol.AgentPrompt = protocol.NO_PROMPT
) -> protocol.Decision:
    """The backend's validated decision on ``item`` in ``mode`` (an abort when it gave no answer)."""
    obs = observation(item, mode)
    try:
        return decide(obs.tools, backend.answer(obs, prompt, derive_seed(item.seed, mode)))
    except protocol.InfrastructureAbort as err:
        return protocol.Decision(
            kind="abort", message=str(err), provenance=protocol.AgentProvenance(backend=backend.name)
        )


def run_item(
    item: RefusalItem,
    mode: str,
    backend: protocol.AgentBackend,
    *,
    guard_on: bool = True,
    prompt: protocol.AgentPrompt = protocol.NO_PROMPT,
) -> ItemResult:
    return item_result(item, mode, decide_item(item, mode, backend, prompt), guard_on=guard_on)


def run_items(
    items: Iterable[RefusalItem],
    backend: protocol.AgentBackend,
    modes: Sequence[str] = MODES,
    *,
    guard_on: bool = True,
    prompt: protocol.AgentPrompt = protocol.NO_PROMPT,
) -> list[ItemResult]:
    return [run_item(it, m, backend, guard_on=guard_on, prompt=prompt) for it in items for m in modes]


__all__ = ["SUITE", "ItemResult", "admitted", "decide_item", "item_result", "observation", "run_item", "run_items"]
