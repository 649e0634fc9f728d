"""The audit's replay: an episode recorded as the executive records it (its moves run on a plain
World, the step stream's poses kept as the bag keeps them) replays clean; a changed decision, turn,
result or pose is a problem; a model's decision is judged from the record, the reference is asked
again. Messages are duck-typed stand-ins of the bag's (core/agent/wire.py reads them)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from alpha_matrix.core.agent.decide import decide
from alpha_matrix.core.agent.protocol import NO_PROMPT, AgentProvenance, Decision, Observation, RawAnswer
from alpha_matrix.core.robot.pick_place import PoseSample
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.ambiguity.audit import AmbiguityEpisode, _audit_one, replay_episode
from alpha_matrix.core.suites.ambiguity.context import AmbiguityContext
from alpha_matrix.core.suites.ambiguity.episode import EpisodeRun, turn_json
from alpha_matrix.core.suites.ambiguity.items import Item, item_json
from alpha_matrix.core.suites.ambiguity.physical import PhysicalMoves, world_robot
from alpha_matrix.core.suites.ambiguity.reference import ResolverAgent
from alpha_matrix.core.suites.ambiguity.suite import graph_result


def _obs_msg(obs: Observation) -> SimpleNamespace:
    tools = [SimpleNamespace(name=t.name, description=t.description, parameters_json=json.dumps(t.parameters))
             for t in obs.tools]  # fmt: skip
    return SimpleNamespace(
        suite=obs.suite, episode_id=obs.episode_id, step=obs.step, decision_index=obs.decision_index,
        situation_json=json.dumps(obs.situation), tools=tools, images=[],
    )  # fmt: skip


def _dec_msg(d: Decision, index: int) -> SimpleNamespace:
    return SimpleNamespace(
        decision_index=index, kind=d.kind, tool=d.call.name if d.call else "",
        arguments_json=json.dumps(d.call.arguments) if d.call else "", message=d.message, invalid=d.invalid or "",
        invalid_detail=d.invalid_detail, provenance=SimpleNamespace(**d.provenance.model_dump()), attempts=[],
    )  # fmt: skip


class _Mumbles:
    """A 'model' whose first answer is no JSON, then the resolver's."""

    name = "ollama"

    def answer(self, obs: Observation, prompt: Any, seed: int) -> RawAnswer:
        if obs.decision_index == 0:
            return RawAnswer(text="hm", provenance=AgentProvenance(backend=self.name, raw_text="hm"))
        return ResolverAgent().answer(obs, prompt, seed)


_WORLD: list[World] = []


@pytest.fixture(scope="module", autouse=True)
def world() -> Iterator[World]:
    _WORLD.append(World(WorldConfig(block_names=(), block_rgba=())))
    yield _WORLD[0]
    _WORLD.pop().close()


def _recorded(item: Item, agent: str = "reference", backend: Any = None, physical: bool = True) -> AmbiguityEpisode:
    """The episode as the executive would put it in the bag (default: the reference resolver deciding)."""
    ep, backend = AmbiguityEpisode(), backend or ResolverAgent()
    robot = world_robot(_WORLD[0], item.scene, item.seed)
    run_commands = robot.run
    robot.run = lambda cmds: ep.poses.extend(got := run_commands(cmds)) or got  # the bag's /robot/step_batch
    run = EpisodeRun(item, PhysicalMoves(item.scene, robot) if physical else None)
    while (obs := run.observation()) is not None:
        d = decide(obs.tools, backend.answer(obs, NO_PROMPT, 0))
        ep.observations.append(_obs_msg(obs))
        ep.decisions.append(_dec_msg(d, obs.decision_index))
        ep.turns.append(SimpleNamespace(result_json=turn_json(run.apply(d))))
    result = graph_result(item, run.result(), agent, ep.decisions)
    ep.request = SimpleNamespace(scenario_json=json.dumps(item_json(item)))
    ep.result = SimpleNamespace(ok=True, result_json=json.dumps(result))
    return ep


@pytest.fixture(scope="module")
def items(shipped) -> list[Item]:
    return [i for i in shipped.items if i.category == "vague_quantity"][:2]  # a clear and an ambiguous one


