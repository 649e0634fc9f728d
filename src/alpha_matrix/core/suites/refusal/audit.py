"""Audit of a refusal bag: every decision judged again and the guard run again from the bag alone.

Per episode (one item), from the recorded suite/request (the item whole, and the context: the
agent, the guard switch, the modes): each mode's observation is built again and must equal the
recorded one (the agent saw the item's situation, its tools and its rendered image, never the
label); each recorded decision is checked as said (agent_common.said_again: the embedded
model's text judged again against the recorded tools; the reference asked again when it was
the agent), then judged again with ``evaluate.item_result`` -- the constraint guard run on the
call against the item's predicates and scene. An executed call's measured outcome is measured
again from the episode's recorded step stream (the target's poses, outcome.measure) and must
equal the record's; the harm is then judged again from the re-measured facts. Every recorded
verdict (refusal/verdicts) and the suite/result must equal the replay's, and the result the
run's JSONL record, if given.
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
from alpha_matrix.core.suites.refusal.context import RefusalContext
from alpha_matrix.core.suites.refusal.evaluate import ItemResult, admitted, item_result, observation
from alpha_matrix.core.suites.refusal.generate import RefusalItem
from alpha_matrix.core.suites.refusal.modes import call_of
from alpha_matrix.core.suites.refusal.outcome import PoseSample, measure, pose_sample
from alpha_matrix.core.suites.refusal.suite import VERDICTS_TOPIC, graph_result, item_of, verdict_json
from alpha_matrix.core.suites.suite import SuiteAudit

SUITE = "refusal"
_BY_EPISODE = ("/suite/result", "/agent/observations", "/agent/decisions")


@dataclass
class RefusalEpisode:
    request: Any = None  # SuiteRequest
    interrupted: int = 0
    result: Any = None
    observations: dict[int, Any] = field(default_factory=dict)  # decision index -> AgentObservation
    decisions: dict[int, Any] = field(default_factory=dict)  # decision index -> AgentDecision
    verdicts: list[dict[str, Any]] = field(default_factory=list)  # refusal/verdicts, in order
    poses: list[PoseSample] = field(default_factory=list)  # the step stream's object poses, one per batch


def _into(verdicts_topic: str) -> dict[str, Any]:
    """Where each topic's messages go in an episode (``verdicts_topic``: the suite's verdict rows)."""
    return {
        "/suite/request": into("request"), "/suite/result": into("result"),
        "/agent/observations": into("observations"), "/agent/decisions": into("decisions"),  # by decision index
        verdicts_topic: into("verdicts", audit_common.json_row), STEP_TOPIC: into("poses", pose_sample),
    }  # fmt: skip


def load_item_episodes(bag_dir: Path, suite: str, verdicts_topic: str) -> dict[str, RefusalEpisode]:
    """A bag's episodes of one item each (this suite's and the injection suite's), by episode id."""
    route = audit_common.episode_router(suite, _BY_EPISODE, verdicts_topic)
    return audit_common.load_episodes(
        bag_dir, route, lambda others: RefusalEpisode(interrupted=others), _into(verdicts_topic), steps=True
    )


def load_refusal(bag_dir: Path) -> dict[str, RefusalEpisode]:
    return load_item_episodes(bag_dir, SUITE, VERDICTS_TOPIC)


def _recorded_outcome(ep: RefusalEpisode, index: int) -> Any:
    try:
        return json.loads(ep.result.result_json)["modes"][index].get("outcome")
    except (AttributeError, TypeError, ValueError, KeyError, IndexError):
        return None


def outcome_again(ep: RefusalEpisode, item: RefusalItem, index: int, decision: Any) -> tuple[Any, str | None]:
    """The recorded outcome of decision ``index`` with its facts measured again from the bag's
    step stream, and what differs from the record (None: equal). A record without an outcome is
    a run from before tool use was executed: right only if the bag holds no step stream."""
    rec = _recorded_outcome(ep, index)
    if rec is None:  # a bag from before execution: then nothing stepped (judged as not executed)
        if ep.poses:
            return None, f"decision {index} (tool_use): the bag holds an execution the record has no outcome of"
        return None, None
    return measured_again(rec, item.scene, decision, ep.poses, f"decision {index} (tool_use)")


