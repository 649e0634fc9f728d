"""Audit of a safety-suite bag by replay: recompute the suite's decisions and scores, compare.

Proximity (``audit_proximity_bag``): per episode, the recorded depth frames go through the
same ``DetectorCore`` (``ProximityDetector`` + ``StopPolicy``) as the live detector node, with
the policy of the episode's recorded ``SuiteRequest`` and the intrinsics of its first recorded
``CameraInfo`` (exactly what the node uses, so no config drift); every replayed estimate must
equal the recorded ``proximity/estimate`` (detected, distance, confidence, blobs, action, stop
state, limit: exact, the code is deterministic). The run is then re-scored from the recorded
``sim/proximity_truth`` and estimates with the executive's own ``compose_result`` and must
equal the recorded ``suite/result`` and, if given, the run's JSONL record. Each stop/resume
decision must also be in effect on the robot ``reaction_steps`` later (the truth's ``stopped``).

The arm's account (commands, refusals, whether the block was placed) is taken from the
recorded result: it is the executive's own bookkeeping, not a decision replayed here.

Alerts (``audit_alerts_bag``): per episode, the recorded ``robot/alerts`` and ``robot/status``
go through the same ``GuardCore`` as the live ``alert_guard``, with the scenario's status
model and the policy and L recorded in the request's context; each
recorded command is admitted at its recorded step after every status before that step (as
the guard does: the robot is idle when it asks). Alert responses, stop/resume requests, stop
windows and every admission must equal the recorded result's, re-composed with
``compose_alert_result``.

Confidence (``audit_confidence_bag``): per episode, every recorded ``skill/queries`` request goes
through the same ``ConfidenceEmulator`` as the live ``skill_confidence`` node (the skills file
recorded in the request's context, the recorded seed and noise-stream id) and each answer (confidence,
in_distribution, feasible, reason) must equal the recorded one exactly. A real-state query must
carry the robot's state at the recorded command end it follows (so a look-ahead cannot pass as a
check). The gating rules are then checked from the evidence with the executive's own
``ConfidenceLedger`` fed the replayed answers: every skill call checked by a real-state query at
or above the threshold since the last skill finished (a breach is reported even when the
executive refused the call), every robot motion command inside a checked call's window, and the
robot stopped at the end (a recorded protective-stop cancellation). The result's rows, counts,
steps and achieved goals are re-derived from the queries and the recorded command statuses and
must equal the recorded ``suite/result`` (and the JSONL record); goal_status and stop_reason
are the agent's own view and are taken from the result.

Context: every ``SuiteRequest`` carries the run's context (core/suite_context: policy file, L,
skills file, as the resolved graph gave them), so nothing is read from today's config. A bag
recorded before contexts existed is audited with today's config, and the audit says so.

Attempts: a suite run killed mid-scenario and resumed leaves the partial scenario and its
re-run in the bag under one episode id. ``core/attempts.split_attempts`` separates them (the
robot's step stream starting over, or a second request); the attempt that produced the result
is audited, the others are counted (``SuiteAudit.interrupted_attempts``).

Order: every list is sorted by a total key from the messages (steps, query indices), never
taken in the order the recorder happened to log two topics.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from alpha_matrix.core.attempts import STEP_TOPIC, Msg, audited_attempt, split_attempts
from alpha_matrix.core.bag import BagError, read_bag
from alpha_matrix.core.errors import ConfigError
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


@dataclass(frozen=True)
class SuiteAudit:
    episode_id: str
    inputs: int  # messages replayed: depth frames, or alerts + statuses
    recorded: int  # recorded decisions (estimates, or alert rows + admissions)
    replayed: int
    problems: tuple[str, ...]
    interrupted_attempts: int = 0  # earlier, unfinished runs of this scenario in the bag (not audited)
    context: str = ""  # where the audit's policy, L or skills came from (one line)

    @property
    def ok(self) -> bool:
        return not self.problems


def bag_suite(bag_dir: Path) -> str | None:
    """``proximity``, ``alerts`` or ``confidence`` when the bag's topics are a suite's, else None."""
    meta = bag_dir / "metadata.yaml"
    try:
        info = yaml.safe_load(meta.read_text())["rosbag2_bagfile_information"]
        topics = {t["topic_metadata"]["name"] for t in info["topics_with_message_count"]}
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        return None  # the matrix audit reports a missing or broken bag
    if "/suite/request" not in topics:
        return None
    if "/proximity/estimate" in topics:
        return "proximity"
    if "/robot/alerts" in topics:
        return "alerts"
    if "/skill/queries" in topics:
        return "confidence"
    return None


def first_difference(recorded: Any, replayed: Any, path: str = "") -> str | None:
    """Path and values of the first difference between two JSON-like values, or None."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for k in sorted(set(recorded) | set(replayed)):
            if k not in recorded or k not in replayed:
                return f"{path}{k}: only in the {'replay' if k in replayed else 'recording'}"
            d = first_difference(recorded[k], replayed[k], f"{path}{k}.")
            if d:
                return d
        return None
    if isinstance(recorded, list) and isinstance(replayed, list):
        for i, (a, b) in enumerate(zip(recorded, replayed, strict=False)):
            d = first_difference(a, b, f"{path}{i}.")
            if d:
                return d
        if len(recorded) != len(replayed):
            return f"{path.rstrip('.')}: {len(recorded)} recorded, {len(replayed)} replayed"
        return None
    if recorded != replayed:
        return f"{path.rstrip('.')}: recorded {recorded!r}, replay {replayed!r}"
    return None


