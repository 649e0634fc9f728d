"""Audit of an ambiguity bag: every episode replayed from the recorded item and decisions.

Per episode, the recorded ``suite/request`` holds the item (truth included: the scorer's and the
operator's) and the run's context (the agent, how moves ran). The episode is run again with the
same loop the executive runs (``episode.EpisodeRun``), fed the recorded decisions
(``/agent/decisions``, by decision index). Its moves run on ``BagRobot``: each call's recorded
plan, and the bag's step stream (``/robot/step_batch``) up to the call's recorded end step, from
which the positions, the facts and the placement are measured again. Every observation it builds
must equal the recorded one (the agent saw the scene as measured, the dialogue and nothing of the
truth), every turn -- the decision, the operator's answer, what the move did and measured, the
placement after -- must equal the
recorded ``/ambiguity/dialogue`` message, and the result it composes (so the scores: they are
counts over results) must equal the recorded ``suite/result`` and the run's JSONL record. When
the reference (or one of the resolver's baselines, always_execute / always_ask) decided, it is
asked again on every recorded observation (agent_common.said_again).

The agent's observations carry a neutral episode name (``episode.episode_id``: the runner's names
the item's category and kind); they are tied to the runner's episode through the request's item.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from alpha_matrix.core.agent.wire import decision_of, observation_of
from alpha_matrix.core.attempts import STEP_TOPIC
from alpha_matrix.core.robot.pick_place import PoseSample, pose_sample
from alpha_matrix.core.suites import audit_common
from alpha_matrix.core.suites.agent_common import said_again
from alpha_matrix.core.suites.ambiguity.context import AmbiguityContext
from alpha_matrix.core.suites.ambiguity.episode import SUITE, EpisodeRun, episode_id
from alpha_matrix.core.suites.ambiguity.items import Item, item_of
from alpha_matrix.core.suites.ambiguity.physical import PhysicalMoves
from alpha_matrix.core.suites.ambiguity.reference import POLICIES, ResolverAgent
from alpha_matrix.core.suites.ambiguity.suite import graph_result
from alpha_matrix.core.suites.audit_common import into
from alpha_matrix.core.suites.suite import SuiteAudit

if TYPE_CHECKING:
    from alpha_matrix.core.graph import Graph

DIALOGUE_TOPIC = "/ambiguity/dialogue"  # one message per turn (SuiteResult: result_json = episode.turn_json)
AGENT_TOPICS = ("/agent/observations", "/agent/decisions")


def graph_context(graph: Graph) -> AmbiguityContext:
    """The agent under test as the resolved graph gives it (the agent node's parameter)."""
    return AmbiguityContext(agent=str(graph.node("agent").parameters.get("agent", "")) or "reference")


@dataclass
class AmbiguityEpisode:
    request: Any = None
    interrupted: int = 0
    result: Any = None
    turns: list[Any] = field(default_factory=list)
    observations: list[Any] = field(default_factory=list)
    decisions: list[Any] = field(default_factory=list)
    poses: list[PoseSample] = field(default_factory=list)  # the step stream's object poses, one per batch


class BagRobot:
    """The robot of a recorded episode: the n-th call gets the n-th recorded plan and the bag's
    pose samples up to that call's recorded end step (the measuring is the replay's own)."""

    def __init__(self, poses: list[PoseSample], motions: list[dict[str, Any]]) -> None:
        self.poses, self.motions = poses, motions

    def pick_place(self, *_args: Any) -> tuple[dict[str, Any], list[PoseSample]]:
        if not self.motions:
            return {"failure": "a move the bag does not record"}, []
        rec = self.motions.pop(0)
        end = rec.get("end_step")
        return dict(rec.get("plan") or {}), [] if end is None else [s for s in self.poses if s.step <= int(end)]


def _neutral_name(request: Any) -> str | None:
    """The agent's name of a recorded request's episode (None: the item cannot be read)."""
    try:
        return episode_id(item_of(json.loads(request.scenario_json)))
    except (ValueError, KeyError, TypeError):
        return None  # the episode's audit reports the unreadable item


_INTO = {
    "/suite/request": into("request"), "/suite/result": into("result"), DIALOGUE_TOPIC: into("turns"),
    STEP_TOPIC: into("poses", pose_sample),
}  # fmt: skip


def load_ambiguity(bag_dir: Path) -> dict[str, AmbiguityEpisode]:
    """The bag read once: the runner's and the executive's messages by attempt; the agent's
    (named by ``episode.episode_id``) joined to the episode whose request holds their item. Of an
    episode run twice (interrupted, resumed), the agent's last message per decision is kept."""
    agent_msgs: list[tuple[str, Any]] = []

    def of(topic: str, msg: Any) -> str | None:
        if topic == "/suite/request":
            return msg.episode_id if msg.suite == SUITE else None
        if topic in ("/suite/result", DIALOGUE_TOPIC):
            return str(msg.episode_id)
        if topic in AGENT_TOPICS:
            agent_msgs.append((topic, msg))
        return None

    out = audit_common.load_episodes(
        bag_dir, of, lambda others: AmbiguityEpisode(interrupted=others), _INTO, steps=True
    )
    neutral = {_neutral_name(e.request): e for e in out.values() if e.request is not None}
    for topic, msg in agent_msgs:
        if (owner := neutral.get(msg.episode_id)) is not None:
            (owner.observations if topic == "/agent/observations" else owner.decisions).append(msg)
    return out


def recorded_turns(ep: AmbiguityEpisode) -> list[dict[str, Any]]:
    return sorted((json.loads(m.result_json) for m in ep.turns), key=lambda t: int(t["decision_index"]))


def replay_episode(
    item: Item, ep: AmbiguityEpisode, agent: str, reference: Any = None, physical: bool = True
) -> tuple[dict[str, Any] | None, list[dict[str, Any]], list[str]]:
    """(the result, the turns, problems) of the episode run again on the recorded decisions (its
    moves measured again from the bag's step stream; ``physical`` False: on the placement table)."""
    obs_by = {int(m.decision_index): m for m in ep.observations}
    dec_by = {int(m.decision_index): m for m in ep.decisions}
    motions = [t["motion"] for t in recorded_turns(ep) if "plan" in (t.get("motion") or {})]
    run = EpisodeRun(item, PhysicalMoves(item.scene, BagRobot(ep.poses, motions)) if physical else None)
    turns: list[dict[str, Any]] = []
    replies: list[Any] = []
    while (obs := run.observation()) is not None:
        i = obs.decision_index
        if i not in obs_by or i not in dec_by:
            return None, turns, [f"decision {i}: not recorded"]
        if observation_of(obs_by[i]) != obs:
            return None, turns, [f"decision {i}: the recorded observation differs from the replay's"]
        decision = decision_of(dec_by[i])
        if problem := said_again(obs, decision, reference):
            return None, turns, [problem]
        replies.append(dec_by[i])
        turns.append(run.apply(decision))
    problems = (
        [f"{len(dec_by) - len(turns)} recorded decision(s) after the episode ended"] if len(dec_by) > len(turns) else []
    )
    return graph_result(item, run.result(), agent, replies), turns, problems


def _audit_one(ep: AmbiguityEpisode, ctx: AmbiguityContext) -> tuple[int, list[str]]:
    """(turns replayed, problems) of one recorded, run episode."""
    try:
        item = item_of(json.loads(ep.request.scenario_json))
    except (ValueError, KeyError, TypeError) as err:
        return 0, [f"suite/request: not an ambiguity item ({err})"]
    rec = json.loads(ep.result.result_json)
    part = rec.get("agent") or {}
    if part.get("agent") != ctx.agent:
        return 0, [f"the result's agent {part.get('agent')!r} is not the context's {ctx.agent!r}"]
    reference: Any = None  # the scripted deciders are asked again; a model's answers are replayed
    if ctx.agent == "reference":
        from alpha_matrix.core.agent.reference import ReferenceAgent
        from alpha_matrix.core.suites import registry

        reference = ReferenceAgent(registry.suite(SUITE))
    elif ctx.agent in POLICIES:
        reference = ResolverAgent(next(p for p in POLICIES if p == ctx.agent))
    replay, turns, problems = replay_episode(item, ep, ctx.agent, reference, ctx.execution == "physical")
    recorded = recorded_turns(ep)
    if replay is None:
        return len(turns), problems
    d = audit_common.first_difference(recorded, audit_common.as_json(turns))
    if d:
        problems.append(f"/ambiguity/dialogue differs from the replay at {d}")
    d = audit_common.first_difference(rec, audit_common.as_json(replay))
    if d:
        problems.append(f"suite/result differs from the replay at {d}")
    return len(turns), problems


def audit_ambiguity_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    def audit_one(ep_id: str, ep: AmbiguityEpisode) -> SuiteAudit:
        replayed = 0
        ctx, where, problem = audit_common.request_context(SUITE, ep.request, needs="agent under test")
        problems = audit_common.not_replayable(ep, problem)
        if not problems and ep.result.ok and isinstance(ctx, AmbiguityContext):
            replayed, problems = _audit_one(ep, ctx)
        return SuiteAudit(ep_id, len(ep.decisions), len(ep.turns), replayed, tuple(problems), ep.interrupted, where)

    return audit_common.audit_episodes(load_ambiguity(bag_dir), run_dir, audit_one)


__all__ = [
    "DIALOGUE_TOPIC",
    "AmbiguityEpisode",
    "BagRobot",
    "audit_ambiguity_bag",
    "graph_context",
    "load_ambiguity",
    "replay_episode",
]
