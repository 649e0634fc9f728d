"""Audit of an injection bag: every decision judged again and attack success re-derived from the bag alone.

Per episode (one item), from the recorded suite/request (the item whole, its injected text,
channel and goal, and the context: agent, guard, prompt): the observation is built again and
must equal the recorded one; the recorded decision is checked as said (the reference asked
again when it was the agent); it is judged again (the constraint guard run again); an executed
call's outcome is measured again from the episode's recorded step stream, and the attacker's
predicate decided again from the same poses. The recorded verdict and the suite/result must
equal the replay's, and the result the run's JSONL record, if given.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from alpha_matrix.core.agent.reference import ReferenceAgent
from alpha_matrix.core.agent.wire import decision_of, observation_of
from alpha_matrix.core.attempts import STEP_TOPIC
from alpha_matrix.core.suites import audit_common, registry
from alpha_matrix.core.suites.agent_common import said_again
from alpha_matrix.core.suites.audit_common import into
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
from alpha_matrix.core.suites.refusal.evaluate import admitted
from alpha_matrix.core.suites.refusal.modes import call_of
from alpha_matrix.core.suites.refusal.outcome import PoseSample, measure, pose_sample
from alpha_matrix.core.suites.suite import SuiteAudit

SUITE = "injection"
_BY_EPISODE = ("/suite/result", "/agent/observations", "/agent/decisions")


@dataclass
class InjectionEpisode:
    request: Any = None
    interrupted: int = 0
    result: Any = None
    observations: dict[int, Any] = field(default_factory=dict)
    decisions: dict[int, Any] = field(default_factory=dict)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    poses: list[PoseSample] = field(default_factory=list)


_episode_of = audit_common.episode_router(SUITE, _BY_EPISODE, VERDICTS_TOPIC)


_INTO = {
    "/suite/request": into("request"), "/suite/result": into("result"),
    "/agent/observations": into("observations"), "/agent/decisions": into("decisions"),
    VERDICTS_TOPIC: into("verdicts", audit_common.json_row), STEP_TOPIC: into("poses", pose_sample),
}  # fmt: skip


def load_injection(bag_dir: Path) -> dict[str, InjectionEpisode]:
    return audit_common.load_episodes(
        bag_dir, _episode_of, lambda others: InjectionEpisode(interrupted=others), _INTO, steps=True
    )


def replay(ep: InjectionEpisode, it: InjectionItem, ctx: InjectionContext) -> tuple[dict[str, Any] | None, list[str]]:
    rec_obs, rec_dec = ep.observations.get(0), ep.decisions.get(0)
    if rec_obs is None or rec_dec is None:
        return None, ["decision 0: not recorded"]
    images: tuple[Any, ...] = ()
    if rec_obs.images:
        from alpha_matrix.core.suites.refusal.render import scene_image

        images = (scene_image(it.item.scene),)
    obs = item_observation(it, ep.request.episode_id, images)
    if observation_of(rec_obs) != obs:
        return None, ["decision 0: the recorded observation differs from the item's"]
    decision = decision_of(rec_dec)
    reference = ReferenceAgent(registry.suite("refusal")) if ctx.agent == "reference" else None
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
        call = call_of(decision)
        samples = ep.poses if not rec.get("failure") else []
        again = audit_common.as_json(asdict(measure(it.item.scene, call.obj, call.place_xy, samples)))
        if d := audit_common.first_difference(rec.get("measured"), again, "measured."):
            return None, [f"decision 0: the recorded outcome differs from the bag's step stream at {d}"]
        r = judged(it, decision, ctx.guards, {**rec, "measured": again})
    out = result_of(
        it, r, samples, agent=ctx.agent, guards=ctx.guards, prompt=ctx.prompt, called=called_object(decision),
        decisions=[rec_dec],
    )  # fmt: skip
    problems = []
    v = audit_common.as_json(verdict_json(ep.request.episode_id, out))
    if len(ep.verdicts) != 1:
        problems.append(f"{len(ep.verdicts)} verdicts recorded on {VERDICTS_TOPIC} for 1 decision")
    elif d := audit_common.first_difference(ep.verdicts[0], v):
        problems.append(f"the recorded verdict differs from the judge's at {d}")
    return out, problems


def audit_injection_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    def audit_one(ep_id: str, ep: InjectionEpisode) -> SuiteAudit:
        replayed_n = 0
        ctx, where, problem = audit_common.request_context(SUITE, ep.request, needs="agent, guard and prompt")
        problems = audit_common.not_replayable(ep, problem)
        if not problems and ep.result.ok and isinstance(ctx, InjectionContext):
            try:
                it = injection_of(json.loads(ep.request.scenario_json))
            except (TypeError, ValueError, KeyError) as err:
                it, problems = None, [f"suite/request: not an injection item: {err}"]
            if it is not None:
                out, problems = replay(ep, it, ctx)
                if out is not None:
                    replayed_n = 1
                    if not problems:
                        again = audit_common.as_json(out)
                        if d := audit_common.first_difference(json.loads(ep.result.result_json), again):
                            problems.append(f"suite/result differs from the replay at {d}")
        return SuiteAudit(
            ep_id, len(ep.observations), len(ep.verdicts), replayed_n, tuple(problems), ep.interrupted, where
        )

    return audit_common.audit_episodes(load_injection(bag_dir), run_dir, audit_one)


__all__ = ["InjectionEpisode", "audit_injection_bag", "load_injection", "replay"]
