"""What the graph run adds to the core: the refusal situation is closed and renders through the
shipped prompt, the project's Agent with the ReferenceAgent decides as the suite's reference,
the context carries the guard switch and the modes, and a verdict says what the guard did."""

from __future__ import annotations

from argparse import Namespace
from pathlib import Path

import pytest
from pydantic import ValidationError

from alpha_matrix.cli.suite import suite_graph
from alpha_matrix.core.agent.agent import Agent
from alpha_matrix.core.agent.prompts import default_prompt, render
from alpha_matrix.core.agent.reference import ReferenceAgent
from alpha_matrix.core.agent.situation import parse_situation
from alpha_matrix.core.suites.context import context_json
from alpha_matrix.core.suites.refusal.context import RefusalContext
from alpha_matrix.core.suites.refusal.evaluate import item_result, observation
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.modes import MODES
from alpha_matrix.core.suites.refusal.plugin import SUITE as REFUSAL
from alpha_matrix.core.suites.refusal.suite import verdict_json
from alpha_matrix.core.suites.registry import parse_context

SHA = "0" * 64


def test_the_situation_is_closed_and_holds_no_label(items: list[RefusalItem]) -> None:
    obs = observation(items[0], "tool_use")
    assert parse_situation(obs, REFUSAL).suite == "refusal"
    for extra in ({"violation": "lift"}, {"constraints_typed": []}):
        with pytest.raises(ValidationError):
            parse_situation(obs.model_copy(update={"situation": {**obs.situation, **extra}}), REFUSAL)
    with pytest.raises(ValidationError):  # the scene is schema-checked too
        parse_situation(obs.model_copy(update={"situation": {**obs.situation, "scene": {"objects": []}}}), REFUSAL)


def test_the_shipped_prompt_renders_the_brief_and_the_moment(items: list[RefusalItem]) -> None:
    item = items[1]
    prompt = render(observation(item, "box"), REFUSAL)
    assert item.instruction in prompt.system and item.constraint_text in prompt.system
    assert '"mode":"box"' in prompt.user and item.scene.objects[0].name in prompt.user
    assert "box(" in prompt.system and "refuse(" in prompt.system  # the mode's tools
    assert prompt.template_version == default_prompt(REFUSAL).version == "agent_refusal_v1"
    assert "violation" not in prompt.system + prompt.user and item.focus not in prompt.user


def test_the_agent_with_the_reference_backend_is_right_in_every_mode(items: list[RefusalItem]) -> None:
    agent = Agent(ReferenceAgent(REFUSAL), REFUSAL)
    for item in items[:28]:
        for i, mode in enumerate(MODES):
            decision = agent.decide(observation(item, mode, episode_id=f"refusal-{item.item_id}", decision_index=i))
            assert decision.kind == "tool_call" and decision.provenance.template_version == "agent_refusal_v1"
            assert item_result(item, mode, decision, guard_on=True).correct, (item.item_id, mode)


def test_the_context_round_trips_and_rejects_an_unknown_mode() -> None:
    ctx = RefusalContext(agent="reference", guards=False, modes=("text", "tool_use"), scenarios_sha256=SHA)
    assert parse_context(context_json(ctx), "refusal") == ctx
    with pytest.raises(ValueError, match="modes"):
        parse_context(context_json(ctx).replace('"tool_use"', '"juggling"'), "refusal")
    with pytest.raises(ValueError, match="not 'alerts'"):
        parse_context(context_json(ctx), "alerts")


def _args(tmp: Path, scenarios: str, **flags: object) -> Namespace:
    base = {"suite": "refusal", "config": None, "scenarios": None, "set": [], "run_id": "t", "runs_dir": None}
    (tmp / "s.yaml").write_text(scenarios)
    return Namespace(**{**base, "scenarios": str(tmp / "s.yaml"), "agent": None, "guards": None, "decide_every": None, **flags})  # fmt: skip


@pytest.mark.parametrize(
    ("flag", "file_guard", "guards"), [(None, "true", True), ("off", "true", False), ("on", "false", False)]
)
def test_the_graph_context_needs_the_flag_and_the_file_for_the_guard(
    tmp_path: Path, flag: str | None, file_guard: str, guards: bool
) -> None:
    graph, _ = suite_graph(_args(tmp_path, f"count: 0\nmodes: [box, text]\nguard: {file_guard}\n", guards=flag))
    ctx = parse_context(graph.node("suite_runner").parameters["context_json"], "refusal")
    assert isinstance(ctx, RefusalContext)
    assert (ctx.agent, ctx.guards, ctx.modes) == ("reference", guards, ("box", "text"))
    assert graph.node("refusal_executive").parameters["agent"] == "reference"  # the suite's default agent


def test_a_verdict_says_whether_the_guard_admitted_the_call(items: list[RefusalItem]) -> None:
    unsafe = next(i for i in items if i.violation is not None)

    class Asks:  # proceeds with the asked call whatever the constraints say
        name = "asks"

        def answer(self, obs, prompt, seed):  # type: ignore[no-untyped-def]
            brief = {**obs.situation["brief"], "constraints": ""}
            return ReferenceAgent(REFUSAL).answer(obs.model_copy(update={"situation": {**obs.situation, "brief": brief}}), prompt, seed)  # fmt: skip

    decision = Agent(Asks(), REFUSAL).decide(observation(unsafe, "tool_use"))
    on = verdict_json("e", 3, item_result(unsafe, "tool_use", decision, guard_on=True))
    off = verdict_json("e", 3, item_result(unsafe, "tool_use", decision, guard_on=False))
    assert (on["admitted"], on["guard"], on["harm"]) == (False, unsafe.violation, False)
    assert (off["admitted"], off["guard"], off["harm"]) == (True, "off", True)
    assert not on["moved"] and not off["moved"]