def _json(d: Any) -> Any:
    return json.loads(json.dumps(d, sort_keys=True, allow_nan=False))


def _read_records(run_dir: Path | None) -> dict[str, Any]:
    if run_dir is None:
        return {}
    from alpha_matrix.core.suites.graph import SuiteStore  # noqa: PLC0415 - pulls in the world; only when needed

    return {r.episode_id: r for r in SuiteStore.read_only(run_dir)}


def _compare_records(ep_id: str, result: Any, records: dict[str, Any], run_dir: Path | None) -> list[str]:
    """The JSONL record against the recorded suite/result (already compared with the replay)."""
    if run_dir is None:
        return []
    rec = records.get(ep_id)
    if rec is None:
        return [f"no JSONL record in {run_dir}"]
    if result is None:
        return []
    if rec.ok != bool(result.ok):
        return [f"JSONL ok={rec.ok}, suite/result ok={bool(result.ok)}"]
    d = first_difference(rec.result, json.loads(result.result_json) if result.ok else {})
    return [f"JSONL record differs from suite/result at {d}"] if d else []


# ----------------------------------------------------------------------------- attempts
def _attempts(bag_dir: Path, episode_of: Callable[[str, Any], str | None]) -> dict[str, tuple[list[Msg], int]]:
    """episode id -> (the messages of the attempt to audit, how many other attempts the bag holds).

    core/attempts.split_attempts cuts on the robot's step stream starting over and on a second
    suite/request; the attempt audited is the last with a suite/result (the runner records that
    one), else the last (reported as interrupted).
    """

    def of(topic: str, msg: Any) -> str | None:
        return msg.episode_id or None if topic == STEP_TOPIC else episode_of(topic, msg)

    split = split_attempts(
        read_bag(bag_dir), episode_of=of, is_start=lambda t, _m: t == "/suite/request", result_topic="/suite/result"
    )
    out = {}
    for ep_id, attempts in split.items():
        chosen = audited_attempt(attempts)[0] or attempts[-1]
        msgs = [m for m in chosen.messages if m[0] != STEP_TOPIC]
        if msgs or len(attempts) > 1:  # not only step batches (a stream of no suite episode)
            out[ep_id] = (msgs, len(attempts) - 1)
    return out


