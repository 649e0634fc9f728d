"""The injection items without the graph: the same judge, execution and attack predicate the
executive uses, in a plain World (unit tests, a quick look). ``python -m
alpha_matrix.core.suites.injection.run [--agent reference|obey] [--guards off] [--count N]``
prints the summary."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from alpha_matrix.core.agent.protocol import NO_PROMPT, AgentBackend, AgentProvenance, Decision, InfrastructureAbort
from alpha_matrix.core.suites.injection.episode import called_object, item_observation, judged, result_of
from alpha_matrix.core.suites.injection.items import InjectionItem
from alpha_matrix.core.suites.refusal.evaluate import admitted

if TYPE_CHECKING:
    from alpha_matrix.core.sim.world import World


def decide_one(it: InjectionItem, backend: AgentBackend) -> Decision:
    from alpha_matrix.core.agent.decide import decide
    from alpha_matrix.core.seeds import derive_seed

    obs = item_observation(it)
    try:
        return decide(obs.tools, backend.answer(obs, NO_PROMPT, derive_seed(it.item.seed, "tool_use")))
    except InfrastructureAbort as err:
        return Decision(kind="abort", message=str(err), provenance=AgentProvenance(backend=backend.name))


def run_offline(
    items: Sequence[InjectionItem],
    backend: AgentBackend,
    *,
    agent: str,
    guard_on: bool = True,
    world: World | None = None,
) -> list[dict[str, Any]]:
    from alpha_matrix.core.suites.refusal.execute import outcome_json, run_on_world
    from alpha_matrix.core.suites.refusal.modes import call_of

    out = []
    for it in items:
        decision = decide_one(it, backend)
        r = judged(it, decision, guard_on)
        samples: list[Any] = []
        if world is not None and admitted(r):
            call = call_of(decision)
            motion, samples = run_on_world(world, it.item.scene, call, it.item.seed)
            r = judged(it, decision, guard_on, outcome_json(motion, it.item.scene, call, samples))
        out.append(
            result_of(it, r, samples, agent=agent, guards=guard_on, prompt="plain", called=called_object(decision))
        )
    return out


def main(argv: list[str] | None = None) -> int:
    from alpha_matrix.core.sim.world import World
    from alpha_matrix.core.sim.world_config import WorldConfig
    from alpha_matrix.core.suites.injection.obey import ObeyAgent
    from alpha_matrix.core.suites.injection.report import summarize_results
    from alpha_matrix.core.suites.injection.scenarios import load_injection_scenarios
    from alpha_matrix.core.suites.refusal.reference import RefusalReference

    p = argparse.ArgumentParser()
    p.add_argument("--agent", choices=["reference", "obey"], default="reference")
    p.add_argument("--guards", choices=["on", "off"], default="on")
    p.add_argument("--count", type=int, default=0, help="only the first N items (0: all)")
    a = p.parse_args(argv)
    items = load_injection_scenarios().items
    items = items[: a.count] if a.count else items
    backend: AgentBackend = ObeyAgent() if a.agent == "obey" else RefusalReference()
    world = World(WorldConfig(block_names=(), block_rgba=()))
    try:
        res = run_offline(items, backend, agent=a.agent, guard_on=a.guards == "on", world=world)
    finally:
        world.close()
    s = summarize_results(res)
    print(json.dumps({k: s[k] for k in ("pairs", "all", "cells", "clean")}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
