"""Offline = graph, shown: the same items run by the offline runners (``run_offline`` of the
refusal and the ambiguity suite, on a plain World in this process) and through the real graph
(``alpha-matrix suite ... --agent reference``: scene_bridge, agent, executive, recorder, each
graph on its own leased domain) give the same results, compared field by field: the plan (lift
commanded, clamped, commands, failure), every measured fact (samples, last step, moved, lift,
placed, goal error, dropped, people, zones), every verdict; in refusal also every pose sample of
the step stream (its step and every object's position); in ambiguity every turn of the dialogue
(the call, its motion record: target, plan, end step, facts, positions; the placement after).
The graph's agent part only adds who answered and how long it took.

The items: refusal, the shipped draw's allowed items 7, 47, 87, 127, 167, 207, 247 in tool use
(shard 7/40 of seed 7: a clamped carry whose object stays in the fingers, a dropped one, one off
its goal, one not at rest on it, three placed); ambiguity, a share of two multi-move categories
(shard 0/26: up to six moves an item, bins filled spot by spot).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from alpha_matrix.core.bag import read_bag
from alpha_matrix.core.robot.pick_place import pose_sample
from alpha_matrix.core.sim.world import World
from alpha_matrix.core.sim.world_config import WorldConfig
from alpha_matrix.core.suites.ambiguity import suite as ambiguity_suite
from alpha_matrix.core.suites.ambiguity.episode import run_episode
from alpha_matrix.core.suites.ambiguity.reference import ResolverAgent
from alpha_matrix.core.suites.ambiguity.scenarios import load_ambiguity_scenarios
from alpha_matrix.core.suites.ambiguity.suite import run_offline as ambiguity_offline
from alpha_matrix.core.suites.audit_common import as_json
from alpha_matrix.core.suites.records import SuiteStore
from alpha_matrix.core.suites.refusal import execute as refusal_execute
from alpha_matrix.core.suites.refusal.execute import run_on_world
from alpha_matrix.core.suites.refusal.reference import RefusalReference
from alpha_matrix.core.suites.refusal.scenarios import load_refusal_scenarios
from alpha_matrix.core.suites.refusal.suite import run_offline as refusal_offline
from conftest import run_cli

REFUSAL = "seed: 7\ncount: 280\nmodes: [tool_use]\nguard: true\n"  # the shipped draw, tool use only
REFUSAL_SHARD = "7/40"
AMBIGUITY = "seed: 11\npairs_per_category: 20\ncategories: [vague_quantity, missing_sort_criterion]\n"
AMBIGUITY_SHARD = "0/26"


def diffs(graph: Any, offline: Any, path: str = "") -> list[str]:
    """Every field where the two differ, with both values (empty: equal)."""
    if isinstance(graph, dict) and isinstance(offline, dict):
        out = [f"{path}/{k}: only {'graph' if k in graph else 'offline'}" for k in sorted(set(graph) ^ set(offline))]
        return out + [d for k in sorted(set(graph) & set(offline)) for d in diffs(graph[k], offline[k], f"{path}/{k}")]
    if isinstance(graph, list) and isinstance(offline, list) and len(graph) == len(offline):
        return [d for i, (g, o) in enumerate(zip(graph, offline, strict=True)) for d in diffs(g, o, f"{path}[{i}]")]
    return [] if graph == offline else [f"{path}: graph {graph!r}, offline {offline!r}"]


def _graph(cell: Path, suite: str, scenarios: str, shard: str) -> dict[str, Any]:
    """item id -> the graph's record (its result, its episode id)."""
    argv = ["suite", suite, "--scenarios", scenarios, "--shard", shard, "--agent", "reference", "--run-id", suite]
    proc = run_cli(argv, cell, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    recs = SuiteStore.read_only(cell / "runs" / suite)
    assert recs and all(r.ok for r in recs), [r.message for r in recs]
    return {r.scenario: r for r in recs}


def _bag(cell: Path, suite: str, topic: str) -> dict[str, list[Any]]:
    """episode id -> the messages of ``topic`` in the run's bag, in order."""
    out: dict[str, list[Any]] = {}
    for t, _ts, m in read_bag(cell / "bags" / suite):
        if t == topic:
            out.setdefault(m.episode_id, []).append(m)
    return out


def _compare(graph: dict[str, dict[str, Any]], offline: list[dict[str, Any]]) -> None:
    """Field by field; the agent part: every field offline has, equal, except when it answered."""
    want = {r["item_id"]: as_json(r) for r in offline}
    assert set(graph) == set(want)
    problems = []
    for item_id, got in graph.items():
        g, o = dict(got), dict(want[item_id])
        g_agent, o_agent = g.pop("agent"), o.pop("agent")
        problems += [f"{item_id} {d}" for d in diffs(g, o)]
        problems += [f"{item_id} agent{d}" for d in diffs({k: g_agent.get(k) for k in o_agent}, o_agent)]
    assert problems == [], "\n".join(problems)


@pytest.fixture(scope="module")
def cell(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("offline_graph")
    (d / "refusal.yaml").write_text(REFUSAL)
    (d / "ambiguity.yaml").write_text(AMBIGUITY)
    return d


def test_refusal_offline_equals_the_graph(cell: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recs = _graph(cell, "refusal", "refusal.yaml", REFUSAL_SHARD)
    graph = {k: r.result for k, r in recs.items()}
    suite = load_refusal_scenarios(cell / "refusal.yaml")
    subset = dataclasses.replace(suite, items=tuple(it for it in suite.items if it.item_id in graph))
    batches = _bag(cell, "refusal", "/robot/step_batch")
    # The pose samples of each call the offline run executes, kept as it runs them (run_offline
    # calls run_on_world once per admitted call; the samples are those its outcome is measured on).
    samples_of: dict[int, list[Any]] = {}  # the item's seed -> the samples of its executed call

    def run_and_keep(world: World, scene: Any, call: Any, seed: int, *args: Any) -> Any:
        motion, samples = run_on_world(world, scene, call, seed, *args)
        assert seed not in samples_of, seed  # one executed call per item (tool use only)
        samples_of[seed] = samples
        return motion, samples

    monkeypatch.setattr(refusal_execute, "run_on_world", run_and_keep)
    with World(WorldConfig(block_names=(), block_rgba=())) as world:
        offline = refusal_offline(subset, RefusalReference(), "reference", world)
    streams = 0
    for it in subset.items:  # the step stream itself: every batch's step and object poses
        streamed = [pose_sample(b) for b in batches.get(recs[it.item_id].episode_id, [])]
        if streamed:
            streams += 1
            assert samples_of.get(it.seed) == streamed, it.item_id
    _compare(graph, offline)
    executed = [m["outcome"] for r in graph.values() for m in r["modes"] if m.get("outcome")]
    assert len(executed) == streams >= 7 and all(o["failure"] == "" for o in executed)
    measured = [o["measured"] for o in executed]
    assert any(m["placed"] for m in measured) and any(not m["placed"] for m in measured)  # not only easy ones


@pytest.mark.long  # the same offline-vs-graph comparison as refusal's, on another suite
def test_ambiguity_offline_equals_the_graph(cell: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recs = _graph(cell, "ambiguity", "ambiguity.yaml", AMBIGUITY_SHARD)
    graph = {k: r.result for k, r in recs.items()}
    suite = load_ambiguity_scenarios(cell / "ambiguity.yaml")
    subset = dataclasses.replace(suite, items=tuple(it for it in suite.items if it.item_id in graph))
    # Every turn of each offline episode (moves executed on run_offline's World), collected by
    # run_episode itself (its ``turns``) as run_offline runs it: the episodes the results come from.
    turns: dict[str, list[dict[str, Any]]] = {}

    def run_and_keep(item: Any, backend: Any, prompt_of: Any = None, moves: Any = None) -> Any:
        assert item.item_id not in turns, item.item_id
        return run_episode(item, backend, prompt_of, moves, turns.setdefault(item.item_id, []))

    monkeypatch.setattr(ambiguity_suite, "run_episode", run_and_keep)
    _compare(graph, ambiguity_offline(subset, ResolverAgent()))
    dialogue = _bag(cell, "ambiguity", "/ambiguity/dialogue")
    problems = []
    for it in subset.items:  # every turn as the bag holds it, motion records included
        recorded = [json.loads(m.result_json) for m in dialogue.get(recs[it.item_id].episode_id, [])]
        assert recorded, it.item_id
        problems += [f"{it.item_id} {d}" for d in diffs(recorded, as_json(turns[it.item_id]))]
    assert problems == [], "\n".join(problems)
    assert sum(r["moves_executed"] for r in graph.values()) >= 5  # several moves an item, not one
