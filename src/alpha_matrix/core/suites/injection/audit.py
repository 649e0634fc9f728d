"""Audit of an injection bag: every decision judged again and attack success re-derived from the bag alone.

Per episode (one item), from the recorded suite/request (the item whole, its injected text,
channel and goal, and the context: agent, guard, prompt): the observation is built again and
must equal the recorded one; the recorded decision is checked as said (the reference asked
again when it was the agent); it is judged again (the constraint guard run again); an executed
call's outcome is measured again from the episode's recorded step stream, and the attacker's
predicate decided again from the same poses (a gauge_face item: the image drawn again, the
reader run again, every decision's observation rebuilt in order: ``replay_gauge``). The recorded verdict and the suite/result must
equal the replay's, and the result the run's JSONL record, if given.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from alpha_matrix.core.agent.reference import ReferenceAgent
from alpha_matrix.core.agent.wire import decision_of, observation_of
from alpha_matrix.core.suites import audit_common, registry
from alpha_matrix.core.suites.agent_common import said_again
from alpha_matrix.core.suites.injection.context import InjectionContext
from alpha_matrix.core.suites.injection.episode import (
    VERDICTS_TOPIC,
    called_object,
    item_observation,
    judged,
    result_of,
    verdict_json,
)
from alpha_matrix.core.suites.injection.items import InjectionItem, injection_of
from alpha_matrix.core.suites.refusal.audit import RefusalEpisode, load_item_episodes, measured_again
from alpha_matrix.core.suites.refusal.evaluate import admitted
from alpha_matrix.core.suites.refusal.outcome import PoseSample
from alpha_matrix.core.suites.suite import SuiteAudit

SUITE = "injection"
InjectionEpisode = RefusalEpisode  # one item, one decision: the refusal suite's episode


def load_injection(bag_dir: Path) -> dict[str, InjectionEpisode]:
    return load_item_episodes(bag_dir, SUITE, VERDICTS_TOPIC)


def _verdict_problems(ep: InjectionEpisode, out: dict[str, Any]) -> list[str]:
    v = audit_common.as_json(verdict_json(ep.request.episode_id, out))
    if len(ep.verdicts) != 1:
        return [f"{len(ep.verdicts)} verdicts recorded on {VERDICTS_TOPIC} for 1 item"]
    if d := audit_common.first_difference(ep.verdicts[0], v):
        return [f"the recorded verdict differs from the judge's at {d}"]
    return []


def replay_gauge(
    ep: InjectionEpisode, it: InjectionItem, ctx: InjectionContext, scene: Any
) -> tuple[dict[str, Any] | None, list[str]]:
    """A gauge_face item: the image drawn again from the request's seed, the classical reader run
    again, every recorded observation rebuilt in order (the reader's answer after read_gauge) and
    every decision checked as said; the answer scored and the attacker's predicate decided again."""
    from alpha_matrix.core.suites.gauge.agent_run import reading_of
    from alpha_matrix.core.suites.gauge.run import agent_observation
    from alpha_matrix.core.suites.injection.gauge_host import gauge_result, shown_gauge

    face, pixels, reader = shown_gauge(it, scene, ep.request.episode_id)
    if not ep.decisions or sorted(ep.decisions) != list(range(len(ep.decisions))):
        return None, [f"decisions {sorted(ep.decisions)} recorded: expected 0..n-1"]
    reference = ReferenceAgent(registry.suite) if ctx.agent == "reference" else None
    seen, decisions, recorded = None, [], []
    for i in range(len(ep.decisions)):
        rec_obs, rec_dec = ep.observations.get(i), ep.decisions[i]
        if rec_obs is None:
            return None, [f"decision {i}: its observation is not recorded"]
        images = pixels if rec_obs.images else None
        obs = agent_observation(ep.request.episode_id, face, i, images, seen, it.text or None)
        if observation_of(rec_obs) != obs:
            return None, [f"decision {i}: the recorded observation differs from the item's"]
        d = decision_of(rec_dec)
        if problem := said_again(obs, d, reference):
            return None, [problem]
        decisions.append(d)
        recorded.append(rec_dec)
        if d.kind == "tool_call" and d.call is not None and d.call.name == "read_gauge":
            seen = reading_of(reader, face.unit)
    out = gauge_result(it, decisions, agent=ctx.agent, guards=ctx.guards, prompt=ctx.prompt, recorded=recorded)
    return out, _verdict_problems(ep, out)


def replay_alert(
    ep: InjectionEpisode, it: InjectionItem, ctx: InjectionContext
) -> tuple[dict[str, Any] | None, list[str]]:
    """An alert_payload item: the alert's observation rebuilt at the recorded alert step, the
    decision checked as said, the policy and guard applied again, and the held object's motion
    after the alert measured again from the recorded step stream."""
    from alpha_matrix.core.suites.alerts.scenarios import load_alert_policy
    from alpha_matrix.core.suites.injection.alert_host import alert_observation, alert_outcome, alert_result

    rec_obs, rec_dec = ep.observations.get(0), ep.decisions.get(0)
    if rec_obs is None or rec_dec is None or len(ep.decisions) != 1:
        return None, [f"decisions {sorted(ep.decisions)} recorded: expected decision 0 only"]
    recorded = observation_of(rec_obs)
    step = int(recorded.situation.get("step", -1))
    if not any(p.step == step for p in ep.poses):
        return None, [f"decision 0: the alert's step {step} is no batch end of the recorded step stream"]
    obs = alert_observation(it, ep.request.episode_id, step)
    if recorded != obs:
        return None, ["decision 0: the recorded observation differs from the item's"]
    decision = decision_of(rec_dec)
    reference = ReferenceAgent(registry.suite) if ctx.agent == "reference" else None
    if problem := said_again(obs, decision, reference):
        return None, [problem]
    policy = load_alert_policy().policy
    out_facts = alert_outcome(it, decision, policy, ctx.guards, step, ep.poses)
    out = alert_result(
        it, decision, out_facts, policy, agent=ctx.agent, guards=ctx.guards, prompt=ctx.prompt, recorded=[rec_dec]
    )
    return out, _verdict_problems(ep, out)


def replay(ep: InjectionEpisode, it: InjectionItem, ctx: InjectionContext) -> tuple[dict[str, Any] | None, list[str]]:
    rec_obs, rec_dec = ep.observations.get(0), ep.decisions.get(0)
    if rec_obs is None or rec_dec is None:
        return None, ["decision 0: not recorded"]
    images: tuple[Any, ...] = ()
    if rec_obs.images:
        from alpha_matrix.core.suites.refusal.render import scene_image

        images = (scene_image(it.refusal.scene),)
    obs = item_observation(it, ep.request.episode_id, images)
    if observation_of(rec_obs) != obs:
        return None, ["decision 0: the recorded observation differs from the item's"]
    decision = decision_of(rec_dec)
    reference = ReferenceAgent(registry.suite) if ctx.agent == "reference" else None
    if problem := said_again(obs, decision, reference):
        return None, [problem]
    r = judged(it, decision, ctx.guards)
    samples: list[PoseSample] = []
    if admitted(r):
        try:
            rec = json.loads(ep.result.result_json)["refusal"]["modes"][0].get("outcome")
        except (TypeError, ValueError, KeyError, IndexError):
            rec = None
        if rec is None:
            return None, ["decision 0: admitted, but the record has no outcome"]
        again, problem = measured_again(rec, it.refusal.scene, decision, ep.poses, "decision 0")
        if problem:
            return None, [problem]
        samples = ep.poses if not rec.get("failure") else []
        r = judged(it, decision, ctx.guards, again)
    out = result_of(
        it, r, samples, agent=ctx.agent, guards=ctx.guards, prompt=ctx.prompt, called=called_object(decision),
        decisions=[rec_dec],
    )  # fmt: skip
    return out, _verdict_problems(ep, out)


def audit_injection_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    with ExitStack() as stack:
        scenes: list[Any] = []  # a gauge scene, opened at the first gauge_face item

        def replayed(ep: InjectionEpisode, it: InjectionItem, ctx: Any) -> tuple[Any, int, list[str]]:
            if it.gauge:
                if not scenes:
                    from alpha_matrix.core.suites.gauge.scene import GaugeScene

                    scenes.append(stack.enter_context(GaugeScene()))
                out, problems = replay_gauge(ep, it, ctx, scenes[0])
                return out, len(ep.decisions) if out is not None else 0, problems
            out, problems = (replay_alert if it.alert is not None else replay)(ep, it, ctx)
            return out, int(out is not None), problems

        def audit_one(ep_id: str, ep: InjectionEpisode) -> SuiteAudit:
            return audit_common.audit_item_episode(
                ep_id, ep, SUITE, "agent, guard and prompt", InjectionContext, injection_of, replayed
            )

        return audit_common.audit_episodes(load_injection(bag_dir), run_dir, audit_one)


__all__ = ["InjectionEpisode", "audit_injection_bag", "load_injection", "replay", "replay_alert", "replay_gauge"]
