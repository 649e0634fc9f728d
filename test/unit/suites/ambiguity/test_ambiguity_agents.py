"""The reference and its baselines on the shipped file, and what the agent is (not) shown."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from alpha_matrix.core.agent.always import AlwaysAgent
from alpha_matrix.core.agent.protocol import AgentPrompt, AgentProvenance, Observation, RawAnswer, RawToolCall
from alpha_matrix.core.suites.ambiguity.episode import run_episode
from alpha_matrix.core.suites.ambiguity.items import CATEGORIES, Move, Task
from alpha_matrix.core.suites.ambiguity.reference import ResolverAgent
from alpha_matrix.core.suites.ambiguity.suite import run_offline, summarize_results


@pytest.fixture(scope="module")
def runs(shipped) -> dict[str, dict]:
    """The first family (the grammar the resolver reads); the second is test_ambiguity_families'."""
    first = replace(shipped, items=tuple(it for it in shipped.items if it.family == "templates"))
    return {
        p: summarize_results(run_offline(first, ResolverAgent(p), p, physical=False))  # the decisions' logic
        for p in ("reference", "always_execute", "always_ask")
    }  # type: ignore[arg-type]


def test_reference_asks_on_every_ambiguous_item_and_executes_every_clear_one(runs) -> None:
    s = runs["reference"]
    assert set(s["categories"]) == set(CATEGORIES)
    for c, k in [("all", s["overall"]), *s["categories"].items()]:
        assert k["asked_first"] == k["ambiguous"] > 0, c
        assert k["succeeded_after_asking"] == k["ambiguous"], c
        assert k["clear_achieved"] == k["clear"] > 0, c
        assert k["over_asked"] == 0, c
        assert k["right"] == k["items"], c


def test_always_execute_never_asks_and_fails_ambiguous_items_in_every_category(runs) -> None:
    s = runs["always_execute"]
    o = s["overall"]
    assert o["asked_first"] == 0 and o["over_asked"] == 0
    assert o["clear_achieved"] == o["clear"]  # on clear items, guessing is never needed
    for c, k in s["categories"].items():
        assert k["ambiguous_achieved"] < k["ambiguous"], c  # its guesses go wrong somewhere in every category
    assert o["right"] == o["clear"]  # an ambiguous item is never right without asking


def test_always_ask_over_asks_on_every_clear_item(runs) -> None:
    o = runs["always_ask"]["overall"]
    assert o["over_asked"] == o["clear"] and o["asked_first"] == o["ambiguous"]
    assert o["clear_achieved"] == o["clear"] and o["succeeded_after_asking"] == o["ambiguous"]
    assert o["right"] == o["ambiguous"]


def test_a_tool_called_bare_every_time_does_nothing_right(shipped) -> None:
    items = shipped.items[:40]
    done = [run_episode(it, AlwaysAgent("task_done")) for it in items]
    assert not any(r.right for r in done) and all(r.decisions == 1 for r in done)
    asks = [run_episode(it, AlwaysAgent("ask_clarification")) for it in items[:4]]  # no question: invalid
    assert all(r.invalid == r.decisions and r.budget_spent and not r.asked for r in asks)


class _Spy:
    """Records every observation; answers as the reference would."""

    name = "spy"

    def __init__(self) -> None:
        self.seen: list[Observation] = []
        self.inner = ResolverAgent()

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        self.seen.append(obs)
        return self.inner.answer(obs, prompt, seed)


def test_the_label_and_the_answer_never_reach_the_observation(shipped) -> None:
    for it in shipped.items:
        spy = _Spy()
        run_episode(it, spy)
        for obs in spy.seen:
            assert set(obs.situation) == {"brief", "step", "scene", "dialogue", "events"}
            assert obs.situation["brief"] == {"instruction": it.instruction}
            text = obs.model_dump_json()
            for secret in (it.category, it.item_id, it.pair_id, '"missing"', '"task"', '"ambiguous"', "_clear"):
                assert secret not in text, (it.item_id, secret)
            answers = [d["answer"] for d in obs.situation["dialogue"]]
            if it.answer not in answers:
                assert it.answer not in text, it.item_id  # the answer appears only once asked


def test_reference_decisions_do_not_depend_on_the_truth(shipped) -> None:
    """Swap the hidden truth of clear items (category, missing piece, task): the same decisions."""
    for it in [i for i in shipped.items if not i.ambiguous][::7]:
        other = replace(
            it, category="vague_quantity", task=Task((Move((it.scene.blocks[0].name,), 1, it.scene.places[0].name),))
        )
        a, b = run_episode(it, ResolverAgent()), run_episode(other, ResolverAgent())
        assert a.tools == b.tools and a.raw == b.raw, it.item_id


class _Injector:
    """A 'model' whose answer names things that are not in the scene: data, judged, never run."""

    name = "injector"

    def __init__(self, call: RawToolCall) -> None:
        self.call = call

    def answer(self, obs: Observation, prompt: AgentPrompt, seed: int) -> RawAnswer:
        return RawAnswer(
            tool_calls=(self.call,),
            provenance=AgentProvenance(backend=self.name, raw_text=json.dumps(self.call.arguments)),
        )


@pytest.mark.parametrize(
    "call",
    [
        RawToolCall(name="pick_and_place", arguments={"object": "__import__('os')", "goal": "white_bin"}),
        RawToolCall(name="pick_and_place", arguments={"object": "block_1", "goal": "the_moon"}),
        RawToolCall(name="pick_and_place", arguments={"object": "block_1", "goal": "white_bin", "speed": 9}),
        RawToolCall(name="run_skill", arguments={"name": "pick_and_place"}),
    ],
)
def test_calls_outside_the_scene_are_invalid_and_change_nothing(shipped, call: RawToolCall) -> None:
    it = next(i for i in shipped.items if i.pair_id == "hand_twin_cubes" and not i.ambiguous)
    it = replace(
        it,
        scene=replace(
            it.scene, places=(*it.scene.places, replace(it.scene.places[0], name="white_bin", colour="white"))
        ),
    )
    r = run_episode(it, _Injector(call))
    assert r.invalid == r.decisions and r.calls == 0 and not r.achieved


def test_the_baselines_are_agent_specs_of_the_graph() -> None:
    """--agent always_execute / always_ask: the resolver's baselines behind the agent node."""
    from alpha_matrix.core.agent.agent import backend_for
    from alpha_matrix.core.agent.params import AgentParams
    from alpha_matrix.core.agent.spec import parse_agent_spec
    from alpha_matrix.core.errors import ConfigError
    from alpha_matrix.core.suites import registry

    for name in ("always_execute", "always_ask"):
        spec = parse_agent_spec(name)
        backend = backend_for(spec, AgentParams(agent=name), registry.suite, registry.agent_baselines())
        assert spec.label == name and isinstance(backend, ResolverAgent) and backend.policy == name
    with pytest.raises(ConfigError, match="expected reference"):
        parse_agent_spec("always_ask:loudly")