def _request_context(suite: str, request: Any) -> tuple[Any, str, str | None]:
    """(context, where it came from, problem) for one episode's recorded request."""
    from alpha_matrix.core.suites.context import parse_context, todays_context  # noqa: PLC0415

    if request is None:
        return None, "", None
    text = getattr(request, "context_json", "")  # absent from bags of older interfaces
    if text:
        try:
            ctx = parse_context(text, suite)
        except ValueError as err:
            return None, "", f"suite/request: {err}"
        return ctx, f"from the bag: {ctx.describe()}", None
    if suite == "proximity":  # its audit reads nothing from config: L is the scenario's
        return None, "from the bag: L = the scenario's reaction_steps (no recorded context)", None
    ctx = todays_context(suite)
    return ctx, f"today's config (the bag records no context): {ctx.describe()}", None


class _FileLoads:
    """Recorded files loaded once per content (sha256), through the live nodes' own loaders."""

    def __init__(self, load: Callable[[Path], Any]) -> None:
        self.load, self.cache = load, {}

    def __call__(self, recorded: Any) -> Any:
        if recorded.sha256 not in self.cache:
            with tempfile.TemporaryDirectory() as tmp:
                path = recorded.write_to(Path(tmp))
                try:
                    self.cache[recorded.sha256] = self.load(path)
                except ConfigError as err:  # name the recorded file, not the temporary copy
                    raise ConfigError(str(err).replace(str(path), recorded.path)) from None
        return self.cache[recorded.sha256]


# ----------------------------------------------------------------------------- proximity
@dataclass
class _ProxEpisode:
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


def _prox_episode_of(topic: str, msg: Any) -> str | None:
    if topic == "/suite/request":
        return msg.episode_id if msg.suite == SUITE else None
    if topic in ("/camera/depth/camera_info", "/camera/depth/image_raw"):
        return parse_frame_tag(msg.header.frame_id)[0]
    if topic in ("/proximity/estimate", "/sim/proximity_truth", "/suite/result"):
        return msg.episode_id
    return None


def _prox_episode(msgs: list[Msg]) -> _ProxEpisode:
    ep = _ProxEpisode()
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
            if msg.encoding != "32FC1":
                ep.problems.append(f"frame of step {step}: encoding {msg.encoding!r}, not 32FC1")
                continue
            frames.append((step, np.frombuffer(bytes(msg.data), dtype=np.float32).reshape(msg.height, msg.width)))
        elif topic == "/proximity/estimate":
            ep.recorded.append(_estimate_dict(msg))
        elif topic == "/sim/proximity_truth":
            ep.truth.append(msg)
        elif topic == "/suite/result":
            ep.result = msg
    # One writer each, so log order is step order; sorted anyway, by a total key.
    ep.recorded.sort(key=lambda e: e["step"])
    ep.truth.sort(key=lambda m: int(m.first_step))
    for step, depth in sorted(frames, key=lambda f: f[0]):
        ep.feed(step, depth)
    return ep


def load_proximity(bag_dir: Path) -> dict[str, _ProxEpisode]:
    out = {}
    for ep_id, (msgs, others) in _attempts(bag_dir, _prox_episode_of).items():
        out[ep_id] = _prox_episode(msgs)
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


def _arm_from(task: dict[str, Any]) -> ArmAccount:
    return ArmAccount(
        commands=[tuple(c) for c in task["commands"]],  # type: ignore[misc]
        refused_while_stopped=int(task["refused_while_stopped"]),
        plan_done=int(task["plan_done"]),
        holds_while_stopped=int(task["holds_while_stopped"]),
    )


def _audit_proximity_episode(ep_id: str, ep: _ProxEpisode, latency: int | None) -> list[str]:
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
    rescored = compose_result(
        sc, gt, in_view, stopped, estimates, _arm_from(recorded["task"]), recorded["task"]["placed"]
    )
    rescored = _json({**rescored, "last_step": recorded.get("last_step")})
    d = first_difference(recorded, rescored)
    if d:
        problems.append(f"suite/result differs from the re-score at {d}")
    # 3. Each stop/resume is in effect on the robot L steps after the frame it was decided on
    # (the bridge's L from the recorded context; the scenario's for a bag recorded without one).
    for e in ep.recorded:
        at = e["step"] + (sc.reaction_steps if latency is None else latency)
        if e["action"] != "none" and at <= sc.end_step and bool(stopped[at]) != (e["action"] == "stop"):
            problems.append(f"{e['action']} decided at step {e['step']} is not in effect at step {at}")
            break
    return problems