def test_a_recorded_episode_replays_clean(items) -> None:
    for it in items:
        ep = _recorded(it)
        n, problems = _audit_one(ep, AmbiguityContext(agent="reference"))
        assert problems == [] and n == len(ep.turns) >= 2, (it.item_id, problems)
        rec = json.loads(ep.result.result_json)
        assert rec["execution"] == "physical" and rec["moves_executed"] == rec["moves_placed"] >= 1 and ep.poses


def test_a_symbolic_bag_replays_on_the_placement_table(items) -> None:
    ep = _recorded(items[0], physical=False)
    assert not ep.poses and json.loads(ep.result.result_json)["execution"] == "symbolic"
    assert _audit_one(ep, AmbiguityContext(agent="reference", execution="symbolic"))[1] == []
    assert any("differs" in p for p in _audit_one(ep, AmbiguityContext(agent="reference"))[1])


def test_a_pose_the_bag_does_not_back_is_a_mismatch(items) -> None:
    """The block's last recorded pose moved 5 cm: the replay measures it elsewhere, so the next
    observation (the measured positions) is not the recorded one."""
    ep = _recorded(items[0])
    last = ep.poses[-1]
    moved = json.loads(ep.turns[-2].result_json)["arguments"]["object"]
    x, y, z = last.positions[moved]
    ep.poses[-1] = PoseSample(last.step, {**last.positions, moved: (x + 0.05, y, z)})
    problems = _audit_one(ep, AmbiguityContext(agent="reference"))[1]
    assert problems == ["decision 3: the recorded observation differs from the replay's"], problems


def _tamper_decision(ep: AmbiguityEpisode, index: int, **changes: Any) -> None:
    ep.decisions[index] = SimpleNamespace(**{**vars(ep.decisions[index]), **changes})


def test_a_changed_decision_is_caught_by_asking_the_reference_again(items) -> None:
    ep = _recorded(items[1])  # ambiguous: the reference asks first
    _tamper_decision(ep, 0, tool="task_done", arguments_json="{}")
    _n, problems = _audit_one(ep, AmbiguityContext(agent="reference"))
    assert len(problems) == 1 and "the reference answers ask_clarification" in problems[0]


def test_a_changed_turn_or_result_is_a_mismatch(items) -> None:
    ep = _recorded(items[0])
    turn = json.loads(ep.turns[-1].result_json)
    ep.turns[-1] = SimpleNamespace(result_json=json.dumps({**turn, "placement": {}}))
    assert any("/ambiguity/dialogue differs" in p for p in _audit_one(ep, AmbiguityContext(agent="reference"))[1])
    ep = _recorded(items[0])
    rec = json.loads(ep.result.result_json)
    ep.result = SimpleNamespace(ok=True, result_json=json.dumps({**rec, "achieved": not rec["achieved"]}))
    assert any("suite/result differs" in p for p in _audit_one(ep, AmbiguityContext(agent="reference"))[1])


def test_another_agent_s_decisions_are_replayed_as_recorded(items) -> None:
    """A model's invalid answer is no audit problem: it is what happened, replayed to the same result;
    changed afterwards, the next observation the replay builds is not the recorded one."""
    ep = _recorded(items[1], agent="ollama:m", backend=_Mumbles())
    result, _turns, problems = replay_episode(items[1], ep, "ollama:m")
    assert problems == [] and result is not None and result["invalid"] == 1 and result["asked_first"]
    assert _audit_one(ep, AmbiguityContext(agent="ollama:m"))[1] == []
    assert "is not the context's" in _audit_one(ep, AmbiguityContext(agent="reference"))[1][0]
    _tamper_decision(ep, 0, kind="tool_call", tool="ask_clarification", arguments_json='{"question": "?"}', invalid="")
    assert "decision 1: the recorded observation differs" in _audit_one(ep, AmbiguityContext(agent="ollama:m"))[1][0]


def test_decisions_past_the_end_are_a_problem(items) -> None:
    ep = _recorded(items[0])
    ep.decisions.append(SimpleNamespace(**{**vars(ep.decisions[-1]), "decision_index": len(ep.decisions)}))
    assert any("after the episode ended" in p for p in _audit_one(ep, AmbiguityContext(agent="reference"))[1])