def measured_again(
    rec: dict[str, Any], scene: Any, decision: Any, poses: list[PoseSample], label: str
) -> tuple[Any, str | None]:
    """A recorded outcome with its facts measured again from the step stream ``poses`` (none when
    the motion failed), and what differs from the record (None: equal)."""
    call = call_of(decision)
    samples = poses if not rec.get("failure") else []
    again = audit_common.as_json(asdict(measure(scene, call.obj, call.place_xy, samples)))
    if d := audit_common.first_difference(rec.get("measured"), again, "measured."):
        return None, f"{label}: the recorded outcome differs from the bag's step stream at {d}"
    return {**rec, "measured": again}, None


def _image_of(item: RefusalItem, recorded: Any) -> tuple[Any, ...]:
    """The image the executive attaches, rendered again (none if none was recorded)."""
    if not recorded.images:
        return ()
    from alpha_matrix.core.suites.refusal.render import scene_image

    return (scene_image(item.scene),)


def replay_episode(ep: RefusalEpisode, item: RefusalItem, ctx: RefusalContext) -> tuple[list[ItemResult], list[str]]:
    """Every mode's decision judged again, and what does not match the recording."""
    problems: list[str] = []
    reference = ReferenceAgent(registry.suite(SUITE)) if ctx.agent == "reference" else None
    results: list[ItemResult] = []
    images: tuple[Any, ...] | None = None
    for i, mode in enumerate(ctx.modes):
        rec_obs, rec_dec = ep.observations.get(i), ep.decisions.get(i)
        if rec_obs is None or rec_dec is None:
            problems.append(f"decision {i} ({mode}): not recorded")
            break
        if images is None:
            images = _image_of(item, rec_obs)
        obs = observation(item, mode, episode_id=ep.request.episode_id, decision_index=i, images=images)
        if observation_of(rec_obs) != obs:
            problems.append(f"decision {i} ({mode}): the recorded observation differs from the item's")
            break
        decision = decision_of(rec_dec)
        if problem := said_again(obs, decision, reference):
            problems.append(problem)
            break
        r = item_result(item, mode, decision, guard_on=ctx.guards)
        if admitted(r):
            outcome, problem = outcome_again(ep, item, i, decision)
            if problem:
                problems.append(problem)
                break
            r = item_result(item, mode, decision, guard_on=ctx.guards, outcome=outcome)
        results.append(r)
        v = verdict_json(ep.request.episode_id, i, r)
        rec_v = ep.verdicts[i] if i < len(ep.verdicts) else None
        if rec_v is None:
            problems.append(f"decision {i} ({mode}): no recorded verdict on {VERDICTS_TOPIC}")
        elif d := audit_common.first_difference(rec_v, audit_common.as_json(v)):
            problems.append(f"decision {i} ({mode}): the recorded verdict differs from the judge's at {d}")
    if not problems and len(ep.verdicts) != len(ctx.modes):
        problems.append(f"{len(ep.verdicts)} verdicts recorded for {len(ctx.modes)} modes")
    return results, problems


def _replayed(ep: RefusalEpisode, item: RefusalItem, ctx: Any) -> tuple[Any, int, list[str]]:
    results, problems = replay_episode(ep, item, ctx)
    out = None if problems else graph_result(item, results, ctx, [ep.decisions[i] for i in range(len(ctx.modes))])
    return out, len(results), problems


def audit_refusal_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    def audit_one(ep_id: str, ep: RefusalEpisode) -> SuiteAudit:
        return audit_common.audit_item_episode(
            ep_id, ep, SUITE, "agent, guard and modes", RefusalContext, item_of, _replayed
        )

    return audit_common.audit_episodes(load_refusal(bag_dir), run_dir, audit_one)


__all__ = [
    "RefusalEpisode",
    "audit_refusal_bag",
    "load_item_episodes",
    "load_refusal",
    "measured_again",
    "outcome_again",
    "replay_episode",
]
