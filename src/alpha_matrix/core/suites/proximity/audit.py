"""Audit of a proximity bag by replay: the detector's decisions and the run's score, recomputed.

Per episode, the recorded depth frames (16UC1 or 32FC1, converted by the node's own
core/depth_image.image_metres) go through the same ``DetectorCore``
(``ProximityDetector`` + ``StopPolicy``) as the live detector node, with the policy of the
episode's recorded ``SuiteRequest`` and the intrinsics of its first recorded ``CameraInfo``
(exactly what the node uses, so no config drift) and the simulated cell's mount (the
detector's default ``camera_position``/``camera_orientation``: the recorded context does not
carry them, so a run with another mount shows as replay differences); every replayed
estimate must equal the recorded ``proximity/estimate`` (detected, distance, confidence, blobs, action, stop state,
limit: exact, the code is deterministic). The run is then re-scored from the recorded
``sim/proximity_truth`` and estimates with the executive's own ``compose_result`` and must
equal the recorded ``suite/result`` and, if given, the run's JSONL record. Each stop/resume
decision must also be in effect on the robot L steps later (the truth's ``stopped``), with
sim_bridge's L from the recorded context; a bag recorded before contexts existed uses the L
in its own recorded scenario (``reaction_steps``), and the audit says so. Nothing is read from
today's config.

The arm's account (commands, refusals, whether the block was placed) is taken from the
recorded result: it is the executive's own bookkeeping, not a decision replayed here.

With an agent under test (the recorded context names it), the agent's part is audited too
(proximity/agent_audit.py: what it saw, what it said, what the robot did) and its verdicts are
re-scored; with the guard off, the detector's decisions are checked but not their effect (its
stops were never sent).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from alpha_matrix.core.agent.reference import ReferenceAgent
from alpha_matrix.core.attempts import Msg
from alpha_matrix.core.depth_image import DepthImageError, image_metres
from alpha_matrix.core.suites import audit_common, registry
from alpha_matrix.core.suites.proximity.agent_audit import audit_agent
from alpha_matrix.core.suites.proximity.agent_link import sorting_brief
from alpha_matrix.core.suites.proximity.agent_score import agent_part
from alpha_matrix.core.suites.proximity.context import ProximityContext
from alpha_matrix.core.suites.proximity.run import (
    SUITE,
    ArmAccount,
    DetectorCore,
    ProximityScenario,
    camera_info_from_k,
    compose_result,
    parse_frame_tag,
    scenario_from_json,
)
from alpha_matrix.core.suites.proximity.sorting import SortingConfig
from alpha_matrix.core.suites.proximity.transition import Sample, sorting_verdicts
from alpha_matrix.core.suites.suite import SuiteAudit

STEP_TOPIC = "/robot/step_batch"

AGENT_TOPICS = ("/agent/observations", "/agent/decisions")
ESTIMATE_FIELDS = (
    "detected",
    "distance",
    "confidence",
    "blob_count",
    "action",
    "stop_requested",
    "limit",
    "human_speed",
)


@dataclass
class ProximityEpisode:
    request: Any = None  # SuiteRequest
    interrupted: int = 0  # other attempts of this episode id in the bag
    scenario: ProximityScenario | None = None
    info: Any = None  # first CameraInfo of the episode
    pending: list[tuple[int, np.ndarray]] = field(default_factory=list)  # frames before request + info
    core: DetectorCore | None = None
    frames: int = 0
    replayed: list[dict[str, Any]] = field(default_factory=list)
    recorded: list[dict[str, Any]] = field(default_factory=list)
    truth: list[Any] = field(default_factory=list)
    result: Any = None
    observations: list[Any] = field(default_factory=list)  # the agent's, when one ran
    decisions: list[Any] = field(default_factory=list)
    batches: list[Any] = field(default_factory=list)  # the step stream (kept for sorting runs only)
    problems: list[str] = field(default_factory=list)

    def feed(self, step: int, depth: np.ndarray) -> None:
        self.pending.append((step, depth))
        self.flush()

    def flush(self) -> None:
        """Replay the buffered frames once the run's request and intrinsics are in (as the node)."""
        if self.scenario is None or self.info is None:
            return
        if self.core is None:
            info = camera_info_from_k(self.info.width, self.info.height, self.info.k)
            self.core = DetectorCore(info, self.scenario.policy)
        for k, frame in self.pending:
            self.frames += 1
            try:
                est = self.core.on_frame(k, frame)
            except ValueError as err:  # a frame out of step order
                self.problems.append(f"frame of step {k}: {err}")
                continue
            if est is not None:
                d, dec = est.detection, est.decision
                self.replayed.append(
                    {
                        "step": k,
                        "detected": d.detected,
                        "distance": float(d.distance),
                        "confidence": float(d.confidence),
                        "blob_count": d.blob_count,
                        "action": dec.action,
                        "stop_requested": dec.stop_requested,
                        "limit": float(dec.limit),
                        "human_speed": float(dec.human_speed),
                    }
                )
        self.pending = []


