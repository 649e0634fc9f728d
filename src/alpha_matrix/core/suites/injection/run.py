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
        return decide(obs.tools, backend.answer(obs, NO_PROMPT, derive_seed(it.refusal.seed, "tool_use")))
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
    gauge_scene: Any = None
    for it in items:
        if it.gauge:
            if gauge_scene is None:
                from alpha_matrix.core.suites.gauge.scene import GaugeScene

                gauge_scene = GaugeScene()
            out.append(gauge_offline(it, backend, gauge_scene, agent=agent, guard_on=guard_on))
            continue
        if it.alert is not None:
            assert world is not None, "an alert_payload item runs its task: a world is needed"
            out.append(alert_offline(it, backend, world, agent=agent, guard_on=guard_on))
            continue
        decision = decide_one(it, backend)
        r = judged(it, decision, guard_on)
        samples: list[Any] = []
        if world is not None and admitted(r):
            call = call_of(decision)
            motion, samples = run_on_world(world, it.refusal.scene, call, it.refusal.seed)
            r = judged(it, decision, guard_on, outcome_json(motion, it.refusal.scene, call, samples))
        out.append(
            result_of(it, r, samples, agent=agent, guards=guard_on, prompt="plain", called=called_object(decision))
        )
    if gauge_scene is not None:
        gauge_scene.close()
    return out


def alert_offline(
    it: InjectionItem, backend: AgentBackend, world: World, *, agent: str, guard_on: bool
) -> dict[str, Any]:
    """An alert_payload item as the executive runs it, on a plain World: the task to the lift, the
    alert decided, then the rest or a hold as long."""
    from alpha_matrix.core.agent.decide import decide
    from alpha_matrix.core.robot.pick_place import OfflineRobot
    from alpha_matrix.core.seeds import derive_seed
    from alpha_matrix.core.suites.alerts.scenarios import load_alert_policy
    from alpha_matrix.core.suites.injection.alert_host import (
        SPLIT,
        alert_observation,
        alert_outcome,
        alert_result,
        continues,
        rest_or_hold,
    )
    from alpha_matrix.core.suites.refusal.execute import body_specs, plan_motion

    policy = load_alert_policy().policy
    item, robot = it.refusal, OfflineRobot(world)
    world.set_objects(body_specs(item.scene))
    motion = plan_motion(item.scene, item.call, robot.reachable)
    robot.reset(body_specs(item.scene), item.seed)
    first = robot.run(motion.commands[:SPLIT])
    alert_step = first[-1].step
    obs = alert_observation(it, it.name, alert_step)
    try:
        decision = decide(obs.tools, backend.answer(obs, NO_PROMPT, derive_seed(item.seed, "alert")))
    except InfrastructureAbort as err:
        decision = Decision(kind="abort", message=str(err), provenance=AgentProvenance(backend=backend.name))
    go_on, _, _ = continues(it, decision, policy, guard_on)
    samples = first + robot.run(rest_or_hold(motion.commands, go_on))
    out = alert_outcome(it, decision, policy, guard_on, alert_step, samples)
    return alert_result(it, decision, out, policy, agent=agent, guards=guard_on, prompt="plain")


def gauge_offline(
    it: InjectionItem, backend: AgentBackend, scene: Any, *, agent: str, guard_on: bool
) -> dict[str, Any]:
    """A gauge_face item as the executive runs it: the render, the classical reader, the agent loop."""
    from alpha_matrix.core.agent.decide import decide
    from alpha_matrix.core.seeds import derive_seed
    from alpha_matrix.core.suites.gauge.agent_run import run_agent
    from alpha_matrix.core.suites.injection.gauge_host import gauge_result, shown_gauge

    g = it.gauge_request
    face, pixels, reader = shown_gauge(it, scene, it.name)

    def ask(obs: Any) -> Decision:
        try:
            return decide(obs.tools, backend.answer(obs, NO_PROMPT, derive_seed(g.seed, obs.decision_index)))
        except InfrastructureAbort as err:
            return Decision(kind="abort", message=str(err), provenance=AgentProvenance(backend=backend.name))

    decisions = run_agent(it.name, face, pixels, reader, ask, images=False, max_decisions=3, face_text=it.text or None)
    return gauge_result(it, decisions, agent=agent, guards=guard_on, prompt="plain")


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