def audit_proximity_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    eps = load_proximity(bag_dir)
    records = _read_records(run_dir)
    out = []
    for ep_id in sorted(e for e in eps if e):
        ep = eps[ep_id]
        ctx, where, problem = _request_context(SUITE, ep.request)
        problems = [problem] if problem else []
        latency = ctx.reaction_latency_steps if ctx is not None else None
        problems += _audit_proximity_episode(ep_id, ep, latency) + _compare_records(ep_id, ep.result, records, run_dir)
        out.append(
            SuiteAudit(ep_id, ep.frames, len(ep.recorded), len(ep.replayed), tuple(problems), ep.interrupted, where)
        )
    for ep_id in sorted(set(records) - set(eps)) if run_dir is not None else []:
        out.append(SuiteAudit(ep_id, 0, 0, 0, ("JSONL record with no episode in the bag",)))
    return out


def audit_suite_bag(suite: str, bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    if suite == "proximity":
        return audit_proximity_bag(bag_dir, run_dir)
    if suite == "alerts":
        return audit_alerts_bag(bag_dir, run_dir)
    if suite == "confidence":
        return audit_confidence_bag(bag_dir, run_dir)
    raise BagError(f"{bag_dir}: no audit for suite {suite!r}")


def format_suite_table(suite: str, audits: list[SuiteAudit]) -> str:
    head = {"proximity": "estimates", "confidence": "answers"}.get(suite, "decisions") + " rec/replay"
    lines = [f"{'episode':<44} {'inputs':>6} {head:>20}  verdict"]
    for a in audits:
        verdict = "match" if a.ok else "MISMATCH: " + "; ".join(a.problems)
        lines.append(f"{a.episode_id:<44} {a.inputs:>6} {f'{a.recorded}/{a.replayed}':>20}  {verdict}")
    lines.append("")
    for where in sorted({a.context for a in audits if a.context}):
        n = sum(a.context == where for a in audits)
        note = "note: audited with " if where.startswith("today's") else "context "
        lines.append(f"{note}{where} ({n} episode{'s' if n != 1 else ''})")
    interrupted = [a for a in audits if a.interrupted_attempts]
    if interrupted:
        n = sum(a.interrupted_attempts for a in interrupted)
        eps = ", ".join(f"{a.episode_id} ({a.interrupted_attempts})" for a in interrupted)
        lines.append(f"interrupted attempts: {n} (a run killed mid-scenario, re-run on resume; not audited): {eps}")
    return "\n".join(lines).rstrip("\n")


# ----------------------------------------------------------------------------- alerts
@dataclass
class _AlertEpisode:
    request: Any = None  # SuiteRequest
    interrupted: int = 0  # other attempts of this episode id in the bag
    alerts: list[Any] = field(default_factory=list)
    statuses: list[Any] = field(default_factory=list)
    result: Any = None

    @property
    def scenario_json(self) -> str | None:
        return self.request.scenario_json if self.request is not None else None


def _alerts_episode_of(topic: str, msg: Any) -> str | None:
    if topic == "/suite/request":
        return msg.episode_id if msg.suite == "alerts" else None
    if topic in ("/robot/alerts", "/robot/status", "/suite/result"):
        return msg.episode_id
    return None


def load_alerts(bag_dir: Path) -> dict[str, _AlertEpisode]:
    out = {}
    for ep_id, (msgs, others) in _attempts(bag_dir, _alerts_episode_of).items():
        ep = out[ep_id] = _AlertEpisode(interrupted=others)
        for topic, _ts, msg in msgs:
            if topic == "/suite/request":
                ep.request = msg
            elif topic == "/robot/alerts":
                ep.alerts.append(msg)
            elif topic == "/robot/status":
                ep.statuses.append(msg)
            elif topic == "/suite/result":
                ep.result = msg
        # Statuses by step (one writer: strictly increasing). Alerts by step, stable: same-step
        # alerts keep their publication order (one writer, in order), which the guard also sees.
        ep.statuses.sort(key=lambda m: int(m.step))
        ep.alerts.sort(key=lambda m: int(m.step))
    return out


def replay_guard(ep: _AlertEpisode, commands: list[dict[str, Any]], policy: Any, latency: int) -> dict[str, Any]:
    """The guard's account of one episode, replayed with the live node's GuardCore.

    Alerts are only acted on when a status covering their step is credited, so giving the core
    every alert first changes nothing; statuses go in their recorded order. A command the
    robot would start at step s is admitted once every status before s is processed and
    before any later one, as the live guard does (the robot is idle while it asks).
    """
    from alpha_matrix.core.suites.alerts.policy import Alert, AlertClass, Severity  # noqa: PLC0415
    from alpha_matrix.core.suites.alerts.policy import RobotStatus as CoreStatus  # noqa: PLC0415
    from alpha_matrix.core.suites.graph import AlertEvent, GuardCore, alert_scenario_from_json  # noqa: PLC0415

    sc = alert_scenario_from_json(ep.scenario_json or "")
    core = GuardCore(policy, sc.status, latency)
    for m in ep.alerts:  # as alert_guard._feed builds them
        alert = Alert(
            m.alert_id, AlertClass(m.alert_class), Severity(m.severity), int(m.step), json.loads(m.payload_json or "{}")
        )
        core.on_alert(AlertEvent(alert, int(m.step), bool(m.cleared)))
    todo = sorted(commands, key=lambda c: c["step"])  # stable: same-step commands keep their order
    for m in ep.statuses:
        while todo and todo[0]["step"] <= int(m.step):
            c = todo.pop(0)
            core.admit(c["command"], int(c["step"]))
        core.on_status(
            CoreStatus(int(m.step), m.battery_pct, tuple(m.joint_temp_c), tuple(m.actuator_ok)), m.alerts_issued
        )
    for c in todo:
        core.admit(c["command"], int(c["step"]))
    return core.export()


def audit_alerts_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    from alpha_matrix.core.outcome import Outcome  # noqa: PLC0415
    from alpha_matrix.core.suites.alerts.scenarios import load_alert_policy  # noqa: PLC0415
    from alpha_matrix.core.suites.graph import compose_alert_result  # noqa: PLC0415

    eps = load_alerts(bag_dir)
    records = _read_records(run_dir)
    policies = _FileLoads(load_alert_policy)
    out = []
    for ep_id in sorted(e for e in eps if e):
        ep = eps[ep_id]
        problems: list[str] = []
        recorded_n = replayed_n = 0
        ctx, where, problem = _request_context("alerts", ep.request)
        if ep.scenario_json is None:
            problems.append("no recorded suite/request for this episode")
        elif problem:
            problems.append(problem)
        elif ep.result is None:
            problems.append("no recorded suite/result (run interrupted?)")
        elif ep.result.ok:
            rec = json.loads(ep.result.result_json)
            try:
                policy = policies(ctx.policy).policy
            except ConfigError as err:
                policy, problems = None, [*problems, f"recorded policy: {err}"]
            if policy is not None:
                account = replay_guard(ep, rec["commands"], policy, ctx.reaction_latency_steps)
                replay = _json(
                    compose_alert_result(
                        rec["name"], rec["seed"], account, rec["steps"], rec["plan_complete"], Outcome(**rec["outcome"])
                    )
                )
                recorded_n = len(rec["alerts"]) + len(rec["commands"]) + len(rec["stop_requests"])
                replayed_n = len(replay["alerts"]) + len(replay["commands"]) + len(replay["stop_requests"])
                d = first_difference(rec, replay)
                if d:
                    problems.append(f"suite/result differs from the guard's replay at {d}")
        problems += _compare_records(ep_id, ep.result, records, run_dir)
        inputs = len(ep.alerts) + len(ep.statuses)
        out.append(SuiteAudit(ep_id, inputs, recorded_n, replayed_n, tuple(problems), ep.interrupted, where))
    for ep_id in sorted(set(records) - set(eps)) if run_dir is not None else []:
        out.append(SuiteAudit(ep_id, 0, 0, 0, ("JSONL record with no episode in the bag",)))
    return out


# ----------------------------------------------------------------------------- confidence
DONE, CANCELLED = 2, 3  # CommandStatus states
ANSWER_FIELDS = ("confidence", "in_distribution", "feasible", "reason")


@dataclass
class _ConfEpisode:
    request: Any = None  # SuiteRequest
    interrupted: int = 0  # other attempts of this episode id in the bag
    queries: list[Any] = field(default_factory=list)  # ConfidenceQuery
    statuses: list[Any] = field(default_factory=list)  # terminal CommandStatus
    result: Any = None


def _conf_episode_of(topic: str, msg: Any) -> str | None:
    if topic == "/suite/request":
        return msg.episode_id if msg.suite == "confidence" else None
    if topic == "/robot/command_status":
        return msg.episode_id if msg.state in (DONE, CANCELLED) else None
    if topic in ("/skill/queries", "/suite/result"):
        return msg.episode_id
    return None


def load_confidence(bag_dir: Path) -> dict[str, _ConfEpisode]:
    out = {}
    for ep_id, (msgs, others) in _attempts(bag_dir, _conf_episode_of).items():
        ep = out[ep_id] = _ConfEpisode(interrupted=others)
        for topic, _ts, msg in msgs:
            if topic == "/suite/request":
                ep.request = msg
            elif topic == "/skill/queries":
                ep.queries.append(msg)
            elif topic == "/robot/command_status":
                ep.statuses.append(msg)
            elif topic == "/suite/result":
                ep.result = msg
    return out


def _positions(objects: Any) -> dict[str, tuple[float, float, float]]:
    return {o.name: (float(o.pose.position.x), float(o.pose.position.y), float(o.pose.position.z)) for o in objects}


def _status_state(status: Any, geo: Any) -> Any:
    """robot_client.skill_state on a recorded CommandStatus: what the executive observed."""
    from alpha_matrix.core.suites.confidence.skills import SkillState, infer_holding  # noqa: PLC0415

    positions = _positions(status.objects)
    joints = [float(j) for j in status.joint_positions]
    width = joints[-2] + joints[-1] if len(joints) >= 2 else 0.08
    g = status.grasp_position
    return SkillState(positions, infer_holding(positions, (float(g.x), float(g.y), float(g.z)), width, geo), width)


def _answers(q: Any) -> list[tuple[float, bool, bool, str]]:
    return [
        (float(c), bool(i), bool(f), str(r))
        for c, i, f, r in zip(q.confidence, q.in_distribution, q.feasible, q.reason, strict=False)
    ]


def replay_confidence(ep: _ConfEpisode, suite: Any) -> tuple[dict[str, Any], list[str], int]:
    """Re-derive the episode's result from its queries and command statuses.

    Returns (the replayed result, problems found on the way, answers replayed).
    """
    from alpha_matrix.core.robot.commands import plan_to_commands  # noqa: PLC0415
    from alpha_matrix.core.suites.confidence.agent import ConfidenceLedger  # noqa: PLC0415
    from alpha_matrix.core.suites.confidence.emulator import ConfidenceEmulator  # noqa: PLC0415
    from alpha_matrix.core.suites.confidence.scenarios import parse_goal  # noqa: PLC0415
    from alpha_matrix.core.suites.confidence.skills import (  # noqa: PLC0415
        SkillError,
        SkillState,
        compile_skill,
        parse_skill,
        place_target,
        skill_succeeded,
    )

    problems: list[str] = []
    req, geo, cfg = ep.request, suite.geometry, suite.confidence
    sc = json.loads(req.scenario_json)
    name, seed = sc["name"], int(req.seed)
    emulator = ConfidenceEmulator(cfg, seed, episode_id=name)
    queries = sorted(ep.queries, key=lambda q: int(q.query_index))
    if [int(q.query_index) for q in queries] != list(range(len(queries))):
        problems.append(f"query indices {[int(q.query_index) for q in queries]} are not 0..{len(queries) - 1}")
    statuses = sorted(ep.statuses, key=lambda m: (int(m.start_step), int(m.end_step), int(m.command_id)))
    done = [m for m in statuses if m.state == DONE]
    by_end = {int(m.end_step): m for m in done}
    stop = next((m for m in statuses if m.state == CANCELLED and "protective stop" in m.message), None)
    final = done[-1] if done else None  # the hold before the stop: the poses goals are judged on
    # 1. Every answer, recomputed from the recorded request.
    replayed: list[list[float]] = []
    n_answers = 0
    for q in queries:
        if q.stream_id != name or int(q.seed) != seed:
            problems.append(f"query {q.query_index}: stream {q.stream_id!r} seed {q.seed}, not {name!r} seed {seed}")
        state = SkillState(_positions(q.objects), q.holding or None, float(q.gripper_width))
        scored = emulator.score(list(q.candidates), state, int(q.query_index))
        n_answers += len(scored)
        replayed.append([a.confidence for a in scored])
        rec = _answers(q)
        for i, a in enumerate(scored):
            mine = (a.confidence, a.in_distribution, a.feasible, a.reason)
            theirs = rec[i] if i < len(rec) else None
            if theirs != mine:
                problems.append(f"query {q.query_index}: {a.instruction}: recorded {theirs}, replay {mine}")
                break
        if len(rec) != len(scored):
            problems.append(f"query {q.query_index}: {len(rec)} answers recorded for {len(scored)} candidates")
        if not q.hypothetical:  # a check must be on the state the robot was in
            seen = by_end.get(int(q.step))
            if seen is None:
                problems.append(f"query {q.query_index}: no recorded command ends at its step {q.step}")
            elif _status_state(seen, geo) != state:
                problems.append(f"query {q.query_index}: the state sent is not the robot's at step {q.step}")
    # 2. The rules, with the executive's own ledger fed the replayed answers.
    ledger = ConfidenceLedger(cfg.threshold)
    rows: list[dict[str, Any]] = []
    windows: list[tuple[int, int]] = []  # (after step, up to step) of every executed call
    for k, (q, scores) in enumerate(zip(queries, replayed, strict=True)):
        ledger.record_query(list(q.candidates), scores, bool(q.hypothetical))
        if q.next_action != "call":
            continue
        text, step = q.next_skill, int(q.step)
        violation = ledger.admit(text)
        chooser = next(
            (
                (p, s)
                for p, s in zip(reversed(queries[: k + 1]), reversed(replayed[: k + 1]), strict=True)
                if not p.hypothetical and text in list(p.candidates)
            ),
            None,
        )
        if chooser is None:
            qi, conf, rank = -1, 0.0, -1
        else:
            p, s = chooser
            rank = list(p.candidates).index(text)
            qi, conf = int(p.query_index), s[rank]
        row = {
            "task": name, "seed": seed, "index": len(rows), "instruction": text, "query_index": qi,
            "confidence": conf, "rank": rank, "start_step": step + 1, "end_step": step, "succeeded": False,
            "violation": violation,
        }  # fmt: skip
        rows.append(row)
        if violation:
            problems.append(f"rule broken: {violation}")
            break
        # The skill's commands, as the executive compiles them from the state it observed.
        before = by_end.get(step)
        try:
            skill = parse_skill(text)
        except SkillError as err:
            problems.append(f"{text}: {err}")
            break
        if before is None:
            break  # already reported with its query
        start_state = _status_state(before, geo)
        n = len(plan_to_commands(compile_skill(skill, start_state, geo)))
        ran = [m for m in statuses if int(m.start_step) > step][:n]
        if len(ran) < n or int(ran[0].start_step) != step + 1:
            problems.append(f"{text} (query {q.query_index}): {n} robot commands from step {step + 1} not recorded")
            break
        row["end_step"] = int(ran[-1].end_step)
        windows.append((step, row["end_step"]))
        after = by_end.get(row["end_step"])
        if after is not None:
            target = place_target(skill, start_state, geo)
            row["succeeded"] = skill_succeeded(skill, target, _status_state(after, geo), geo)
        ledger.skill_finished()
    reset = statuses[0] if statuses else None
    for m in statuses:  # every motion belongs to a checked call
        if m is reset or m is final or m is stop:
            continue
        if not any(a < int(m.start_step) <= b for a, b in windows):
            problems.append(
                f"rule broken: robot command {m.command_id} at step {m.start_step} outside any checked call"
            )
            break
    # 3. The stop and the goals, from the recorded statuses.
    if stop is None:
        problems.append("rule broken: no protective stop of the robot recorded at the end")
    else:
        ledger.record_stop()
    steps = int(stop.end_step) + 1 if stop is not None else int(statuses[-1].end_step) if statuses else 0
    achieved = {}
    if final is not None:
        end = _status_state(final, geo)
        for g in (parse_goal(t) for t in sc["goals"]):
            achieved[g.obj] = any(skill_succeeded(t, place_target(t, end, geo), end, geo) for t in g.targets)
    replay = {
        "task": name, "seed": seed, "rows": rows, "achieved": achieved, "expected": sc["expected"],
        "queries": ledger.queries, "calls": ledger.calls, "checked": ledger.checked,
        "below_threshold": ledger.below_threshold, "violations": list(ledger.violations),
        "robot_stopped": ledger.stopped, "steps": steps,
    }  # fmt: skip
    return replay, problems, n_answers


def audit_confidence_bag(bag_dir: Path, run_dir: Path | None = None) -> list[SuiteAudit]:
    from alpha_matrix.core.suites.confidence.scenarios import load_skills_config  # noqa: PLC0415

    eps = load_confidence(bag_dir)
    records = _read_records(run_dir)
    suites = _FileLoads(load_skills_config)
    out = []
    for ep_id in sorted(e for e in eps if e):
        ep = eps[ep_id]
        problems: list[str] = []
        recorded_n = sum(len(q.confidence) for q in ep.queries)
        replayed_n = 0
        ctx, where, problem = _request_context("confidence", ep.request)
        if ep.request is None:
            problems.append("no recorded suite/request for this episode")
        elif problem:
            problems.append(problem)
        elif ep.result is None:
            problems.append("no recorded suite/result (run interrupted?)")
        elif ep.result.ok:
            rec = json.loads(ep.result.result_json)
            try:
                suite = suites(ctx.skills)
            except ConfigError as err:
                suite, problems = None, [*problems, f"recorded skills file: {err}"]
            if suite is not None:
                replay, found, replayed_n = replay_confidence(ep, suite)
                problems += found
                last = ep.queries and max(ep.queries, key=lambda q: int(q.query_index))
                if last and last.next_action == "stop" and last.stop_reason != rec.get("stop_reason"):
                    problems.append(
                        f"stop reason: skill/queries {last.stop_reason!r}, suite/result {rec.get('stop_reason')!r}"
                    )
                d = first_difference(rec, _json({**rec, **replay}))
                if d:
                    problems.append(f"suite/result differs from the replay at {d}")
        problems += _compare_records(ep_id, ep.result, records, run_dir)
        out.append(SuiteAudit(ep_id, len(ep.queries), recorded_n, replayed_n, tuple(problems), ep.interrupted, where))
    for ep_id in sorted(set(records) - set(eps)) if run_dir is not None else []:
        out.append(SuiteAudit(ep_id, 0, 0, 0, ("JSONL record with no episode in the bag",)))
    return out


__all__ = [
    "SuiteAudit",
    "audit_alerts_bag",
    "audit_confidence_bag",
    "audit_proximity_bag",
    "audit_suite_bag",
    "bag_suite",
    "first_difference",
    "format_suite_table",
]