def _estimate_dict(msg: Any) -> dict[str, Any]:
    return {
        "step": int(msg.step),
        "detected": bool(msg.detected),
        "distance": float(msg.distance),
        "confidence": float(msg.confidence),
        "blob_count": int(msg.blob_count),
        "action": msg.action,
        "stop_requested": bool(msg.stop_requested),
        "limit": float(msg.limit),
        "human_speed": float(msg.human_speed),
    }


def _fmt_estimate(e: dict[str, Any] | None) -> str:
    if e is None:
        return "none"
    return f"detected={e['detected']} distance={e['distance']:.4f} action={e['action']} stop={e['stop_requested']}"


def _episode_of(topic: str, msg: Any) -> str | None:
    if topic == "/suite/request":
        return msg.episode_id if msg.suite == SUITE else None
    if topic in ("/camera/depth/camera_info", "/camera/depth/image_raw"):
        return parse_frame_tag(msg.header.frame_id)[0]
    if topic in ("/proximity/estimate", "/sim/proximity_truth", "/suite/result", *AGENT_TOPICS):
        return msg.episode_id
    return None


def _episode(msgs: list[Msg]) -> ProximityEpisode:
    ep = ProximityEpisode()
    frames: list[tuple[int, np.ndarray]] = []
    for topic, _ts, msg in msgs:
        if topic == "/suite/request":
            ep.request = msg
            ep.scenario = scenario_from_json(msg.scenario_json)
        elif topic == "/camera/depth/camera_info":
            if ep.info is None:
                ep.info = msg
        elif topic == "/camera/depth/image_raw":
            _, step = parse_frame_tag(msg.header.frame_id)
            try:
                frames.append((step, image_metres(msg)))  # as the node converts it: 16UC1 or 32FC1
            except DepthImageError as err:
                ep.problems.append(f"frame of step {step}: {err}")
        elif topic == "/proximity/estimate":
            ep.recorded.append(_estimate_dict(msg))
        elif topic == "/sim/proximity_truth":
            ep.truth.append(msg)
        elif topic == "/suite/result":
            ep.result = msg
        elif topic == "/agent/observations":
            ep.observations.append(msg)
        elif topic == "/agent/decisions":
            ep.decisions.append(msg)
        elif topic == STEP_TOPIC:
            ep.batches.append(msg)
    if ep.scenario is None or ep.scenario.task is None:
        ep.batches = []  # only a sorting run's verdicts are read from the step stream
    # One writer each, so log order is step order; sorted anyway, by a total key.
    ep.recorded.sort(key=lambda e: e["step"])
    ep.truth.sort(key=lambda m: int(m.first_step))
    for step, depth in sorted(frames, key=lambda f: f[0]):
        ep.feed(step, depth)
    return ep


def load_proximity(bag_dir: Path) -> dict[str, ProximityEpisode]:
    out = {}
    for ep_id, (msgs, others) in audit_common.episode_attempts(bag_dir, _episode_of, steps=True).items():
        out[ep_id] = _episode(msgs)
        out[ep_id].interrupted = others
    return out


