"""Audit of a gauge bag: the reader re-run on the recorded images, every answer and result compared.

Per episode (one item), from the bag alone:

1. The request (the item) and its context (gauge_reader's bounds as the run used them).
2. What the reader saw: the recorded observation (gauge/observations) must name the item's face
   and carry exactly the face's published layout (no value, no label), and its image must be
   the item's render (re-rendered from the recorded seed and conditions: the same pixels); a
   user's image (--images) is read from the bag only, its pixels' sha256 the request's.
3. What it said: the reader is re-run on the recorded image with the recorded bounds and must
   answer the recorded call (gauge/readings), tool and arguments.
4. The result: re-scored from the request and the recorded answers (the reader's, and the agent
   under test's decisions on agent/decisions when one ran), it must equal the recorded
   suite/result, and that the JSONL record (with a run directory).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from alpha_matrix.core.agent.images import rgb_pixels
from alpha_matrix.core.agent.wire import decision_of, observation_of
from alpha_matrix.core.suites import audit_common
from alpha_matrix.core.suites.audit_common import into
from alpha_matrix.core.suites.gauge.agent_run import agent_part
from alpha_matrix.core.suites.gauge.context import GaugeContext
from alpha_matrix.core.suites.gauge.run import (
    GaugeRequest,
    read_observation,
    reading_decision,
    request_face,
    result_of,
    situation,
)
from alpha_matrix.core.suites.gauge.scene import GaugeScene
from alpha_matrix.core.suites.gauge.settings import ReaderSettings
from alpha_matrix.core.suites.gauge.user_images import pixels_sha256
from alpha_matrix.core.suites.suite import SuiteAudit

OBS_TOPIC, READ_TOPIC = "/gauge/observations", "/gauge/readings"
AGENT_TOPIC = "/agent/decisions"
TOPICS = ("/suite/request", "/suite/result", OBS_TOPIC, READ_TOPIC, AGENT_TOPIC)


@dataclass
class _Episode:
    request: Any = None
    result: Any = None
    observations: list[Any] = field(default_factory=list)
    readings: list[Any] = field(default_factory=list)
    agent_decisions: list[Any] = field(default_factory=list)  # the agent under test's, when one ran
    interrupted: int = 0  # other attempts of this episode id in the bag


def _episode_of(topic: str, msg: Any) -> str | None:
    return msg.episode_id or None if topic in TOPICS else None


def audit_episode(ep_id: str, ep: _Episode, scene: GaugeScene) -> tuple[list[str], str]:
    """(problems, where the reader's bounds came from)."""
    if ep.request is None:
        return ["no suite/request in the bag"], ""
    ctx, where, problem = audit_common.request_context("gauge", ep.request, "reader bounds")
    if problem or not isinstance(ctx, GaugeContext):
        return [problem or "no gauge context"], where
    settings = ReaderSettings(**ctx.reader)  # type: ignore[arg-type]
    req = GaugeRequest.model_validate_json(ep.request.scenario_json)
    if len(ep.observations) != 1 or len(ep.readings) != 1:
        return [f"{len(ep.observations)} observation(s) and {len(ep.readings)} reading(s), expected one each"], where
    obs, recorded = observation_of(ep.observations[0]), decision_of(ep.readings[0])
    problems: list[str] = []
    face = request_face(req)
    if obs.situation != situation(face):
        problems.append("the reader's observation is not the face's layout alone")
    image = rgb_pixels(obs.images[0]) if obs.images else np.zeros((0, 0, 3), np.uint8)
    if req.user is not None:  # a user's image: the bag is its only copy; its identity is the request's sha256
        if pixels_sha256(image) != req.user["sha256"]:
            problems.append("the recorded image is not the user's image of the request")
    elif not np.array_equal(image, scene.render(req.item_conditions(), req.seed).image):
        problems.append("the recorded image is not the item's render")
    replayed = reading_decision(read_observation(obs, settings))
    if (recorded.kind, recorded.call) != (replayed.kind, replayed.call):
        d = audit_common.first_difference(audit_common.as_json(recorded.call.model_dump() if recorded.call else None),
                             audit_common.as_json(replayed.call.model_dump() if replayed.call else None))  # fmt: skip
        problems.append(f"reader answer differs: {d}")
    if ep.result is None:
        problems.append("no recorded suite/result (run interrupted?)")
    elif ep.result.ok:
        rescored = result_of(req, recorded)
        got = json.loads(ep.result.result_json)
        if "agent" in got:  # re-scored from the agent's recorded decisions, in their order
            decisions = [decision_of(m) for m in sorted(ep.agent_decisions, key=lambda m: int(m.decision_index))]
            a = got["agent"]
            rescored["agent"] = agent_part(
                decisions, a.get("spec", ""), face.unit, face.span, rescored["truth"], req.readable,
                bool(rescored.get("stated_unreadable")),
            )  # fmt: skip
            if "backend" not in a:  # recorded before the part said who answered: compared on what it held
                rescored["agent"] = {k: v for k, v in rescored["agent"].items() if k in a}
        d = audit_common.first_difference(got, audit_common.as_json(rescored))
        if d:
            problems.append(f"suite/result differs from the re-scored answers at {d}")
    return problems, where


_INTO = {
    "/suite/request": into("request"), "/suite/result": into("result"), OBS_TOPIC: into("observations"),
    READ_TOPIC: into("readings"), AGENT_TOPIC: into("agent_decisions"),
}  # fmt: skip


def load_gauge(bag_dir: Path) -> dict[str, _Episode]:
    return audit_common.load_episodes(bag_dir, _episode_of, lambda others: _Episode(interrupted=others), _INTO)


def audit_gauge_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    eps = load_gauge(bag_dir)
    with GaugeScene() as scene:

        def audit_one(ep_id: str, ep: _Episode) -> SuiteAudit:
            problems, where = audit_episode(ep_id, ep, scene)
            n = len(ep.readings)
            return SuiteAudit(
                ep_id, len(ep.observations), n, 0 if problems else n, tuple(problems), ep.interrupted, where
            )

        return audit_common.audit_episodes(eps, run_dir, audit_one)
