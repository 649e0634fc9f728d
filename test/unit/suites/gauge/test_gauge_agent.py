"""The gauge suite on the agent protocol: the prompt (no answer key), the reference's two paths
(image attached, or read_gauge), answers judged as data, and the agent's score."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from alpha_matrix.core.agent.agent import Agent
from alpha_matrix.core.agent.prompts import render
from alpha_matrix.core.agent.protocol import AgentProvenance, Decision, Observation, ToolCall
from alpha_matrix.core.agent.reference import ReferenceAgent
from alpha_matrix.core.suites.gauge.agent_run import agent_part, run_agent
from alpha_matrix.core.suites.gauge.dataset import make_item
from alpha_matrix.core.suites.gauge.faces import FACES
from alpha_matrix.core.suites.gauge.plugin import SUITE as GAUGE
from alpha_matrix.core.suites.gauge.run import agent_observation, gauge_observation, read_observation, reading_decision
from alpha_matrix.core.suites.gauge.scene import GaugeScene

PROV = AgentProvenance(backend="test")


@pytest.fixture(scope="module")
def scene() -> Iterator[GaugeScene]:
    with GaugeScene() as s:
        yield s


def _item(scene: GaugeScene, index: int):  # noqa: ANN202
    item = make_item(scene, 15, index)
    return item, FACES[item.face], scene.render(item.conditions, item.seed).image


@pytest.mark.parametrize("images", [True, False])
def test_the_prompt_holds_the_data_sheet_and_no_answer_key(scene: GaugeScene, images: bool) -> None:
    item, face, image = _item(scene, 4)
    obs = agent_observation("gauge-g004", face, 0, image if images else None, None)
    prompt = render(obs, GAUGE)
    text = prompt.system + prompt.user
    assert face.unit in prompt.system and f"{face.hi:g}" in prompt.system
    assert f"{item.conditions.value}" not in text and "readable" not in text
    assert item.degradation not in prompt.user  # the system text lists every kind of trouble, the moment none
    assert ("- read_gauge(" in text) is (not images)  # only a text agent is offered the reader
    assert [t.name for t in obs.tools] == (
        ["report_reading", "cannot_read"] if images else ["read_gauge", "report_reading", "cannot_read"]
    )


@pytest.mark.parametrize("index", [0, 1])  # a readable and an unreadable item
def test_the_reference_answers_as_the_reader_on_both_paths(scene: GaugeScene, index: int) -> None:
    _, face, image = _item(scene, index)
    reader = reading_decision(read_observation(gauge_observation("e", face, image)))
    agent = Agent(ReferenceAgent(GAUGE), GAUGE)
    for images in (True, False):
        decisions = run_agent("e", face, image, reader, agent.decide, images=images, max_decisions=3)
        assert [d.call.name for d in decisions if d.call] == (
            [reader.call.name] if images else ["read_gauge", reader.call.name]  # type: ignore[union-attr]
        )
        final = decisions[-1].call
        assert final is not None and final.arguments.get("value") == (reader.call.arguments.get("value"))  # type: ignore[union-attr]


def _answers(*decisions: Decision):  # noqa: ANN202
    it = iter(decisions)
    return lambda _obs: next(it)


def call(name: str, **args: object) -> Decision:
    return Decision(kind="tool_call", call=ToolCall(name=name, arguments=args), provenance=PROV)


def test_invalid_answers_are_counted_and_asked_again_and_an_abort_ends(scene: GaugeScene) -> None:
    _, face, image = _item(scene, 0)
    reader = reading_decision(read_observation(gauge_observation("e", face, image)))
    bad = Decision(kind="invalid", invalid="unknown_tool", invalid_detail="x", provenance=PROV)
    seen: list[Observation] = []

    def ask(obs: Observation) -> Decision:
        seen.append(obs)
        return [bad, call("read_gauge"), call("report_reading", value=5.0, unit=face.unit)][len(seen) - 1]

    decisions = run_agent("e", face, image, reader, ask, images=False, max_decisions=3)
    assert len(decisions) == 3 and seen[2].situation["reader"] is not None and seen[1].situation["reader"] is None
    part = agent_part(decisions, "test", face.unit, face.span, 5.0, True)
    assert part["invalid"] == 1 and part["used_reader"] and part["accurate"] and part["value"] == 5.0
    abort = Decision(kind="abort", message="down", provenance=PROV)
    decisions = run_agent("e", face, image, reader, _answers(abort), images=True, max_decisions=3)
    part = agent_part(decisions, "test", face.unit, face.span, 5.0, False)
    assert part["aborts"] == 1 and part["abstained"] and not part["hallucinated"]


def test_a_value_for_an_unreadable_gauge_is_a_hallucination_whatever_its_wrapping() -> None:
    face = FACES["pressure"]
    assert agent_part([call("report_reading", value=3.0, unit="bar")], "t", "bar", 10.0, 3.0, False)["hallucinated"]
    wrong_unit = agent_part([call("report_reading", value=3.0, unit="psi")], "t", "bar", 10.0, 3.0, False)
    assert not wrong_unit["hallucinated"] and wrong_unit["reason"].startswith("not a valid reading")
    said = agent_part([Decision(kind="message", message="3 bar", provenance=PROV)], "t", face.unit, 10.0, 3.0, False)
    assert said["value"] is None and said["messages"] == 1
    assert json.dumps(said)  # JSON-able


def test_the_part_says_who_answered_and_how_long_each_decision_took() -> None:
    prov = AgentProvenance(backend="llamacpp", model="m.gguf", digest="sha256:ab", template_version="agent_gauge_v1",
                           latency_s=1.2345678, raw_text='{"tool": "report_reading"}')  # fmt: skip
    first = Decision(kind="invalid", invalid="no_json", invalid_detail="no tool", provenance=prov)
    answer = call("report_reading", value=3.0, unit="bar")
    part = agent_part([first, answer], "llm", "bar", 10.0, 3.0, True)
    assert (part["backend"], part["model"], part["digest"], part["template_version"]) == (
        "llamacpp", "m.gguf", "sha256:ab", "agent_gauge_v1"
    )  # fmt: skip
    assert part["latencies_s"] == [1.234568, 0.0]
    assert part["raw"] == [[0, '{"tool": "report_reading"}', "no tool"], [1, "", ""]]