def _truth_arrays(msgs: list[Any], end_step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """As the executive builds them (proximity_executive._truth); also the last step covered."""
    n = end_step + 1
    gt, seen, stopped = np.full(n, np.inf), np.zeros(n, bool), np.zeros(n, bool)
    last = 0
    for m in msgs:
        a, b = int(m.first_step), min(int(m.first_step) + len(m.distance), n)
        last = max(last, int(m.first_step) + len(m.distance) - 1)
        if a >= b:
            continue
        gt[a:b] = np.asarray(m.distance)[: b - a]
        seen[a:b] = np.asarray(m.in_view, bool)[: b - a]
        stopped[a:b] = np.asarray(m.stopped, bool)[: b - a]
    gt[0] = gt[1]
    return gt, seen, stopped, last


def _arm_from(task: dict[str, Any], plan_commands: int = 6) -> ArmAccount:
    return ArmAccount(
        plan_commands=plan_commands,  # a sorting run's plan: its blocks
        commands=[tuple(c) for c in task["commands"]],
        refused_while_stopped=int(task["refused_while_stopped"]),
        plan_done=int(task["plan_done"]),
        holds_while_stopped=int(task["holds_while_stopped"]),
    )


def step_samples(batches: list[Any], steps: list[int]) -> tuple[list[Sample], list[int]]:
    """The grasp frame and object poses at each of ``steps`` from the step stream: the grasp of that
    step, the object poses of the batch ending there (a batch ends where a command ends). Also the
    steps the stream does not cover."""
    grasp: dict[int, tuple[float, float, float]] = {}
    objects: dict[int, dict[str, tuple[float, float, float]]] = {}
    want = set(steps)
    for b in batches:
        first, n = int(b.first_step), int(b.num_steps)
        g = np.asarray(b.grasp_positions, dtype=float).reshape(n, 3)
        for k in want.intersection(range(first, first + n)):
            grasp[k] = (float(g[k - first][0]), float(g[k - first][1]), float(g[k - first][2]))
        if first + n - 1 in want:
            objects[first + n - 1] = {
                o.name: (float(o.pose.position.x), float(o.pose.position.y), float(o.pose.position.z))
                for o in b.objects
            }
    missing = [k for k in steps if k not in grasp or k not in objects]
    return [Sample(k, grasp[k], objects[k]) for k in steps if k in grasp and k in objects], missing


def _sorting_rescore(
    sc: ProximityScenario, recorded: dict[str, Any], batches: list[Any], gt: np.ndarray, stopped: np.ndarray
) -> tuple[dict[str, Any], list[str]]:
    """The recorded ``sorting`` part re-derived: the controller's bookkeeping (when it decided, what it
    chose) as recorded, every verdict from the step stream at the end of each command that ran."""
    assert sc.task is not None
    events = recorded.get("sorting", {}).get("events")
    if events is None:
        return {}, ["a sorting run's result without its transition bookkeeping"]
    steps = [int(c[1]) for c in recorded["task"]["commands"] if c[3] == "DONE"]
    samples, missing = step_samples(batches, steps)
    problems = [f"the step stream does not cover command ends {missing[:3]}"] if missing else []
    cfg = SortingConfig.from_json(sc.task["config"])
    return {**sorting_verdicts(sc, events, samples, gt, stopped, cfg), "events": events}, problems


def _audit_proximity_episode(ep_id: str, ep: ProximityEpisode, ctx: ProximityContext | None) -> list[str]:
    latency = None if ctx is None else ctx.reaction_latency_steps
    problems = list(ep.problems)
    sc = ep.scenario
    if sc is None:
        return [*problems, "no recorded suite/request for this episode"]
    if ep.info is None:
        problems.append("no recorded camera_info: frames not replayed")
    if ep.pending:
        problems.append(f"{len(ep.pending)} frames never replayed")
    # 1. Every decision of the detector, replayed from its inputs.
    rec_by_step = {e["step"]: e for e in ep.recorded}
    rep_by_step = {e["step"]: e for e in ep.replayed}
    if len(rec_by_step) != len(ep.recorded):
        problems.append("the bag holds two estimates for one step")
    for step in sorted(set(rec_by_step) | set(rep_by_step)):
        a, b = rec_by_step.get(step), rep_by_step.get(step)
        if a is None or b is None or any(a[k] != b[k] for k in ESTIMATE_FIELDS):
            problems.append(f"estimate of step {step}: recorded {_fmt_estimate(a)}, replay {_fmt_estimate(b)}")
            break
    # 2. The run's score, from the recorded truth and estimates, with the executive's own code.
    if ep.result is None:
        return [*problems, "no recorded suite/result (run interrupted?)"]
    if not ep.result.ok:
        return problems  # the executive could not run it: nothing was scored
    recorded = json.loads(ep.result.result_json)
    gt, in_view, stopped, last = _truth_arrays(ep.truth, sc.end_step)
    if last < sc.end_step:
        return [*problems, f"sim/proximity_truth ends at step {last}, the run at {sc.end_step}"]
    estimates = [{k: v for k, v in e.items() if k != "human_speed"} for e in ep.recorded]
    sorting: dict[str, Any] | None = None
    sorting_problems: list[str] = []
    if sc.task is not None:  # the transition's verdicts, from the step stream and the truth
        sorting, sorting_problems = _sorting_rescore(sc, recorded, ep.batches, gt, stopped)
    placed = recorded["task"]["placed"] if sorting is None else sorting["task_complete"]
    plan = 6 if sc.task is None else len(sc.task["config"]["blocks"])
    rescored = compose_result(sc, gt, in_view, stopped, estimates, _arm_from(recorded["task"], plan), placed)
    rescored = {**rescored, "last_step": recorded.get("last_step")}
    if sorting is not None:
        rescored["sorting"] = sorting
    problems += sorting_problems
    if ctx is not None and "guards" in ctx.model_fields_set:  # recorded since agents and guards were
        rescored["guards"] = ctx.guards
    agent_problems: list[str] = []
    if ctx is not None and ctx.agent:
        rescored["agent"] = agent_part(ep.decisions, gt, stopped, sc, ctx.agent, ctx.guards, ctx.decision_every_frames)
        agent_problems = audit_agent(
            ep.observations, ep.decisions, ep.recorded, stopped,
            episode_id=ep_id, threshold=sc.threshold, latency=ctx.reaction_latency_steps,
            every=ctx.decision_every_frames, guards=ctx.guards,
            reference=ReferenceAgent(registry.suite(SUITE)) if ctx.agent == "reference" else None,
            sorting=sorting_brief(sc),
        )  # fmt: skip
    elif ep.decisions:
        agent_problems = ["the bag holds agent decisions, but its context names no agent"]
    rescored = audit_common.as_json(rescored)
    d = audit_common.first_difference(recorded, rescored)
    if d:
        problems.append(f"suite/result differs from the re-score at {d}")
    problems += agent_problems
    # 3. Each stop/resume is in effect on the robot L steps after the frame it was decided on
    # (the bridge's L from the recorded context; the scenario's for a bag recorded without one).
    # With the guard off its stops were never sent; with an agent, a guard's resume may meet the agent's own stop.
    guard_sent = ctx is None or ctx.guards
    agent_holds = ctx is not None and bool(ctx.agent)
    for e in ep.recorded if guard_sent else []:
        at = e["step"] + (sc.reaction_steps if latency is None else latency)
        if agent_holds and e["action"] == "resume":
            continue
        if e["action"] != "none" and at <= sc.end_step and bool(stopped[at]) != (e["action"] == "stop"):
            problems.append(f"{e['action']} decided at step {e['step']} is not in effect at step {at}")
            break
    return problems


def audit_proximity_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    def audit_one(ep_id: str, ep: ProximityEpisode) -> SuiteAudit:
        ctx, where, problem = audit_common.request_context(SUITE, ep.request, needs=None)
        problems = [problem] if problem else []
        if ep.request is not None and ctx is None and not problem:  # recorded before contexts existed
            where = "from the bag: L = the scenario's reaction_steps (no recorded context)"
        pctx = ctx if isinstance(ctx, ProximityContext) else None
        problems += _audit_proximity_episode(ep_id, ep, pctx)
        counts = ep.frames, len(ep.recorded), len(ep.replayed)
        return SuiteAudit(ep_id, *counts, tuple(problems), ep.interrupted, where)

    return audit_common.audit_episodes(load_proximity(bag_dir), run_dir, audit_one)


__all__ = ["ESTIMATE_FIELDS", "ProximityEpisode", "audit_proximity_bag", "load_proximity"]
